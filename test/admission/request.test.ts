// `request` in CEL is built as upstream builds it: cel.CreateAdmissionRequest (k8s.io/apiserver
// pkg/admission/plugin/cel/condition.go) turned into a map by runtime.DefaultUnstructuredConverter.ToUnstructured
// (k8s.io/apimachinery pkg/runtime/converter.go structToUnstructured: an `omitempty` field whose value isEmpty is
// dropped). The json tags are k8s.io/api admission/v1 AdmissionRequest, authentication/v1 UserInfo and
// apimachinery meta/v1 GroupVersionKind/GroupVersionResource (no omitempty: `group: ""` stays). The same map is
// what ValidatingAdmissionPolicy, MutatingAdmissionPolicy and webhook matchConditions read.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { dispatchValidatingPolicies } from '../../lib/admission/validating/dispatcher.js';
import { isVerdict, ValidatingWebhookDispatcher } from '../../lib/admission/webhooks/validating.js';
import { WebhookClients } from '../../lib/webhook/client.js';
import { createWebhookMetrics } from '../../lib/webhook/metrics.js';
import { capture, loadPolicies } from './helpers.js';
import { loadHooks, mutate, policy as mutatingPolicy } from './mutating/helpers.js';
import { memoryLogger } from '../server/helpers.js';
import { configurationYAML, contextFor, loadWebhooks, newRegistry } from '../webhook/helpers.js';



/** Every resource, subresource and operation: the expressions decide. */
function anyRequestPolicy(validations: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: request.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"]}
  validations:
${validations}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: request-binding.static.k8s.io}
spec: {policyName: request.static.k8s.io, validationActions: [Warn]}
`;
}

/** Each expression as a validation: true, false, or the text of its evaluation error. */
function outcomes(request: AdmissionRequest, expressions: readonly string[]): Array<boolean | string> {
  const yaml = anyRequestPolicy(expressions.map((e, i) => `  - expression: ${JSON.stringify(e)}\n    message: "denied #${i}"\n`).join(''));
  const verdict = dispatchValidatingPolicies(loadPolicies(yaml), request);
  return expressions.map((e, i) => {
    const denied = verdict.warnings.some((w) => w.endsWith(`: denied #${i}`));
    if (denied) return false;
    const prefix = `expression '${e}' resulted in error: `;
    const error = verdict.warnings.find((w) => w.includes(prefix));
    return error === undefined ? true : error.slice(error.indexOf(prefix) + prefix.length);
  });
}

function expectAll(request: AdmissionRequest, table: ReadonlyArray<readonly [string, boolean | string]>): void {
  const got = outcomes(request, table.map(([e]) => e));
  assert.deepEqual(table.map(([e], i) => [e, got[i]]), table.map(([e, want]) => [e, want]));
}

const clusterRole: AdmissionRequest = {
  uid: 'c-1',
  kind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
  resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  requestKind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
  requestResource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  name: 'reader',
  operation: 'CREATE',
  userInfo: { username: 'system:anonymous' },
  object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } },
  oldObject: null,
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
};

describe('request on a namespaced main resource (a real apiserver capture)', () => {
  test('omitempty fields that are set are present; empty ones are absent; the rest always present', () => {
    expectAll(capture('002-validate-CREATE-ConfigMap-cm1'), [
      // SubResource, RequestSubResource: `json:",omitempty"`, "" on a main resource
      ['!has(request.subResource)', true],
      ['!has(request.requestSubResource)', true],
      ["request.subResource == ''", 'no such key: subResource'],
      ["request.requestSubResource == ''", 'no such key: requestSubResource'],
      ["has(request.name) && request.name == 'cm1'", true],
      ["has(request.namespace) && request.namespace == 'wh'", true],
      // GroupVersionKind/Resource fields carry no omitempty: the core group is a present ""
      ["has(request.kind.group) && request.kind.group == '' && request.kind.kind == 'ConfigMap'", true],
      ["has(request.resource.group) && request.resource.group == ''", true],
      ["has(request.requestKind) && request.requestKind.group == '' && request.requestResource.resource == 'configmaps'", true],
      ["has(request.operation) && request.operation == 'CREATE'", true],
      // UserInfo: every field omitempty
      ["request.userInfo.username == 'admin' && request.userInfo.uid == 'admin-uid'", true],
      ["has(request.userInfo.groups) && 'system:masters' in request.userInfo.groups", true],
      ['!has(request.userInfo.extra)', true],
      ['size(request.userInfo.extra) == 0', 'no such key: extra'],
      // DryRun is a non-nil pointer in CreateAdmissionRequest: always present
      ['has(request.dryRun) && request.dryRun == false', true],
      // Options is a RawExtension holding the operation options
      ["has(request.options) && request.options.kind == 'CreateOptions' && request.options.fieldManager == 'kubectl-create'", true],
    ]);
  });
});

describe('request on a cluster-scoped object', () => {
  test('namespace is absent: has() is false and selecting it is `no such key: namespace`', () => {
    expectAll(clusterRole, [
      ['!has(request.namespace)', true],
      ["request.namespace == ''", 'no such key: namespace'],
      ["has(request.name) && request.name == 'reader'", true],
      ['!has(request.userInfo.groups) && !has(request.userInfo.uid) && !has(request.userInfo.extra)', true],
    ]);
  });

  test('a messageExpression that reads it falls back to the message, or to the default (validator.go)', () => {
    const yaml = anyRequestPolicy(`  - expression: "false"
    messageExpression: "'in ' + request.namespace"
    message: the static message
  - expression: "1 == 2"
    messageExpression: "'in ' + request.namespace"
  - expression: "false && true"
    messageExpression: "has(request.namespace) ? 'namespaced' : 'cluster-scoped ' + request.name"
`);
    const verdict = dispatchValidatingPolicies(loadPolicies(yaml), clusterRole);
    const prefix = "Validation failed for ValidatingAdmissionPolicy 'request.static.k8s.io' with binding 'request-binding.static.k8s.io': ";
    assert.deepEqual(verdict.warnings, [`${prefix}the static message`, `${prefix}failed expression: 1 == 2`, `${prefix}cluster-scoped reader`]);
  });
});

describe('the other empty fields', () => {
  test('a CREATE with generateName has no name; a subresource is present in both fields', () => {
    const generated = { ...capture('002-validate-CREATE-ConfigMap-cm1') };
    delete generated.name;
    expectAll(generated, [['!has(request.name)', true], ["request.name == ''", 'no such key: name']]);

    const status: AdmissionRequest = {
      ...capture('019-validate-UPDATE-Pod-p3'),
      subResource: 'status',
      requestSubResource: 'status',
    };
    expectAll(status, [["request.subResource == 'status' && request.requestSubResource == 'status'", true]]);
  });

  test('userInfo extra and uid are there when the authenticator set them; empty lists are dropped as upstream drops them', () => {
    const r = capture('002-validate-CREATE-ConfigMap-cm1');
    expectAll({ ...r, userInfo: { username: 'u', groups: [], extra: { 'example.com/team': ['a', 'b'] } } }, [
      ['!has(request.userInfo.groups) && !has(request.userInfo.uid)', true],
      ["request.userInfo.extra['example.com/team'] == ['a', 'b']", true],
    ]);
    expectAll({ ...r, userInfo: { username: 'u', extra: {} } }, [['!has(request.userInfo.extra)', true]]);
  });

  test('a review without dryRun and options (v1beta1) still has dryRun false and options null', () => {
    const r = { ...capture('002-validate-CREATE-ConfigMap-cm1') };
    delete r.dryRun;
    delete r.options;
    expectAll(r, [
      ['has(request.dryRun) && request.dryRun == false', true],
      ['has(request.options) && request.options == null', true],
    ]);
  });
});

describe('the same request in the other plugins', () => {
  test('MutatingAdmissionPolicy: matchConditions and mutations see absent fields as absent', async () => {
    const hooks = loadHooks(mutatingPolicy('ns-label', [{
      applyConfiguration: `Object{metadata: Object.metadata{labels: {"scope": has(request.namespace) ? request.namespace : "cluster", "sub": string(has(request.subResource))}}}`,
    }], { resources: 'configmaps', extra: '  matchConditions:\n  - {name: main, expression: "!has(request.requestSubResource)"}\n' }));
    const cm = capture('002-validate-CREATE-ConfigMap-cm1');
    const { patched } = await mutate(hooks, cm);
    const labels = (patched as { metadata: { labels: Record<string, string> } }).metadata.labels;
    assert.deepEqual([labels.scope, labels.sub], ['wh', 'false']);
    const noNamespace = { ...cm };
    delete noNamespace.namespace;
    const out = await mutate(hooks, noNamespace);
    assert.equal((out.patched as { metadata: { labels: Record<string, string> } }).metadata.labels.scope, 'cluster');
    // a matchCondition reading an absent field fails under failurePolicy Fail, with the `no such key` error
    const strict = loadHooks(mutatingPolicy('strict', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"x": "y"}}}' }], {
      resources: 'configmaps', extra: '  matchConditions:\n  - {name: sub, expression: "request.subResource == \'\'"}\n',
    }));
    const denied = await mutate(strict, cm);
    assert.equal(denied.response.allowed, false);
    assert.equal(denied.response.status?.message, `policy 'strict.static.k8s.io' with binding 'strict-binding.static.k8s.io' denied request: expression 'request.subResource == ''' resulted in error: no such key: subResource`);
  });

  test('webhook matchConditions: an absent namespace is `no such key`; has() skips the webhook', async () => {
    const clients = new WebhookClients();
    try {
      const { logger } = memoryLogger(4);
      const dispatcher = new ValidatingWebhookDispatcher({ clients, metrics: createWebhookMetrics(newRegistry()), logger, excludeWebhookVirtualResources: true });
      const hook = (name: string, expression: string, failurePolicy: 'Fail' | 'Ignore') => ({
        name, url: 'https://127.0.0.1:1/never-called', caPEM: '', failurePolicy, apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'],
        extra: `  matchConditions:\n  - {name: c, expression: ${JSON.stringify(expression)}}\n`,
      });
      const skip = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [hook('skip.example.com', 'has(request.namespace)', 'Fail')]) });
      const verdict = dispatcher.dispatch(skip, clusterRole, contextFor());
      assert.ok(isVerdict(verdict));
      assert.equal(verdict.allowed, true, 'not called: the condition is false');
      const fail = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [hook('fail.example.com', "request.namespace != 'x'", 'Fail')]) });
      const denied = dispatcher.dispatch(fail, clusterRole, contextFor());
      assert.ok(isVerdict(denied));
      assert.equal(denied.allowed, false);
      assert.equal(denied.status?.message, `clusterroles.rbac.authorization.k8s.io "reader" is forbidden: expression 'request.namespace != 'x'' resulted in error: no such key: namespace`);
    } finally {
      await clients.close();
    }
  });
});
