// `authorizer` in the other places upstream declares it, against a real local SubjectAccessReview server:
// MutatingAdmissionPolicy (policy/mutating/compilation.go: HasAuthorizer; dispatcher.go: one CachingAuthorizer per
// Dispatch), webhook matchConditions (webhook/accessors.go: HasAuthorizer; generic/webhook.go passes the apiserver's
// authorizer itself, uncached), and ValidatingAdmissionPolicy evaluated in the worker pool (the review crosses the
// thread boundary as raw JSON bytes: absent `request` fields stay absent).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { createValidateHandler } from '../../lib/review/validate-handler.js';
import { isVerdict, ValidatingWebhookDispatcher } from '../../lib/admission/webhooks/validating.js';
import { WebhookClients } from '../../lib/webhook/client.js';
import { createWebhookMetrics } from '../../lib/webhook/metrics.js';
import { memoryLogger } from '../server/helpers.js';
import { allow, configMapRequest, configurationYAML, contextFor, loadWebhooks, metricValue, newRegistry, startWebhookServer, testPKI } from '../webhook/helpers.js';
import type { WebhookServer } from '../webhook/helpers.js';
import { useSARServer } from './authorization-helpers.js';
import { loadHooks, mutate, policy as mutatingPolicy } from './mutating/helpers.js';
import { binding, capture, context, policy as poolPolicy, review, snapshotOf, startPool } from './pool/helpers.js';
import { createMutatingPolicyPlugin } from '../../lib/admission/mutating/plugin.js';
import { mutateRequest } from '../../lib/admission/mutate.js';

const server = useSARServer();

describe('MutatingAdmissionPolicy', () => {
  test('matchConditions and mutations check; each distinct check is reviewed once per pass', async () => {
    const hooks = loadHooks(mutatingPolicy('authz', [{
      applyConfiguration: `Object{metadata: Object.metadata{labels: {"can-get": string(authorizer.requestResource.check("get").allowed()), "can-delete": string(authorizer.requestResource.check("delete").allowed())}}}`,
    }], { resources: 'configmaps', extra: '  matchConditions:\n  - {name: creator, expression: "authorizer.requestResource.check(\'get\').allowed()"}\n' }));
    server.sar.received.length = 0;
    const plugin = createMutatingPolicyPlugin({ hooks: () => hooks, authorization: server.client });
    const request = capture('002-validate-CREATE-ConfigMap-cm1');
    const { response, object } = await mutateRequest(request, [plugin], { deadline: Date.now() + 10_000, signal: new AbortController().signal });
    assert.equal(response.allowed, true);
    const labels = (object as { metadata: { labels: Record<string, string> } }).metadata.labels;
    assert.deepEqual([labels['can-get'], labels['can-delete']], ['true', 'false']);
    // first pass: the condition's `get` (the mutation's `get` is the cached one) and `delete`; the object changed, so
    // the chain runs a second pass, which evaluates the matchCondition again with a new cache (dispatcher.go makes
    // a CachingAuthorizer per Dispatch) and does not reinvoke the mutation (reinvocationPolicy Never)
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes?.verb), ['get', 'delete', 'get']);
    assert.deepEqual(server.sar.received[0]!.review.spec.resourceAttributes, { namespace: 'wh', verb: 'get', version: '*', resource: 'configmaps', name: 'cm1' });
  });

  test('without --authorization-kubeconfig a check fails the mutation under Fail', async () => {
    const hooks = loadHooks(mutatingPolicy('authz', [{ applyConfiguration: `Object{metadata: Object.metadata{labels: {"x": string(authorizer.requestResource.check("get").allowed())}}}` }], { resources: 'configmaps' }));
    const { response } = await mutate(hooks, capture('002-validate-CREATE-ConfigMap-cm1'));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? '', /resulted in error: authorizer checks are not available: static-admissiond was started without --authorization-kubeconfig$/);
  });
});

describe('webhook matchConditions', () => {
  let hookServer: WebhookServer;
  const clients = new WebhookClients();
  before(async () => {
    hookServer = await startWebhookServer({ serving: (await testPKI()).serving }, (r) => allow(r));
  });
  after(async () => {
    await hookServer.close();
    await clients.close();
  });

  test('a check decides whether the webhook is called; the same check in two conditions is reviewed twice (uncached)', async () => {
    const { ca } = await testPKI();
    const registry = newRegistry();
    const dispatcher = new ValidatingWebhookDispatcher({ clients, metrics: createWebhookMetrics(registry), logger: memoryLogger(4).logger, excludeWebhookVirtualResources: true, authorization: server.client });
    const hook = (name: string, verb: string) => ({
      name, url: `${hookServer.url}/validate`, caPEM: ca.certPEM,
      extra: `  matchConditions:\n  - {name: a, expression: "authorizer.requestResource.check('${verb}').allowed()"}\n  - {name: b, expression: "authorizer.requestResource.check('${verb}').allowed()"}\n`,
    });
    const webhooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [hook('called.example.com', 'get'), hook('skipped.example.com', 'delete')]) });
    server.sar.received.length = 0;
    hookServer.received.length = 0;
    const dispatch = dispatcher.dispatch(webhooks, configMapRequest(), contextFor());
    assert.ok(!isVerdict(dispatch), 'matching waits for the reviews');
    const verdict = await dispatch.done;
    assert.equal(verdict.allowed, true);
    assert.equal(hookServer.received.length, 1, 'only the webhook whose checks allowed is called');
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes?.verb), ['get', 'get', 'delete', 'delete']);
    assert.equal(await metricValue(registry, 'apiserver_admission_match_condition_exclusions_total', { name: 'skipped.example.com', kind: 'webhook', type: 'validating', operation: 'CREATE' }), 1);
  });
});

describe('ValidatingAdmissionPolicy in the worker pool', () => {
  test('a worker sends the reviews, caches them per request, and sees request as upstream builds it', async (t) => {
    const snapshot = snapshotOf(t, {
      'p.yaml': poolPolicy('authz.static.k8s.io', `  validations:
  - expression: "authorizer.requestResource.check('create').allowed() && authorizer.requestResource.check('create').reason() == 'RBAC: allowed'"
  - expression: "!has(request.subResource) && !has(request.userInfo.extra)"
    message: request fields
  - expression: "authorizer.group('').resource('secrets').namespace(request.namespace).check('delete').allowed()"
    message: may not delete secrets in the namespace
`) + binding('authz-b.static.k8s.io', 'authz.static.k8s.io'),
    });
    const { pool } = await startPool(t, { snapshot, authorizationKubeconfig: server.sar.kubeconfig });
    const handler = createValidateHandler({ snapshot: () => snapshot, pool });
    server.sar.received.length = 0;
    const request: AdmissionRequest = capture('002-validate-CREATE-ConfigMap-cm1');
    const response = await handler.handle(review(request), context());
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "configmaps \"cm1\" is forbidden: ValidatingAdmissionPolicy 'authz.static.k8s.io' with binding 'authz-b.static.k8s.io' denied request: may not delete secrets in the namespace");
    assert.deepEqual(server.sar.received.map((r) => [r.review.spec.user, r.review.spec.resourceAttributes]), [
      ['admin', { namespace: 'wh', verb: 'create', version: '*', resource: 'configmaps', name: 'cm1' }],
      ['admin', { namespace: 'wh', verb: 'delete', version: '*', resource: 'secrets' }],
    ]);
    assert.equal(server.sar.received[0]!.headers.authorization, 'Bearer sar-token');

    // the same answers on the main thread (--workers 0)
    server.sar.received.length = 0;
    const inline = createValidateHandler({ snapshot: () => snapshot, pool: undefined, authorization: server.client });
    assert.deepEqual(await inline.handle(review(request), context()), response);
    assert.equal(server.sar.received.length, 2);
  });
});
