import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { dispatchValidatingPolicies, validationFailureKey } from '../../../lib/admission/validating/dispatcher.js';
import type { PolicyHook } from '../../../lib/manifest/compile.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { tempDir, writeFiles } from '../../helpers/fs.js';

const root = new URL('../../../../', import.meta.url).pathname;
const capture = (name: string): AdmissionRequest =>
  (JSON.parse(readFileSync(`${root}testdata/admission/apiserver-captures/${name}.json`, 'utf8')) as { request: AdmissionRequest }).request;

function hooksOf(files: Record<string, string>): { hooks: readonly PolicyHook[]; cleanup: () => void } {
  const { dir, cleanup } = tempDir();
  writeFiles(dir, files);
  const snap = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
  assert.equal(snap.compiled.family, 'policy');
  return { hooks: snap.compiled.family === 'policy' ? snap.compiled.hooks : [], cleanup };
}

const devHooks = (): readonly PolicyHook[] => {
  const snap = loadSnapshotSync('ValidatingAdmissionPolicy', `${root}testdata/dev/policies`);
  return snap.compiled.family === 'policy' ? snap.compiled.hooks : [];
};

function policy(name: string, validations: string, extra = '', operations = '["CREATE", "UPDATE", "DELETE"]'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: ${operations}, resources: [configmaps]}
${extra}  validations:
${validations}`;
}
const binding = (name: string, policyName: string, actions = '[Deny]'): string =>
  `---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: ${name}}\nspec: {policyName: ${policyName}, validationActions: ${actions}}\n`;

test('an allowed real pod CREATE; the same pod made privileged is denied with the in-tree Status', () => {
  const hooks = devHooks();
  const pod = capture('007-validate-CREATE-Pod-p1');
  assert.equal(dispatchValidatingPolicies(hooks, pod).allowed, true);
  const privileged = structuredClone(pod);
  (privileged.object as { spec: { containers: Array<Record<string, unknown>> } }).spec.containers[0]!.securityContext = { privileged: true };
  const verdict = dispatchValidatingPolicies(hooks, privileged);
  assert.equal(verdict.allowed, false);
  const message = "ValidatingAdmissionPolicy 'deny-privileged.static.k8s.io' with binding 'deny-privileged-binding.static.k8s.io' denied request: privileged containers are not allowed";
  assert.deepEqual(verdict.status, {
    metadata: {}, status: 'Failure', message: `pods "p1" is forbidden: ${message}`, reason: 'Forbidden',
    details: { name: 'p1', group: '', kind: 'pods', causes: [{ message }] }, code: 403,
  });
});

test('DELETE reads oldObject; messageExpression builds the message; reason defaults to Invalid (422)', () => {
  const hooks = devHooks();
  const del = capture('012-validate-DELETE-ConfigMap-cm-prot');
  assert.equal(dispatchValidatingPolicies(hooks, del).allowed, true, 'not labelled protected');
  (del.oldObject as { metadata: { labels: Record<string, string> } }).metadata.labels.protected = 'true';
  const verdict = dispatchValidatingPolicies(hooks, del);
  assert.equal(verdict.allowed, false);
  assert.equal(verdict.status?.code, 422);
  assert.equal(verdict.status?.reason, 'Invalid');
  assert.equal(verdict.status?.message, `configmaps "cm-prot" is forbidden: ValidatingAdmissionPolicy 'protect-configmaps.static.k8s.io' with binding 'protect-configmaps-binding.static.k8s.io' denied request: configmap cm-prot is protected`);
  const failure = JSON.parse(verdict.auditAnnotations[validationFailureKey]!) as unknown;
  assert.deepEqual(failure, [{ message: 'configmap cm-prot is protected', policy: 'protect-configmaps.static.k8s.io', binding: 'protect-configmaps-binding.static.k8s.io', expressionIndex: 0, validationActions: ['Deny', 'Audit'] }]);
});

test('Warn and Audit bindings admit with upstream warning text and audit annotation; message fallbacks', () => {
  const { hooks, cleanup } = hooksOf({
    'p.yaml': policy('p.static.k8s.io', `  - expression: "object.metadata.name != 'cm1'"\n  - expression: "false"\n    messageExpression: "'line1\\\\nline2'"\n    message: "  static message  "\n`) +
      binding('w.static.k8s.io', 'p.static.k8s.io', '[Warn, Audit]'),
  });
  try {
    const verdict = dispatchValidatingPolicies(hooks, capture('003-validate-UPDATE-ConfigMap-cm1'));
    assert.equal(verdict.allowed, true);
    assert.deepEqual(verdict.warnings, [
      "Validation failed for ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'w.static.k8s.io': failed expression: object.metadata.name != 'cm1'",
      "Validation failed for ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'w.static.k8s.io': static message",
    ]);
    const failures = JSON.parse(verdict.auditAnnotations[validationFailureKey]!) as Array<{ expressionIndex: number }>;
    assert.equal(failures[0]!.expressionIndex, 0, 'the first annotation value stays');
    assert.deepEqual(verdict.checks.map((c) => c.enforcementAction), ['warn', 'audit', 'warn', 'audit']);
  } finally {
    cleanup();
  }
});

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go (utiljson.Marshal of
// []ValidationFailureValue: encoding/json's HTML escaping)
test('the validation_failure annotation is encoded as encoding/json encodes it: <, > and & escaped', () => {
  const { hooks, cleanup } = hooksOf({
    'p.yaml': policy('p.static.k8s.io', `  - expression: "size(object.metadata.name) > 10 && true"\n`) + binding('a.static.k8s.io', 'p.static.k8s.io', '[Audit]'),
  });
  try {
    const verdict = dispatchValidatingPolicies(hooks, capture('003-validate-UPDATE-ConfigMap-cm1'));
    assert.equal(verdict.auditAnnotations[validationFailureKey], '[{"message":"failed expression: size(object.metadata.name) \\u003e 10 \\u0026\\u0026 true","policy":"p.static.k8s.io","binding":"a.static.k8s.io","expressionIndex":0,"validationActions":["Audit"]}]');
  } finally {
    cleanup();
  }
});

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go (expressionIndex is the
// decision's position: `for i, decision := range validationResult.Decisions`)
test('a failed matchCondition is published as the first decision: expressionIndex 0', () => {
  const extra = `  failurePolicy: Fail\n  matchConditions:\n  - {name: m, expression: "object.metadata.labels['absent'] == 'x'"}\n`;
  const { hooks, cleanup } = hooksOf({ 'p.yaml': policy('p.static.k8s.io', `  - expression: "true"\n`, extra) + binding('a.static.k8s.io', 'p.static.k8s.io', '[Audit]') });
  try {
    const verdict = dispatchValidatingPolicies(hooks, capture('003-validate-UPDATE-ConfigMap-cm1'));
    const failures = JSON.parse(verdict.auditAnnotations[validationFailureKey]!) as Array<{ expressionIndex: number }>;
    assert.equal(failures[0]!.expressionIndex, 0);
  } finally {
    cleanup();
  }
});

// upstream: k8s.io/apiserver pkg/endpoints/filters/warning.go (the recorder keeps one of each warning text)
test('the same Warn text from two validations is one warning', () => {
  const validations = `  - {expression: "false", message: same}\n  - {expression: "1 == 2", message: same}\n`;
  const { hooks, cleanup } = hooksOf({ 'p.yaml': policy('p.static.k8s.io', validations) + binding('w.static.k8s.io', 'p.static.k8s.io', '[Warn]') });
  try {
    const verdict = dispatchValidatingPolicies(hooks, capture('003-validate-UPDATE-ConfigMap-cm1'));
    assert.deepEqual(verdict.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'w.static.k8s.io': same"]);
  } finally {
    cleanup();
  }
});

test('evaluation errors follow failurePolicy; variables are lazy and shared; auditAnnotations published per policy', () => {
  const validations = `  - expression: "variables.size > 0 && object.data.missing == 'x'"\n`;
  const extra = `  variables:\n  - {name: size, expression: "size(object.data)"}\n  auditAnnotations:\n  - {key: data-size, valueExpression: "string(variables.size)"}\n`;
  const fail = hooksOf({ 'p.yaml': policy('p.static.k8s.io', validations, extra) + binding('b.static.k8s.io', 'p.static.k8s.io') });
  const ignore = hooksOf({ 'p.yaml': policy('p.static.k8s.io', validations, `  failurePolicy: Ignore\n${extra}`) + binding('b.static.k8s.io', 'p.static.k8s.io') });
  try {
    const request = capture('003-validate-UPDATE-ConfigMap-cm1');
    const denied = dispatchValidatingPolicies(fail.hooks, request);
    assert.equal(denied.allowed, false);
    assert.match(denied.status?.message ?? '', /denied request: expression 'variables\.size > 0 && object\.data\.missing == 'x'' resulted in error: no such key: missing$/);
    assert.equal(denied.auditAnnotations['p.static.k8s.io/data-size'], '1');
    assert.deepEqual(denied.checks.map((c) => [c.errorType, c.enforcementAction]), [['invalid_error', 'deny']]);
    const allowed = dispatchValidatingPolicies(ignore.hooks, request);
    assert.equal(allowed.allowed, true);
    assert.deepEqual(allowed.checks.map((c) => [c.errorType, c.enforcementAction]), [['invalid_error', 'allow']]);
  } finally {
    fail.cleanup();
    ignore.cleanup();
  }
});

test('matchConditions: false skips the policy; an error is handled by the failure policy', () => {
  const conditions = (expr: string): string => `  matchConditions:\n  - {name: c, expression: "${expr}"}\n`;
  const request = capture('003-validate-UPDATE-ConfigMap-cm1');
  const skip = hooksOf({ 'p.yaml': policy('p.static.k8s.io', '  - expression: "false"\n', conditions("object.metadata.name == 'other'")) + binding('b.static.k8s.io', 'p.static.k8s.io') });
  const broken = hooksOf({ 'p.yaml': policy('p.static.k8s.io', '  - expression: "true"\n', conditions("object.data.nope == 'x'")) + binding('b.static.k8s.io', 'p.static.k8s.io') });
  try {
    assert.equal(dispatchValidatingPolicies(skip.hooks, request).allowed, true);
    const verdict = dispatchValidatingPolicies(broken.hooks, request);
    assert.equal(verdict.allowed, false);
    assert.match(verdict.status?.message ?? '', /denied request: expression 'object\.data\.nope == 'x'' resulted in error: no such key: nope$/);
  } finally {
    skip.cleanup();
    broken.cleanup();
  }
});

test('a failing variable reads as composition.go words it, wherever it is read', () => {
  // plugin/cel/composition.go variableAccessor.Callback: `composited variable %q fails to evaluate: %v`, a CEL
  // error value, inside activation.go's `expression '%v' resulted in error: %v` of the expression that read it.
  // (matchConditions cannot read variables: validation compiles them without, see the manifest validation tests.)
  const inner = 'composited variable "bad" fails to evaluate: no such key: nope';
  const variables = `  variables:\n  - {name: bad, expression: "object.data.nope == 'x'"}\n  - {name: worse, expression: "variables.bad"}\n`;
  const request = capture('003-validate-UPDATE-ConfigMap-cm1');
  const load = (validations: string, extra = ''): ReturnType<typeof hooksOf> =>
    hooksOf({ 'p.yaml': policy('p.static.k8s.io', validations, variables + extra) + binding('b.static.k8s.io', 'p.static.k8s.io') });
  const denial = "configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: ";
  const cases = {
    validation: load('  - expression: "variables.bad"\n'),
    nested: load('  - expression: "variables.worse"\n'),
    absorbed: load('  - expression: "variables.bad || true"\n'),
    message: load('  - expression: "false"\n    message: "fallback"\n    messageExpression: "string(variables.bad)"\n'),
    audit: load('  - expression: "true"\n', '  auditAnnotations:\n  - {key: k, valueExpression: "string(variables.bad)"}\n'),
  };
  try {
    assert.equal(dispatchValidatingPolicies(cases.validation.hooks, request).status?.message, `${denial}expression 'variables.bad' resulted in error: ${inner}`);
    assert.equal(
      dispatchValidatingPolicies(cases.nested.hooks, request).status?.message,
      `${denial}expression 'variables.worse' resulted in error: composited variable "worse" fails to evaluate: ${inner}`,
    );
    assert.equal(dispatchValidatingPolicies(cases.absorbed.hooks, request).allowed, true);
    // a messageExpression that fails falls back to the message (validator.go)
    assert.equal(dispatchValidatingPolicies(cases.message.hooks, request).status?.message, `${denial}fallback`);
    assert.equal(dispatchValidatingPolicies(cases.audit.hooks, request).status?.message, `${denial}expression 'string(variables.bad)' resulted in error: ${inner}`);
  } finally {
    for (const c of Object.values(cases)) c.cleanup();
  }
});

test('a variable that does not compile fails the load, so it never fails to compile at admission time', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, {
      'p.yaml': policy('p.static.k8s.io', '  - expression: "variables.bad"\n', "  variables:\n  - {name: bad, expression: \"int('x') == 1\"}\n") + binding('b.static.k8s.io', 'p.static.k8s.io'),
    });
    assert.throws(() => loadSnapshotSync('ValidatingAdmissionPolicy', dir), /spec\.variables\[0\]\.expression: Internal error: program instantiation failed: type conversion error from 'string' to 'int'/);
  } finally {
    cleanup();
  }
});

test('authentication and authorization review resources are never intercepted', () => {
  const { hooks, cleanup } = hooksOf({
    'p.yaml': policy('p.static.k8s.io', '  - expression: "false"\n').replace('apiGroups: [""], apiVersions: [v1], operations: ["CREATE", "UPDATE", "DELETE"], resources: [configmaps]', 'apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]') + binding('b.static.k8s.io', 'p.static.k8s.io'),
  });
  try {
    const sar: AdmissionRequest = {
      uid: 'u', operation: 'CREATE', name: '', namespace: '',
      kind: { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
      resource: { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews' },
      object: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} },
    };
    assert.equal(dispatchValidatingPolicies(hooks, sar).allowed, true);
    const cm = dispatchValidatingPolicies(hooks, capture('003-validate-UPDATE-ConfigMap-cm1'));
    assert.equal(cm.allowed, false, 'the same policy does deny ordinary requests');
  } finally {
    cleanup();
  }
});
