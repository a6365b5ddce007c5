// REST validation with the real lib/cel compiler (the default): compile failures become upstream's
// `<path>: Invalid value: "<expression>": <compiler message>` errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  MutatingAdmissionPolicy,
  ValidatingAdmissionPolicy,
  ValidatingWebhookConfiguration,
} from '../../../lib/api/types.js';
import { compileExpression } from '../../../lib/cel/index.js';
import type { CompileRequest } from '../../../lib/cel/index.js';
import {
  aggregate,
  validateMutatingAdmissionPolicy,
  validateValidatingAdmissionPolicy,
  validateValidatingWebhookConfiguration,
} from '../../../lib/manifest/validation/index.js';
import { assertErrors } from './helpers.js';

/** The compiler's own message for a request (so these tests check the mapping, not lib/cel's wording). */
function compilerMessage(request: CompileRequest): string {
  const result = compileExpression(request);
  assert.equal(result.ok, false, `expected ${request.expression} not to compile`);
  return result.ok ? '' : result.message;
}

function vap(): ValidatingAdmissionPolicy {
  return {
    metadata: { name: 'cel.static.k8s.io' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {},
        resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
      },
      matchConditions: [{ name: 'has-data', expression: 'has(object.data)' }],
      variables: [
        { name: 'keys', expression: 'object.data.map(k, k)' },
        { name: 'count', expression: 'size(variables.keys)' },
      ],
      validations: [{ expression: 'variables.count < 10', messageExpression: "'too many keys: ' + string(variables.count)" }],
      auditAnnotations: [{ key: 'count', valueExpression: 'string(variables.count)' }],
    },
  };
}

describe('CEL compilation during validation (lib/cel)', () => {
  it('accepts a policy whose expressions all compile', () => {
    assertErrors(validateValidatingAdmissionPolicy(vap()), []);
  });

  it('reports a validation that is not bool with upstream\'s return-type message', () => {
    const p = vap();
    p.spec!.validations![0]!.expression = "'yes'";
    assertErrors(validateValidatingAdmissionPolicy(p), [
      `spec.validations[0].expression: Invalid value: "'yes'": must evaluate to bool but got string`,
    ]);
  });

  it('reports an auditAnnotation that is neither string nor null', () => {
    const p = vap();
    p.spec!.auditAnnotations![0]!.valueExpression = ' variables.count + 1 ';
    assertErrors(validateValidatingAdmissionPolicy(p), [
      `spec.auditAnnotations[0].valueExpression: Invalid value: " variables.count + 1 ": must evaluate to one of [string null_type] but got int`,
    ]);
  });

  it('reports a messageExpression that is not a string', () => {
    const p = vap();
    p.spec!.validations![0]!.messageExpression = 'size(object.data)';
    assertErrors(validateValidatingAdmissionPolicy(p), [
      'spec.validations[0].messageExpression: Invalid value: "size(object.data)": must evaluate to string but got int',
    ]);
  });

  it('reports a syntax error at the expression with the compiler message', () => {
    const p = vap();
    p.spec!.validations![0]!.expression = 'variables.count <';
    const message = compilerMessage({ expression: 'variables.count <', environment: 'validatingPolicy', expect: 'bool', variableNames: ['keys', 'count'] });
    assert.match(message, /^compilation failed: ERROR: <input>:1:/);
    assertErrors(validateValidatingAdmissionPolicy(p), [`spec.validations[0].expression: Invalid value: "variables.count <": ${message}`]);
  });

  it('lets a variable use only the variables declared before it', () => {
    const p = vap();
    p.spec!.variables = [
      { name: 'count', expression: 'size(variables.keys)' },
      { name: 'keys', expression: 'object.data.map(k, k)' },
    ];
    const message = compilerMessage({ expression: 'size(variables.keys)', environment: 'validatingPolicy', expect: 'any', variableNames: [] });
    assertErrors(validateValidatingAdmissionPolicy(p), [`spec.variables[0].expression: Invalid value: "size(variables.keys)": ${message}`]);
  });

  it('reports an undeclared identifier in a webhook match condition', () => {
    const c: ValidatingWebhookConfiguration = {
      metadata: { name: 'hook.static.k8s.io' },
      webhooks: [{
        name: 'hook.example.com',
        clientConfig: { url: 'https://hook.example.com/' },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        matchConditions: [{ name: 'p', expression: '  params.enabled  ' }],
      }],
    };
    const message = compilerMessage({ expression: 'params.enabled', environment: 'webhookMatchCondition', expect: 'bool', variableNames: [] });
    const errors = validateValidatingWebhookConfiguration(c);
    assertErrors(errors, [`webhooks[0].matchConditions[0].expression: Invalid value: "params.enabled": ${message}`]);
    assert.equal(aggregate(errors), `webhooks[0].matchConditions[0].expression: Invalid value: "params.enabled": ${message}`);
  });

  it('accepts valid mutations written with construction syntax (JSONPatch{…}, Object{…}) and still compiles variables', () => {
    const p: MutatingAdmissionPolicy = {
      metadata: { name: 'label.static.k8s.io' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {},
          resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
        },
        variables: [{ name: 'team', expression: "'platform'" }],
        mutations: [
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": variables.team}}}' } },
          { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: variables.team}]' } },
        ],
        reinvocationPolicy: 'Never',
      },
    };
    assertErrors(validateMutatingAdmissionPolicy(p), []);
    p.spec!.variables![0]!.expression = "'platform' +";
    const errors = validateMutatingAdmissionPolicy(p);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.toString(), /^spec\.variables\[0\]\.expression: Invalid value: "'platform' \+": compilation failed: /);
  });
});
