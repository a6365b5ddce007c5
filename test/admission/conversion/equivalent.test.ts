// matchPolicy Equivalent end to end: a policy or webhook whose rules name only another version of the request's
// resource is invoked with that version and the object converted to it (request.kind/resource the matched version,
// requestKind/requestResource what was sent), as upstream's NewVersionedAttributes/ConvertToGVK do
// (staging/src/k8s.io/apiserver/pkg/admission/conversion.go; policy/generic/policy_dispatcher.go,
// policy/validating/dispatcher.go, policy/mutating/dispatcher.go dispatchInvocations, webhook/generic/webhook.go
// ShouldCallHook and webhook/mutating/dispatcher.go). Without a conversion the failure policy decides.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { validateRequest } from '../../../lib/admission/validate.js';
import type { PolicyHook } from '../../../lib/manifest/compile.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { isVerdict, ValidatingWebhookDispatcher } from '../../../lib/admission/webhooks/validating.js';
import { MutatingWebhookPlugin } from '../../../lib/admission/webhooks/mutating.js';
import { WebhookClients } from '../../../lib/webhook/client.js';
import { createWebhookMetrics } from '../../../lib/webhook/metrics.js';
import { mutateRequest } from '../../../lib/admission/mutate.js';
import { memoryLogger } from '../../server/helpers.js';
import { tempDir, writeFiles } from '../../helpers/fs.js';
import { loadHooks, mutate } from '../mutating/helpers.js';
import { allow, configurationYAML, contextFor, loadWebhooks, newRegistry, patchReply, startWebhookServer, testPKI } from '../../webhook/helpers.js';
import type { Received, WebhookServer } from '../../webhook/helpers.js';

const v2HPA = {
  apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', creationTimestamp: null },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
    ],
  },
  status: { desiredReplicas: 0, currentMetrics: null },
};
const v1HPA = {
  apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', creationTimestamp: null },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
  status: { currentReplicas: 0, desiredReplicas: 0 },
};
const coreEvent = {
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default', creationTimestamp: null },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'started', source: { component: 'kubelet' },
  firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '',
};

function requestOf(object: Record<string, unknown>, resource: string, operation = 'CREATE'): AdmissionRequest {
  const [group, version] = String(object['apiVersion']).includes('/') ? String(object['apiVersion']).split('/') as [string, string] : ['', String(object['apiVersion'])];
  const kind = { group, version, kind: String(object['kind']) };
  const gvr = { group, version, resource };
  return {
    uid: 'u-1', kind, resource: gvr, requestKind: { ...kind }, requestResource: { ...gvr }, name: 'web', namespace: 'default', operation,
    userInfo: { username: 'admin' }, object, oldObject: null, dryRun: false,
  } as AdmissionRequest;
}

function loadPolicies(yaml: string): readonly PolicyHook[] {
  const { dir, cleanup } = tempDir('sad-equivalent-');
  try {
    writeFiles(dir, { 'p.yaml': yaml });
    const snapshot = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    return snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
  } finally {
    cleanup();
  }
}

/** A ValidatingAdmissionPolicy that always denies, saying what it saw. */
function seeingPolicy(group: string, version: string, resource: string, seen: string, failurePolicy = 'Fail'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p.static.k8s.io}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: ["${group}"], apiVersions: [${version}], operations: [CREATE], resources: [${resource}]}
  validations:
  - expression: "false"
    messageExpression: ${JSON.stringify(seen)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b.static.k8s.io}
spec: {policyName: p.static.k8s.io, validationActions: [Deny]}
`;
}

const kinds = "request.kind.group + '/' + request.kind.version + ' ' + request.resource.version + ' sent ' + request.requestKind.version + ' ' + request.requestResource.version";
// admission.NewForbidden names the resource as the request named it
const denied = (message: string, resource = 'horizontalpodautoscalers.autoscaling "web"'): string =>
  `${resource} is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: ${message}`;

describe('validating policies', () => {
  it('rules naming only autoscaling/v1 get a v2 HPA converted to v1', async () => {
    const seen = `${kinds} + ' ' + object.apiVersion + ' cpu=' + string(object.spec.targetCPUUtilizationPercentage) + ' ' + object.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'] + ' ' + string(has(object.spec.metrics))`;
    const { response } = await validateRequest({ request: requestOf(v2HPA, 'horizontalpodautoscalers'), policies: loadPolicies(seeingPolicy('autoscaling', 'v1', 'horizontalpodautoscalers', seen)) });
    assert.equal(response.status?.message, denied('autoscaling/v1 v1 sent v2 v2 autoscaling/v1 cpu=60 [{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}] false'));
  });

  it('and vice versa: a v1 HPA converted to v2 for rules naming only autoscaling/v2', async () => {
    const seen = `${kinds} + ' ' + object.apiVersion + ' ' + object.spec.metrics[0].resource.target.type + '=' + string(object.spec.metrics[0].resource.target.averageUtilization) + ' ' + string(has(object.spec.targetCPUUtilizationPercentage))`;
    const { response } = await validateRequest({ request: requestOf(v1HPA, 'horizontalpodautoscalers'), policies: loadPolicies(seeingPolicy('autoscaling', 'v2', 'horizontalpodautoscalers', seen)) });
    assert.equal(response.status?.message, denied('autoscaling/v2 v2 sent v1 v1 autoscaling/v2 Utilization=60 false'));
  });

  it('Events: core/v1 converted to events.k8s.io/v1, and back', async () => {
    const toEvents = `${kinds} + ' ' + object.apiVersion + ' note=' + object.note + ' regarding=' + object.regarding.name + ' source=' + object.deprecatedSource.component`;
    const a = await validateRequest({ request: requestOf(coreEvent, 'events'), policies: loadPolicies(seeingPolicy('events.k8s.io', 'v1', 'events', toEvents)) });
    assert.equal(a.response.status?.message, denied('events.k8s.io/v1 v1 sent v1 v1 events.k8s.io/v1 note=started regarding=p source=kubelet', 'events "web"'));
    const eventsEvent = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'ctl', reportingInstance: 'i', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'p' }, note: 'n', type: 'Normal', deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null };
    const toCore = `${kinds} + ' ' + object.apiVersion + ' message=' + object.message + ' involved=' + object.involvedObject.name + ' component=' + object.reportingComponent`;
    const b = await validateRequest({ request: requestOf(eventsEvent, 'events'), policies: loadPolicies(seeingPolicy('', 'v1', 'events', toCore)) });
    assert.equal(b.response.status?.message, denied('/v1 v1 sent v1 v1 v1 message=n involved=p component=ctl', 'events.events.k8s.io "web"'));
  });

  it('a custom resource named only in another version: the failure policy decides, with the reason', async () => {
    const widget = { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } };
    const error = 'no conversion from example.com/v1beta1, Kind=Widget to another version of widgets.example.com: static-admissiond converts only HorizontalPodAutoscaler (autoscaling/v1, autoscaling/v2) and Event (v1, events.k8s.io/v1)';
    const fail = await validateRequest({ request: requestOf(widget, 'widgets'), policies: loadPolicies(seeingPolicy('example.com', 'v1', 'widgets', "'seen'")) });
    // upstream's wording for a policy configuration error (validating/dispatcher.go addConfigError)
    assert.equal(fail.response.allowed, false);
    assert.equal(fail.response.status?.message, `widgets.example.com "web" is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' denied request: failed to configure policy: ${error}`);
    const ignore = await validateRequest({ request: requestOf(widget, 'widgets'), policies: loadPolicies(seeingPolicy('example.com', 'v1', 'widgets', "'seen'", 'Ignore')) });
    assert.equal(ignore.response.allowed, true);
  });
});

function mutatingPolicy(name: string, version: string, patch: string, extra = '', failurePolicy = 'Fail'): string {
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}.static.k8s.io}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    matchPolicy: Equivalent
    resourceRules:
    - {apiGroups: [autoscaling], apiVersions: [${version}], operations: [CREATE], resources: [horizontalpodautoscalers]}
${extra}  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: ${JSON.stringify(patch)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}-b.static.k8s.io}
spec: {policyName: ${name}.static.k8s.io}
`;
}

describe('mutating policies', () => {
  // These two stated, before the oracle had kube-apiserver's equivalent-resource registry, that a policy matched
  // through another version patches the object. Upstream's dispatcher converts the patched object to the *request's*
  // version with the scheme, which has no v1 <-> v2 conversion, so the patch fails (k8s.io/apiserver
  // pkg/admission/plugin/policy/mutating/dispatcher.go dispatchOne; the oracle gives these texts).
  it('a policy on v1 matching a v2 request cannot mutate it: converting the patched v1 object to v2 fails', async () => {
    const hooks = loadHooks(mutatingPolicy('cpu', 'v1',
      "object.spec.targetCPUUtilizationPercentage == 60 && request.kind.version == 'v1' && request.requestKind.version == 'v2' ? [JSONPatch{op: 'replace', path: '/spec/targetCPUUtilizationPercentage', value: 75}] : []"));
    const { response, operations } = await mutate(hooks, requestOf(v2HPA, 'horizontalpodautoscalers'));
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "policy 'cpu.static.k8s.io' with binding 'cpu-b.static.k8s.io' denied request: converting (v1.HorizontalPodAutoscaler) to (v2.HorizontalPodAutoscaler): unknown conversion");
    assert.deepEqual(operations, []);
  });

  it('an Ignore policy on v1 leaves a v2 request unpatched, its patch lost', async () => {
    const hooks = loadHooks(mutatingPolicy('cpu', 'v1', "[JSONPatch{op: 'replace', path: '/spec/targetCPUUtilizationPercentage', value: 75}]", '', 'Ignore'));
    const { response, operations } = await mutate(hooks, requestOf(v2HPA, 'horizontalpodautoscalers'));
    assert.equal(response.allowed, true);
    assert.deepEqual(operations, []);
  });

  it('a pass mixing kinds keeps what the last kind invoked holds, as upstream\'s dispatchInvocations does', async () => {
    const label = (k: string): string => `[JSONPatch{op: 'add', path: '/metadata/labels', value: {'${k}': 'yes'}}]`;
    // v1 fails (Ignore), then v2 patches: v2 was invoked last, its label is kept
    const v1First = await mutate(loadHooks(mutatingPolicy('a-v1', 'v1', label('v1'), '', 'Ignore') + mutatingPolicy('b-v2', 'v2', label('v2'))), requestOf(v2HPA, 'horizontalpodautoscalers'));
    assert.deepEqual((v1First.patched as { metadata: { labels?: unknown } }).metadata.labels, { v2: 'yes' });
    // v2 patches, then v1 is invoked and fails: the last versioned object is v1's, unchanged, so v2's label is lost
    const v2First = await mutate(loadHooks(mutatingPolicy('a-v2', 'v2', label('v2')) + mutatingPolicy('b-v1', 'v1', label('v1'), '', 'Ignore')), requestOf(v2HPA, 'horizontalpodautoscalers'));
    assert.equal(v2First.response.allowed, true);
    assert.equal((v2First.patched as { metadata: { labels?: unknown } }).metadata.labels, undefined);
  });
});

describe('webhooks', () => {
  let caPEM: string;
  const servers: WebhookServer[] = [];
  const clients: WebhookClients[] = [];
  before(async () => {
    caPEM = (await testPKI()).ca.certPEM;
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(clients.map((c) => c.close()));
  });
  const start = async (handler: (r: Received) => ReturnType<typeof allow>): Promise<WebhookServer> => {
    const s = await startWebhookServer({ serving: (await testPKI()).serving }, handler);
    servers.push(s);
    return s;
  };
  const newClients = (): WebhookClients => {
    const c = new WebhookClients();
    clients.push(c);
    return c;
  };

  it('a validating webhook on v1 (matchPolicy defaults to Equivalent) receives the v2 request converted to v1', async () => {
    const s = await start((r) => allow(r));
    const hooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [{ name: 'hpa.example.static.k8s.io', url: `${s.url}/validate`, caPEM, apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'] }]) });
    const dispatcher = new ValidatingWebhookDispatcher({ clients: newClients(), metrics: createWebhookMetrics(newRegistry()), logger: memoryLogger().logger, excludeWebhookVirtualResources: true });
    const d = dispatcher.dispatch(hooks, requestOf(v2HPA, 'horizontalpodautoscalers'), contextFor());
    assert.equal((isVerdict(d) ? d : await d.done).allowed, true);
    const request = s.received[0]!.review.request;
    assert.deepEqual([request.kind, request.resource, request.requestKind, request.requestResource], [
      { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' },
      { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' },
      { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
      { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' },
    ]);
    const object = request.object as typeof v1HPA & { metadata: { annotations: Record<string, string> } };
    assert.equal(object.apiVersion, 'autoscaling/v1');
    assert.equal(object.spec.targetCPUUtilizationPercentage, 60);
    assert.equal(object.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'], '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]');
  });

  it('a mutating webhook\'s v1 patch is applied to the v1 object and the answer patches the v2 object sent', async () => {
    const s = await start((r) => patchReply(r, [{ op: 'replace', path: '/spec/maxReplicas', value: 9 }]));
    const hooks = loadWebhooks('MutatingAdmissionWebhook', { 'm.yaml': configurationYAML('MutatingWebhookConfiguration', 'm.static.k8s.io', [{ name: 'hpa.example.static.k8s.io', url: `${s.url}/mutate`, caPEM, apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'] }]) });
    const plugin = new MutatingWebhookPlugin({ hooks: () => hooks, clients: newClients(), metrics: createWebhookMetrics(newRegistry()), logger: memoryLogger().logger, excludeWebhookVirtualResources: true });
    const request = requestOf(v2HPA, 'horizontalpodautoscalers');
    const { response, object } = await mutateRequest(request, [plugin], contextFor());
    assert.equal(s.received[0]!.review.request.kind!.version, 'v1');
    assert.equal(response.allowed, true);
    assert.equal((object as { apiVersion: string }).apiVersion, 'autoscaling/v2');
    assert.equal((object as typeof v2HPA).spec.maxReplicas, 9);
    const operations = JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8')) as Array<{ path: string }>;
    assert.ok(operations.some((o) => o.path === '/spec/maxReplicas'));
  });

  it('no conversion for a custom resource: Fail denies without calling, Ignore skips the webhook', async () => {
    const s = await start((r) => allow(r));
    const widget = requestOf({ apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } }, 'widgets');
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      const hooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [{ name: 'w.example.static.k8s.io', url: `${s.url}/validate`, caPEM, apiGroups: ['example.com'], resources: ['widgets'], failurePolicy }]) });
      const dispatcher = new ValidatingWebhookDispatcher({ clients: newClients(), metrics: createWebhookMetrics(newRegistry()), logger: memoryLogger().logger, excludeWebhookVirtualResources: true });
      const d = dispatcher.dispatch(hooks, widget, contextFor());
      const verdict = isVerdict(d) ? d : await d.done;
      if (failurePolicy === 'Fail') {
        assert.equal(verdict.allowed, false);
        assert.equal(verdict.status?.message, 'Internal error occurred: no conversion from example.com/v1beta1, Kind=Widget to another version of widgets.example.com: static-admissiond converts only HorizontalPodAutoscaler (autoscaling/v1, autoscaling/v2) and Event (v1, events.k8s.io/v1)');
      } else {
        assert.equal(verdict.allowed, true);
      }
    }
    assert.equal(s.received.length, 0, 'never called');
  });
});
