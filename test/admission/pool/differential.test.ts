// The pool path answers exactly what the main-thread path answers: the same AdmissionResponse (allowed, Status,
// warnings, audit annotations) and the same policy checks (for the upstream metrics), request by request, over
// denials, warnings, audits, evaluation errors under both failure policies, variables, several bindings,
// undecidable selectors, excluded resources, the static-name guard, UPDATE/DELETE, and matchPolicy Equivalent.
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { createValidateHandler } from '../../../lib/review/validate-handler.js';
import type { PolicyCheckRecord } from '../../../lib/metrics/policy.js';
import type { Snapshot } from '../../../lib/reload/snapshot.js';
import { benchPod, binding, capture, context, packageRoot, policy, review, snapshotDir, snapshotOf, startPool } from './helpers.js';

const mixedPolicies: Record<string, string> = {
  'deny.yaml': policy('p-deny.static.k8s.io', `  validations:
  - expression: "object.metadata.name != 'forbidden'"
    messageExpression: "'name ' + object.metadata.name + ' is forbidden'"
    reason: Forbidden
`) + binding('deny-b.static.k8s.io', 'p-deny.static.k8s.io'),
  'warn.yaml': policy('p-warn.static.k8s.io', `  validations:
  - expression: "!has(object.data) || size(object.data) < 3"
    message: "  too much data  "
  auditAnnotations:
  - {key: data-keys, valueExpression: "has(object.data) ? string(size(object.data)) : ''"}
`, 'configmaps', '  failurePolicy: Fail\n') + binding('warn-b.static.k8s.io', 'p-warn.static.k8s.io', '[Warn, Audit]'),
  'fail.yaml': policy('p-fail.static.k8s.io', `  matchConditions:
  - {name: error-mode, expression: "has(object.metadata.labels) && 'mode' in object.metadata.labels && object.metadata.labels.mode == 'error'"}
  validations:
  - expression: "object.data.missing == 'x'"
`, 'configmaps', '  failurePolicy: Fail\n') + binding('fail-b.static.k8s.io', 'p-fail.static.k8s.io'),
  'ignore.yaml': policy('p-ignore.static.k8s.io', `  matchConditions:
  - {name: error-mode, expression: "has(object.metadata.labels) && 'mode' in object.metadata.labels && object.metadata.labels.mode == 'error'"}
  validations:
  - expression: "object.data.missing == 'x'"
`, 'configmaps', '  failurePolicy: Ignore\n') + binding('ignore-b.static.k8s.io', 'p-ignore.static.k8s.io'),
  'vars.yaml': policy('p-vars.static.k8s.io', `  variables:
  - {name: objectName, expression: "object.metadata.name"}
  validations:
  - expression: "variables.objectName != 'vars-denied'"
    messageExpression: "'variable said no to ' + variables.objectName"
`) + binding('vars-b.static.k8s.io', 'p-vars.static.k8s.io'),
  'two.yaml': policy('p-two.static.k8s.io', `  validations:
  - expression: "object.metadata.name != 'two'"
`) + binding('two-deny-prod.static.k8s.io', 'p-two.static.k8s.io', '[Deny]', `  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: prod}
`) + binding('two-warn.static.k8s.io', 'p-two.static.k8s.io', '[Warn]'),
  'locked.yaml': policy('p-locked.static.k8s.io', `  validations:
  - expression: "request.operation != 'UPDATE' || !has(oldObject.data) || !('locked' in oldObject.data) || object.data == oldObject.data"
    message: data is locked
`) + binding('locked-b.static.k8s.io', 'p-locked.static.k8s.io'),
  'secrets.yaml': policy('p-secrets.static.k8s.io', `  validations:
  - expression: "true"
`, 'secrets') + binding('secrets-b.static.k8s.io', 'p-secrets.static.k8s.io', '[Deny]', `  matchResources:
    namespaceSelector:
      matchLabels: {team: a}
`),
  'deployments.yaml': `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p-v1.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}
  validations:
  - expression: "request.kind.version == 'v1' && request.resource.version == 'v1' && request.requestKind.version == 'v1' && object.apiVersion == 'autoscaling/v1' && object.spec.targetCPUUtilizationPercentage == 50"
    messageExpression: "'invoked as ' + request.kind.version + ' with ' + object.apiVersion"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p-v2.static.k8s.io}
spec:
  matchConstraints:
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [autoscaling], apiVersions: [v2], operations: [CREATE], resources: [horizontalpodautoscalers]}
  validations:
  - expression: "request.kind.version == 'v2' && object.apiVersion == 'autoscaling/v2' && object.spec.metrics[0].resource.target.averageUtilization == 50"
    messageExpression: "'invoked as ' + request.kind.version + ' with ' + object.apiVersion"
` + binding('p-v1-b.static.k8s.io', 'p-v1.static.k8s.io') + binding('p-v2-b.static.k8s.io', 'p-v2.static.k8s.io'),
};

type Mutator = (r: AdmissionRequest) => void;
const meta = (r: AdmissionRequest): Record<string, unknown> & { labels?: Record<string, string> } =>
  (r.object as { metadata: Record<string, unknown> & { labels?: Record<string, string> } }).metadata;
const configMap = (mutate: Mutator = () => {}): AdmissionRequest => {
  const r = capture('002-validate-CREATE-ConfigMap-cm1');
  mutate(r);
  return r;
};
const named = (name: string, namespace = 'wh'): Mutator => (r) => {
  r.name = name;
  r.namespace = namespace;
  meta(r).name = name;
  meta(r).namespace = namespace;
};

const mixedRequests: Array<[string, AdmissionRequest]> = [
  ['allowed configmap', configMap()],
  ['denied by a validation with reason Forbidden and a messageExpression', configMap(named('forbidden'))],
  ['Warn and Audit binding with an audit annotation', configMap((r) => { (r.object as { data: Record<string, string> }).data = { a: '1', b: '2', c: '3' }; })],
  ['evaluation error under Fail and under Ignore', configMap((r) => { meta(r).labels = { mode: 'error' }; })],
  ['variables and messageExpression', configMap(named('vars-denied'))],
  ['two bindings, the Deny one matching the namespace', configMap(named('two', 'prod'))],
  ['two bindings, only the Warn one matching', configMap(named('two', 'dev'))],
  ['UPDATE of unlocked data', capture('003-validate-UPDATE-ConfigMap-cm1')],
  ['UPDATE changing locked data', (() => {
    const r = capture('003-validate-UPDATE-ConfigMap-cm1');
    (r.oldObject as { data: Record<string, string> }).data = { locked: 'true' };
    return r;
  })()],
  ['DELETE (no object)', capture('012-validate-DELETE-ConfigMap-cm-prot')],
  ['an undecidable namespace selector (answered without the pool)', configMap((r) => {
    r.kind = { group: '', version: 'v1', kind: 'Secret' };
    r.resource = { group: '', version: 'v1', resource: 'secrets' };
    r.requestKind = r.kind;
    r.requestResource = r.resource;
  })],
  ['an excluded resource', configMap((r) => {
    r.kind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' };
    r.resource = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' };
    r.requestKind = r.kind;
    r.requestResource = r.resource;
    r.namespace = '';
  })],
  // kube-apiserver never sends admission-configuration objects to webhooks registered through the API: no built-in guard runs here
  ['a ValidatingAdmissionPolicy named *.static.k8s.io', configMap((r) => {
    r.kind = { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' };
    r.resource = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' };
    r.requestKind = r.kind;
    r.requestResource = r.resource;
    r.name = 'x.static.k8s.io';
    r.namespace = '';
    r.object = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'x.static.k8s.io' } };
  })],
  // the apiserver converted an autoscaling/v1 request to v2 for the daemon: one policy is invoked with v1 (the
  // object converted back), the other with v2 (the object as sent)
  ['matchPolicy Equivalent: two policies invoked with two versions', configMap((r) => {
    r.kind = { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' };
    r.resource = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
    r.requestKind = { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' };
    r.requestResource = { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' };
    r.object = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'wh' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      status: { desiredReplicas: 0, currentMetrics: null },
    };
  })],
];

const pod = (mutate: (p: { metadata: Record<string, unknown>; spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } }) => void): AdmissionRequest => {
  const r = benchPod();
  mutate(r.object as never);
  return r;
};

const benchRequests: Array<[string, AdmissionRequest]> = [
  ['the 4 KB benchmark pod, allowed by 20 policies', benchPod()],
  ['a privileged container', pod((p) => { p.spec.containers[0]!.securityContext = { privileged: true }; })],
  ['several violations: the first policy in name order decides', pod((p) => {
    p.spec.hostNetwork = true;
    p.spec.containers[1]!.image = 'docker.io/library/nginx:latest';
    delete p.metadata.labels;
  })],
  ['a pod in kube-system (bindings exclude it)', pod((p) => { p.metadata.namespace = 'kube-system'; p.spec.hostPID = true; })],
];
benchRequests[3]![1].namespace = 'kube-system';

const devRequests: Array<[string, AdmissionRequest]> = [
  ['a real pod CREATE', capture('007-validate-CREATE-Pod-p1')],
  ['a real pod UPDATE', capture('019-validate-UPDATE-Pod-p3')],
  ['a protected configmap DELETE', (() => {
    const r = capture('012-validate-DELETE-ConfigMap-cm-prot');
    (r.oldObject as { metadata: { labels: Record<string, string> } }).metadata.labels = { protected: 'true' };
    return r;
  })()],
];

interface Answer {
  response: unknown;
  checks: Array<Omit<PolicyCheckRecord, 'seconds'>>;
}

async function differential(t: TestContext, snapshot: Snapshot, requests: Array<[string, AdmissionRequest]>, options: { threads?: number } = {}): Promise<void> {
  const { pool } = await startPool(t, { snapshot, threads: options.threads ?? 2 });
  const answer = async (usePool: boolean, request: AdmissionRequest): Promise<Answer> => {
    const checks: PolicyCheckRecord[] = [];
    const handler = createValidateHandler({
      snapshot: () => snapshot,
      pool: usePool ? pool : undefined,
      policyMetrics: { recordChecks: (c) => checks.push(...c) },
    });
    const response = await handler.handle(review(request), context());
    return { response, checks: checks.map(({ seconds: _seconds, ...rest }) => rest) };
  };
  for (const [name, request] of requests) {
    const inline = await answer(false, request);
    const pooled = await answer(true, request);
    assert.deepEqual(pooled, inline, name);
  }
  // and all at once, interleaved on the workers
  const inline = await Promise.all(requests.map(([, r]) => answer(false, r)));
  const pooled = await Promise.all(requests.map(([, r]) => answer(true, r)));
  assert.deepEqual(pooled, inline);
}

test('mixed policies: the pool answers as the main thread does', async (t) => {
  const snapshot = snapshotOf(t, mixedPolicies);
  await differential(t, snapshot, mixedRequests);
});

test('the mixed corpus covers what it claims (main-thread answers)', async (t) => {
  const snapshot = snapshotOf(t, mixedPolicies);
  const { pool } = await startPool(t, { snapshot });
  const checks: PolicyCheckRecord[] = [];
  const handler = createValidateHandler({ snapshot: () => snapshot, pool, policyMetrics: { recordChecks: (c) => checks.push(...c) } });
  const byName = new Map(mixedRequests);
  const ask = (name: string): Promise<{ allowed?: boolean; status?: { code?: number; message?: string }; warnings?: string[]; auditAnnotations?: Record<string, string> }> =>
    handler.handle(review(byName.get(name)!), context()) as never;

  assert.equal((await ask('allowed configmap')).allowed, true);
  const forbidden = await ask('denied by a validation with reason Forbidden and a messageExpression');
  assert.equal(forbidden.status?.code, 403);
  assert.match(forbidden.status?.message ?? '', /ValidatingAdmissionPolicy 'p-deny\.static\.k8s\.io' with binding 'deny-b\.static\.k8s\.io' denied request: name forbidden is forbidden$/);
  const warned = await ask('Warn and Audit binding with an audit annotation');
  assert.equal(warned.allowed, true);
  assert.deepEqual(warned.warnings, ["Validation failed for ValidatingAdmissionPolicy 'p-warn.static.k8s.io' with binding 'warn-b.static.k8s.io': too much data"]);
  assert.equal(warned.auditAnnotations?.['p-warn.static.k8s.io_data-keys'], '3');
  assert.ok(warned.auditAnnotations?.['validation.policy.admission.k8s.io_validation_failure']);
  const errored = await ask('evaluation error under Fail and under Ignore');
  assert.equal(errored.allowed, false);
  assert.match(errored.status?.message ?? '', /'p-fail\.static\.k8s\.io' with binding 'fail-b\.static\.k8s\.io' denied request: expression 'object\.data\.missing == 'x'' resulted in error/);
  checks.length = 0;
  await ask('evaluation error under Fail and under Ignore');
  assert.deepEqual(checks.filter((c) => c.policy === 'p-ignore.static.k8s.io').map((c) => [c.errorType, c.enforcementAction]), [['invalid_error', 'allow']]);
  assert.match((await ask('two bindings, the Deny one matching the namespace')).status?.message ?? '', /binding 'two-deny-prod\.static\.k8s\.io'/);
  const warnOnly = await ask('two bindings, only the Warn one matching');
  assert.equal(warnOnly.allowed, true);
  assert.equal(warnOnly.warnings?.length, 1);
  assert.equal((await ask('UPDATE changing locked data')).allowed, false);
  assert.match((await ask('an undecidable namespace selector (answered without the pool)')).status?.message ?? '', /failed to configure binding/);
  assert.equal((await ask('an excluded resource')).allowed, true);
  assert.equal((await ask('a ValidatingAdmissionPolicy named *.static.k8s.io')).allowed, true);
  checks.length = 0;
  assert.equal((await ask('matchPolicy Equivalent: two policies invoked with two versions')).allowed, true);
  assert.deepEqual(checks.map((c) => [c.policy, c.enforcementAction]).sort(), [['p-v1.static.k8s.io', 'allow'], ['p-v2.static.k8s.io', 'allow']]);
});

test('the 20 benchmark policies on the 4 KB pod: the pool answers as the main thread does', async (t) => {
  await differential(t, snapshotDir(`${packageRoot}/testdata/bench/policies`), benchRequests);
});

test('the --dev example policies on real apiserver captures: the pool answers as the main thread does', async (t) => {
  await differential(t, snapshotDir(`${packageRoot}/testdata/dev/policies`), devRequests, { threads: 1 });
});
