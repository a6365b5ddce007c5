// The validating fan-out against real local HTTPS webhooks: what is sent (one serialization, negotiated version,
// ?timeout=), allow/deny with the webhook's Status, every failure kind under Fail and under Ignore (decision,
// message, metrics), the first denial cancelling the rest, and expiry at the request deadline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createCertificateAuthority } from '../../../lib/server/dev-cert.js';
import { WebhookClients } from '../../../lib/webhook/client.js';
import { AuthenticationInfoResolver, kubeconfigFrom } from '../../../lib/webhook/kubeconfig.js';
import { createWebhookMetrics } from '../../../lib/webhook/metrics.js';
import { isVerdict, ValidatingWebhookDispatcher } from '../../../lib/admission/webhooks/validating.js';
import type { WebhookVerdict } from '../../../lib/admission/webhooks/validating.js';
import { memoryLogger } from '../../server/helpers.js';
import {
  allow, configMapRequest, configurationYAML, contextFor, deny, loadWebhooks, metricValue, newRegistry, startWebhookServer, testPKI, waitUntil,
} from '../../webhook/helpers.js';
import type { Handler, HookSpec, Received, WebhookServer } from '../../webhook/helpers.js';

const servers: WebhookServer[] = [];
const clientsToClose: WebhookClients[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(clientsToClose.map((c) => c.close()));
});

async function server(handler: Handler): Promise<WebhookServer> {
  const { serving } = await testPKI();
  const s = await startWebhookServer({ serving }, handler);
  servers.push(s);
  return s;
}

function setup(hooks: readonly HookSpec[], excludeWebhookVirtualResources = true) {
  const registry = newRegistry();
  const clients = new WebhookClients();
  clientsToClose.push(clients);
  const { logger, lines } = memoryLogger(4);
  const dispatcher = new ValidatingWebhookDispatcher({ clients, metrics: createWebhookMetrics(registry), logger, excludeWebhookVirtualResources });
  const webhooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', hooks) });
  return { registry, dispatcher, webhooks, lines };
}

async function run(s: ReturnType<typeof setup>, request = configMapRequest(), ctx = contextFor()): Promise<WebhookVerdict> {
  const d = s.dispatcher.dispatch(s.webhooks, request, ctx);
  return isVerdict(d) ? d : d.done;
}

let caPEM: string;
before(async () => {
  caPEM = (await testPKI()).ca.certPEM;
});

describe('calling validating webhooks', () => {
  test('every webhook gets the same bytes, the negotiated version and ?timeout=; all allowing admits', async () => {
    const a = await server((r) => allow(r, { warnings: ['from a'], auditAnnotations: { k: 'va' } }));
    const b = await server((r) => allow(r, { warnings: ['from b'] }));
    const c = await server((r) => allow(r));
    const s = setup([
      { name: 'a.example.static.k8s.io', url: `${a.url}/validate`, caPEM },
      { name: 'b.example.static.k8s.io', url: `${b.url}/validate`, caPEM, timeoutSeconds: 3 },
      { name: 'c.example.static.k8s.io', url: `${c.url}/validate`, caPEM, admissionReviewVersions: ['v1beta1', 'v1'] },
    ]);
    const request = configMapRequest();
    const verdict = await run(s, request);
    assert.equal(verdict.allowed, true);
    assert.deepEqual([...verdict.warnings].sort(), ['from a', 'from b']);
    assert.deepEqual(verdict.auditAnnotations, { 'a.example.static.k8s.io/k': 'va' });
    const [ra, rb, rc] = [a.received[0]!, b.received[0]!, c.received[0]!];
    assert.ok(ra.raw.equals(rb.raw), 'a and b got the same bytes');
    assert.equal(ra.path, '/validate?timeout=10s');
    assert.equal(rb.path, '/validate?timeout=3s');
    assert.equal(ra.headers['user-agent'], 'kube-apiserver-admission');
    assert.equal(ra.headers['content-type'], 'application/json');
    assert.equal(ra.review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(rc.review.apiVersion, 'admission.k8s.io/v1beta1');
    assert.notEqual(ra.review.request.uid, request.uid, 'a uid of its own, as upstream');
    const sent = ra.review.request;
    assert.deepEqual(sent.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(sent.requestResource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(sent.object, request.object);
    assert.equal(sent.oldObject, null);
    assert.equal(sent.dryRun, false);
    assert.deepEqual(sent.userInfo, { username: 'alice', groups: ['system:authenticated'] });
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name: 'a.example.static.k8s.io', type: 'validating', operation: 'CREATE', code: '200', rejected: 'false' }), 1);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_admission_duration_seconds_count', { name: 'b.example.static.k8s.io', type: 'validating', operation: 'CREATE', rejected: 'false' }), 1);
  });

  test('a denial carries the webhook Status, prefixed as upstream; counted as no_error with its code', async () => {
    const a = await server((r) => deny(r, { code: 403, message: 'no configmaps today', reason: 'Forbidden' }, { auditAnnotations: { why: 'policy' } }));
    const s = setup([{ name: 'deny.example.static.k8s.io', url: `${a.url}/validate`, caPEM }]);
    const verdict = await run(s);
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.status?.message, 'admission webhook "deny.example.static.k8s.io" denied the request: no configmaps today');
    assert.equal(verdict.status?.code, 403);
    assert.equal(verdict.status?.reason, 'Forbidden');
    assert.deepEqual(verdict.auditAnnotations, { 'deny.example.static.k8s.io/why': 'policy' });
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_rejection_count', { name: 'deny.example.static.k8s.io', type: 'validating', operation: 'CREATE', error_type: 'no_error', rejection_code: '403' }), 1);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name: 'deny.example.static.k8s.io', code: '403', rejected: 'true' }), 1);
  });

  test('a denial without a Status is "without explanation", code 400', async () => {
    const a = await server((r) => ({ json: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: r.review.request.uid, allowed: false } } }));
    const s = setup([{ name: 'terse.example.static.k8s.io', url: `${a.url}/validate`, caPEM }]);
    const verdict = await run(s);
    assert.equal(verdict.status?.message, 'admission webhook "terse.example.static.k8s.io" denied the request without explanation');
    assert.equal(verdict.status?.code, 400);
  });

  test('the first denial decides: the calls still running are cancelled', async () => {
    const slow = await server(() => 'hang');
    const fast = await server((r) => deny(r, { message: 'nope' }));
    const s = setup([
      { name: 'slow.example.static.k8s.io', url: `${slow.url}/validate`, caPEM },
      { name: 'fast.example.static.k8s.io', url: `${fast.url}/validate`, caPEM },
    ]);
    const t0 = Date.now();
    const verdict = await run(s);
    assert.ok(Date.now() - t0 < 5_000, 'decided without waiting for the hanging webhook');
    assert.equal(verdict.allowed, false);
    assert.match(verdict.status?.message ?? '', /^admission webhook "fast\.example\.static\.k8s\.io" denied the request: nope$/);
    await waitUntil('the hanging call to be cancelled', () => slow.abandoned.length === 1);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name: 'slow.example.static.k8s.io' }), undefined);
  });

  test('webhooks whose rules do not match are not called', async () => {
    const a = await server((r) => allow(r));
    const s = setup([{ name: 'secrets.example.static.k8s.io', url: `${a.url}/validate`, caPEM, resources: ['secrets'] }]);
    assert.equal((await run(s)).allowed, true);
    assert.equal(a.received.length, 0);
  });

  test('the review resources (tokenreviews, …) are excluded while ExcludeAdmissionWebhookVirtualResources is on', async () => {
    const a = await server((r) => deny(r, { message: 'no reviews' }));
    const hook: HookSpec = { name: 'reviews.example.static.k8s.io', url: `${a.url}/validate`, caPEM, apiGroups: ['authentication.k8s.io'], operations: ['CREATE'], resources: ['tokenreviews'] };
    const gvk = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' };
    const gvr = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' };
    const tokenReview = (): ReturnType<typeof configMapRequest> => configMapRequest({
      kind: gvk, resource: gvr, requestKind: gvk, requestResource: gvr, namespace: '', name: '',
      object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {} },
    });
    assert.equal((await run(setup([hook], true), tokenReview())).allowed, true);
    assert.equal(a.received.length, 0);
    const off = await run(setup([hook], false), tokenReview());
    assert.equal(off.allowed, false, 'called when the gate is off');
    assert.equal(a.received.length, 1);
  });
});

/** Each failure kind: the webhook to configure, the error text after `failed calling webhook "<name>": `, and the code. */
interface FailureCase {
  readonly kind: string;
  readonly make: () => Promise<{ url: string; caPEM?: string; timeoutSeconds?: number; handler?: Handler }>;
  readonly reason: RegExp;
  readonly code: number;
}

const silentServers: Server[] = [];
const silentSockets: Socket[] = [];
after(async () => {
  for (const socket of silentSockets) socket.destroy();
  await Promise.all(silentServers.map((s) => new Promise<void>((r) => s.close(() => r()))));
});

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const failureCases: FailureCase[] = [
  {
    kind: 'connection refused',
    make: async () => ({ url: `https://127.0.0.1:${await closedPort()}/validate` }),
    reason: /^failed to call webhook: Post "https:\/\/127\.0\.0\.1:(\d+)\/validate\?timeout=10s": dial tcp 127\.0\.0\.1:\1: connect: connection refused$/,
    code: 400,
  },
  {
    kind: 'TLS failure (server certificate from another CA)',
    make: async () => {
      const other = await createCertificateAuthority('some other CA');
      const s = await server((r) => allow(r));
      return { url: `${s.url}/validate`, caPEM: other.certPEM };
    },
    reason: /^failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    code: 400,
  },
  {
    kind: 'timeout',
    make: async () => ({ url: `${(await server(() => 'hang')).url}/validate`, timeoutSeconds: 1 }),
    reason: /^failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=1s": context deadline exceeded$/,
    code: 400,
  },
  {
    kind: 'timeout while the TLS handshake never completes',
    make: async () => {
      // accepts TCP connections and never answers the ClientHello
      const silent = createServer((socket) => { silentSockets.push(socket); });
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
      silentServers.push(silent);
      return { url: `https://127.0.0.1:${(silent.address() as AddressInfo).port}/validate`, timeoutSeconds: 1 };
    },
    reason: /^failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=1s": context deadline exceeded$/,
    code: 400,
  },
  {
    kind: 'non-200',
    make: async () => ({ url: `${(await server(() => ({ text: 'boom', status: 500 }))).url}/validate` }),
    reason: /^failed to call webhook: an error on the server \("boom"\) has prevented the request from succeeding$/,
    code: 500,
  },
  {
    kind: 'malformed body',
    make: async () => ({ url: `${(await server(() => ({ text: '{"apiVersion": nope', status: 200, contentType: 'application/json' }))).url}/validate` }),
    reason: /^failed to call webhook: couldn't get version\/kind; json parse error: /,
    code: 400,
  },
  {
    kind: 'wrong uid',
    make: async () => ({ url: `${(await server((r) => ({ json: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: `${r.review.request.uid}-x`, allowed: true } } }))).url}/validate` }),
    reason: /^received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "[0-9a-f-]+-x"$/,
    code: 503,
  },
  {
    kind: 'forbidden patch',
    make: async () => ({ url: `${(await server((r) => allow(r, { patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') }))).url}/validate` }),
    reason: /^received invalid webhook response: validating webhook may not return response\.patch$/,
    code: 503,
  },
  {
    kind: 'response.status.code a string',
    make: async () => ({ url: `${(await server((r) => deny(r, { code: '403', message: 'no' }))).url}/validate` }),
    reason: /^failed to call webhook: json: cannot unmarshal string into Go struct field Status\.response\.status\.code of type int32$/,
    code: 400,
  },
  {
    kind: 'response.status.code fractional',
    make: async () => ({ url: `${(await server((r) => deny(r, { code: 403.5, message: 'no' }))).url}/validate` }),
    reason: /^failed to call webhook: json: cannot unmarshal number 403\.5 into Go struct field Status\.response\.status\.code of type int32$/,
    code: 400,
  },
  {
    kind: 'response.status.message an object',
    make: async () => ({ url: `${(await server((r) => deny(r, { code: 403, message: {} }))).url}/validate` }),
    reason: /^failed to call webhook: json: cannot unmarshal object into Go struct field Status\.response\.status\.message of type string$/,
    code: 400,
  },
  {
    kind: 'response.status.details.causes[].reason a number',
    make: async () => ({ url: `${(await server((r) => deny(r, { code: 403, details: { causes: [{ reason: 1 }] } }))).url}/validate` }),
    reason: /^failed to call webhook: json: cannot unmarshal number into Go struct field StatusCause\.response\.status\.details\.causes\.reason of type v1\.CauseType$/,
    code: 400,
  },
];

for (const fc of failureCases) {
  describe(`failure: ${fc.kind}`, () => {
    test('failurePolicy Fail denies with upstream\'s message, counted as calling_webhook_error', async () => {
      const made = await fc.make();
      const name = 'fail.example.static.k8s.io';
      const s = setup([{ name, url: made.url, caPEM: made.caPEM ?? caPEM, failurePolicy: 'Fail', ...(made.timeoutSeconds ? { timeoutSeconds: made.timeoutSeconds } : {}) }]);
      const verdict = await run(s);
      assert.equal(verdict.allowed, false);
      assert.equal(verdict.status?.code, 500);
      assert.equal(verdict.status?.reason, 'InternalError');
      const prefix = `Internal error occurred: failed calling webhook "${name}": `;
      const message = verdict.status?.message ?? '';
      assert.ok(message.startsWith(prefix), message);
      assert.match(message.slice(prefix.length), fc.reason);
      assert.equal(verdict.status?.details?.causes?.[0]?.message, message.slice('Internal error occurred: '.length));
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_rejection_count', { name, type: 'validating', operation: 'CREATE', error_type: 'calling_webhook_error', rejection_code: String(fc.code) }), 1);
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name, type: 'validating', operation: 'CREATE', code: String(fc.code), rejected: 'true' }), 1);
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_fail_open_count', { name }), undefined);
      assert.ok(s.lines.some((l) => l.includes('Failed calling webhook, failing closed') && l.includes(name) && l.includes('failureKind')), s.lines.join('\n'));
    });

    test('failurePolicy Ignore admits, counts the fail-open and annotates it', async () => {
      const made = await fc.make();
      const name = 'ignore.example.static.k8s.io';
      const s = setup([{ name, url: made.url, caPEM: made.caPEM ?? caPEM, failurePolicy: 'Ignore', ...(made.timeoutSeconds ? { timeoutSeconds: made.timeoutSeconds } : {}) }]);
      const verdict = await run(s);
      assert.equal(verdict.allowed, true);
      assert.equal(verdict.status, undefined);
      assert.deepEqual(verdict.auditAnnotations, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_0': name });
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_fail_open_count', { name, type: 'validating' }), 1);
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name, type: 'validating', operation: 'CREATE', code: String(fc.code), rejected: 'false' }), 1);
      assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_rejection_count', { name }), undefined);
      assert.ok(s.lines.some((l) => l.includes('Failed calling webhook, failing open') && l.includes(name)), s.lines.join('\n'));
    });
  });
}

describe('a REST client that cannot be built (kubeconfig credentials)', () => {
  test('is NewBadRequest("error getting REST client") in the metrics; Fail still denies with an internal error', async () => {
    const a = await server((r: Received) => allow(r));
    const registry = newRegistry();
    const resolver = new AuthenticationInfoResolver(kubeconfigFrom({ users: [{ name: '*', user: { exec: { command: 'helper' } } }] }, '/'));
    const clients = new WebhookClients({ resolver });
    clientsToClose.push(clients);
    const dispatcher = new ValidatingWebhookDispatcher({ clients, metrics: createWebhookMetrics(registry), logger: memoryLogger().logger, excludeWebhookVirtualResources: true });
    const name = 'creds.example.static.k8s.io';
    const webhooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', [{ name, url: `${a.url}/validate`, caPEM }]) });
    const d = dispatcher.dispatch(webhooks, configMapRequest(), contextFor());
    const verdict = isVerdict(d) ? d : await d.done;
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.status?.code, 500);
    assert.equal(verdict.status?.message, `Internal error occurred: failed calling webhook "${name}": could not get REST client: kubeconfig user "*": exec credential plugins are not supported by static-admissiond`);
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_rejection_count', { name, type: 'validating', error_type: 'calling_webhook_error', rejection_code: '400' }), 1);
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_request_total', { name, type: 'validating', code: '400', rejected: 'true' }), 1);
    assert.equal(a.received.length, 0);
  });
});

describe('the request deadline', () => {
  test('expire() answers at once, the calls still running counted as timed out under their failure policy', async () => {
    const hang = await server(() => 'hang');
    const s = setup([
      { name: 'ignored.example.static.k8s.io', url: `${hang.url}/validate`, caPEM, failurePolicy: 'Ignore' },
      { name: 'failing.example.static.k8s.io', url: `${hang.url}/validate`, caPEM, failurePolicy: 'Fail' },
    ]);
    const d = s.dispatcher.dispatch(s.webhooks, configMapRequest(), contextFor(10_000));
    assert.ok(!isVerdict(d));
    await waitUntil('both calls to arrive', () => hang.received.length === 2);
    const verdict = d.expire();
    assert.equal(verdict.allowed, false);
    assert.match(verdict.status?.message ?? '', /^Internal error occurred: failed calling webhook "failing\.example\.static\.k8s\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=10s": context deadline exceeded$/);
    assert.equal(await d.done, verdict);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_fail_open_count', { name: 'ignored.example.static.k8s.io' }), 1);
    // the validating dispatcher's NewBadRequest("error calling webhook"), as for any call that timed out
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_rejection_count', { name: 'failing.example.static.k8s.io', error_type: 'calling_webhook_error', rejection_code: '400' }), 1);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_request_total', { name: 'ignored.example.static.k8s.io', code: '400', rejected: 'false' }), 1);
    await waitUntil('the calls to be cancelled', () => hang.abandoned.length === 2);
  });

  test('a call is cut off at the request deadline when that comes before timeoutSeconds', async () => {
    const hang = await server(() => 'hang-after-headers');
    const s = setup([{ name: 'late.example.static.k8s.io', url: `${hang.url}/validate`, caPEM, failurePolicy: 'Fail', timeoutSeconds: 30 }]);
    const t0 = Date.now();
    const verdict = await run(s, configMapRequest(), contextFor(400));
    assert.ok(Date.now() - t0 < 3_000);
    assert.match(verdict.status?.message ?? '', /\?timeout=1s": context deadline exceeded$/);
  });
});

describe('matching', () => {
  test('matchConditions false skips the webhook; an error denies under Fail and skips under Ignore', async () => {
    const a = await server((r: Received) => allow(r));
    const cond = (expr: string): string => `  matchConditions:\n  - name: c\n    expression: ${JSON.stringify(expr)}\n`;
    const skip = setup([{ name: 'skip.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: cond("object.metadata.name == 'other'") }]);
    assert.equal((await run(skip)).allowed, true);
    assert.equal(a.received.length, 0);
    const failing = setup([{ name: 'err.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: cond("object.data.missing == 'x'") }]);
    const verdict = await run(failing);
    assert.equal(verdict.allowed, false);
    assert.match(verdict.status?.message ?? '', /^configmaps "cm" is forbidden: expression 'object\.data\.missing == 'x'' resulted in error: /);
    const ignoring = setup([{ name: 'err.example.static.k8s.io', url: `${a.url}/validate`, caPEM, failurePolicy: 'Ignore', extra: cond("object.data.missing == 'x'") }]);
    assert.equal((await run(ignoring)).allowed, true);
    assert.equal(a.received.length, 0);
    const calling = setup([{ name: 'yes.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: cond("request.operation == 'CREATE' && object.metadata.name == 'cm'") }]);
    assert.equal((await run(calling)).allowed, true);
    assert.equal(a.received.length, 1);

    // ShouldCallHook's match-condition metrics: an exclusion when a condition is false (or, under Ignore, errs),
    // an evaluation error per failing condition
    const labels = (name: string) => ({ name, kind: 'webhook', type: 'validating', operation: 'CREATE' });
    assert.equal(await metricValue(skip.registry, 'apiserver_admission_match_condition_exclusions_total', labels('skip.example.static.k8s.io')), 1);
    assert.equal(await metricValue(failing.registry, 'apiserver_admission_match_condition_evaluation_errors_total', labels('err.example.static.k8s.io')), 1);
    assert.equal(await metricValue(failing.registry, 'apiserver_admission_match_condition_exclusions_total', labels('err.example.static.k8s.io')), undefined);
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_match_condition_evaluation_errors_total', labels('err.example.static.k8s.io')), 1);
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_match_condition_exclusions_total', labels('err.example.static.k8s.io')), 1);
    assert.equal(await metricValue(calling.registry, 'apiserver_admission_match_condition_exclusions_total', labels('yes.example.static.k8s.io')), undefined);
  });

  // webhook/matchconditions/matcher.go Match: all conditions of a webhook share celconfig.RuntimeCELCostBudgetMatchConditions
  // (2,500,000, pkg/apis/cel/config.go); every condition is evaluated (plugin/cel/condition.go ForInput) and an
  // overrun (activation.go Evaluate) is the filter's error: Fail → generic/webhook.go ShouldCallHook's NewForbidden
  // with it, Ignore → no match, counted as an exclusion and not as an evaluation error.
  test('matchConditions share a cost budget of 2,500,000: an overrun denies under Fail, skips under Ignore', async () => {
    const a = await server((r: Received) => allow(r));
    // 450 × 450 iterations: about 814,000 each in this runtime's cost model
    const heavy = 'object.data.xs.all(x, object.data.xs.all(y, y >= 0))';
    const conditions = (n: number, first = ''): string =>
      `  matchConditions:\n${first}${Array.from({ length: n }, (_, i) => `  - name: c${i}\n    expression: ${JSON.stringify(heavy)}\n`).join('')}`;
    const request = () => configMapRequest({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { xs: Array.from({ length: 450 }, (_, i) => i) } } });
    const within = setup([{ name: 'in.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: conditions(3) }]);
    assert.equal((await run(within, request())).allowed, true);
    assert.equal(a.received.length, 1, '3 × ~0.8M fit: the webhook is called');

    const over = setup([{ name: 'over.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: conditions(4) }]);
    const verdict = await run(over, request());
    assert.equal(verdict.allowed, false);
    assert.deepEqual(verdict.status, {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "cm" is forbidden: validation failed due to running out of cost budget, no further validation rules will be run',
      reason: 'Forbidden',
      details: { name: 'cm', group: '', kind: 'configmaps' },
      code: 403,
    });
    // every condition is evaluated: the overrun wins over a false condition before it
    const falseFirst = setup([{ name: 'ff.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: conditions(4, '  - {name: first, expression: "false"}\n') }]);
    assert.match((await run(falseFirst, request())).status?.message ?? '', /is forbidden: validation failed due to running out of cost budget/);

    const ignoring = setup([{ name: 'over.example.static.k8s.io', url: `${a.url}/validate`, caPEM, failurePolicy: 'Ignore', extra: conditions(4) }]);
    assert.equal((await run(ignoring, request())).allowed, true);
    assert.equal(a.received.length, 1, 'neither overrun called the webhook');
    const labels = { name: 'over.example.static.k8s.io', kind: 'webhook', type: 'validating', operation: 'CREATE' };
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_match_condition_exclusions_total', labels), 1);
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_match_condition_evaluation_errors_total', labels), undefined);
    assert.equal(await metricValue(over.registry, 'apiserver_admission_match_condition_evaluation_errors_total', labels), undefined);
  });

  test('a matchConditions error names the request as it came (attr.GetName()): none for a generateName CREATE', async () => {
    const a = await server((r: Received) => allow(r));
    const cond = '  matchConditions:\n  - name: c\n    expression: "object.data.missing == \'x\'"\n';
    const s = setup([{ name: 'err.example.static.k8s.io', url: `${a.url}/validate`, caPEM, extra: cond }]);
    const request = configMapRequest({ name: '', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-', namespace: 'default' }, data: {} } });
    const verdict = await run(s, request);
    assert.equal(verdict.allowed, false);
    assert.match(verdict.status?.message ?? '', /^configmaps is forbidden: expression 'object\.data\.missing == 'x'' resulted in error: /);
    assert.equal(verdict.status?.code, 403);
    assert.equal(verdict.status?.reason, 'Forbidden');
    assert.deepEqual(verdict.status?.details, { group: '', kind: 'configmaps' });
    assert.equal(a.received.length, 0);
  });

  test('a namespaceSelector on labels the daemon cannot see follows the failure policy', async () => {
    const a = await server((r: Received) => allow(r));
    const selector = '  namespaceSelector:\n    matchLabels:\n      team: payments\n';
    const failing = setup([{ name: 'ns.example.static.k8s.io', url: `${a.url}/validate`, caPEM, failurePolicy: 'Fail', extra: selector }]);
    const verdict = await run(failing);
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.status?.code, 500);
    assert.match(verdict.status?.message ?? '', /^Internal error occurred: namespace selector of webhook "ns\.example\.static\.k8s\.io" requires namespace labels other than kubernetes\.io\/metadata\.name \("team"\), which static-admissiond cannot see$/);
    const ignoring = setup([{ name: 'ns.example.static.k8s.io', url: `${a.url}/validate`, caPEM, failurePolicy: 'Ignore', extra: selector }]);
    assert.equal((await run(ignoring)).allowed, true);
    assert.equal(a.received.length, 0);
  });

  test('dry run: webhooks with sideEffects None are called', async () => {
    const a = await server((r: Received) => allow(r));
    const s = setup([{ name: 'dry.example.static.k8s.io', url: `${a.url}/validate`, caPEM }]);
    assert.equal((await run(s, configMapRequest({ dryRun: true }))).allowed, true);
    assert.equal(a.received[0]?.review.request.dryRun, true);
  });
});
