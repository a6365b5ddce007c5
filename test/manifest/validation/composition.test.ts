// A ValidatingAdmissionPolicy's expressions see `variables` only when the policy declares variables: upstream's API
// validation compiles them with the composition compiler only then (k8s.io/kubernetes v1.36.3
// pkg/apis/admissionregistration/validation/validation.go validateValidatingAdmissionPolicySpec, needsComposition);
// a MutatingAdmissionPolicy always composes (validateMutatingAdmissionPolicySpec, createCompiler(true)). Expected
// texts are kube-apiserver 1.36.3's, through tools/upstream-oracle's `compile` op.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { applyDefaults } from '../../../lib/manifest/defaults.js';
import type { JsonObject, JsonValue } from '../../../lib/manifest/document.js';
import { validateObject } from '../../../lib/manifest/validate.js';

describe('a ValidatingAdmissionPolicy declares `variables` only when it has variables', () => {
  // validation.go validateValidatingAdmissionPolicySpec: createCompiler(needsComposition), len(spec.Variables) > 0
  const policy = (variables: JsonValue[] | undefined): JsonObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      ...(variables === undefined ? {} : { variables }),
      validations: [{ expression: 'variables.labels.a == 1' }],
    },
  });
  const errors = (object: JsonObject): string => {
    applyDefaults('ValidatingAdmissionPolicy', object);
    return validateObject('ValidatingAdmissionPolicy', object) ?? '';
  };

  it('without variables: undeclared reference to variables', () => {
    assert.equal(
      errors(policy(undefined)),
      "spec.validations[0].expression: Invalid value: \"variables.labels.a == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.labels.a == 1\n | ^",
    );
  });

  it('with a variable: the composition type, which has no field labels', () => {
    assert.equal(
      errors(policy([{ name: 'other', expression: '1' }])),
      "spec.validations[0].expression: Invalid value: \"variables.labels.a == 1\": compilation failed: ERROR: <input>:1:10: undefined field 'labels'\n | variables.labels.a == 1\n | .........^",
    );
  });
});

describe('a MutatingAdmissionPolicy declares `variables` always', () => {
  it('without variables: the composition type, which has no field labels', () => {
    const object: JsonObject = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": variables.labels.a}}}' } }],
      },
    };
    applyDefaults('MutatingAdmissionPolicy', object);
    assert.equal(
      validateObject('MutatingAdmissionPolicy', object) ?? '',
      'spec.mutations[0].applyConfiguration.expression: Invalid value: "Object{metadata: Object.metadata{labels: {\\"a\\": variables.labels.a}}}": compilation failed: ERROR: <input>:1:57: undefined field \'labels\'\n | Object{metadata: Object.metadata{labels: {"a": variables.labels.a}}}\n | ........................................................^',
    );
  });
});
