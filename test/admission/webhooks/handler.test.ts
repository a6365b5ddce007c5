// POST /validate with static webhooks behind the real admission listener (in process, real TLS on loopback): a
// webhook hanging after its headers is cut off at its timeoutSeconds while other requests are served; the request
// deadline (?timeout=) is answered by onTimeout with the failure policy of the calls still running; policies that
// deny mean no webhook is called; the policies' and the webhooks' warnings are merged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { createValidateHandler } from '../../../lib/review/validate-handler.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import type { Snapshot } from '../../../lib/reload/snapshot.js';
import { startAdmissionServer } from '../../../lib/server/server.js';
import type { AdmissionServer } from '../../../lib/server/server.js';
import { WebhookClients } from '../../../lib/webhook/client.js';
import { createWebhookMetrics } from '../../../lib/webhook/metrics.js';
import { ValidatingWebhookDispatcher } from '../../../lib/admission/webhooks/validating.js';
import { vap, vapb, writeFiles } from '../../helpers/fs.js';
import { call, memoryLogger, tempDir } from '../../server/helpers.js';
import { allow, configMapRequest, configurationYAML, loadWebhooks, metricValue, newRegistry, startWebhookServer, testPKI } from '../../webhook/helpers.js';
import type { HookSpec, WebhookServer } from '../../webhook/helpers.js';

const tmp = tempDir('sad-webhook-handler-');
let certFile: string;
let keyFile: string;
let caPEM: string;
const servers: WebhookServer[] = [];
const admissions: AdmissionServer[] = [];
const clients: WebhookClients[] = [];

before(async () => {
  const { ca, serving } = await testPKI();
  caPEM = ca.certPEM;
  certFile = join(tmp.dir, 'tls.crt');
  keyFile = join(tmp.dir, 'tls.key');
  writeFileSync(certFile, serving.certPEM);
  writeFileSync(keyFile, serving.keyPEM);
});

after(async () => {
  await Promise.all(admissions.map((a) => a.close()));
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(clients.map((c) => c.close()));
  tmp.cleanup();
});

async function daemon(hooks: readonly HookSpec[], policies?: Snapshot) {
  const registry = newRegistry();
  const c = new WebhookClients();
  clients.push(c);
  const webhooks = loadWebhooks('ValidatingAdmissionWebhook', { 'v.yaml': configurationYAML('ValidatingWebhookConfiguration', 'v.static.k8s.io', hooks) });
  const handler = createValidateHandler({
    snapshot: () => policies,
    pool: undefined,
    webhooks: {
      hooks: () => webhooks,
      dispatcher: new ValidatingWebhookDispatcher({ clients: c, metrics: createWebhookMetrics(registry), logger: memoryLogger().logger, excludeWebhookVirtualResources: true }),
    },
  });
  const server = await startAdmissionServer({
    bindAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile }, logger: memoryLogger().logger, registry,
    routes: { '/validate': (review, ctx) => handler.handle(review, ctx) },
    onTimeout: (review, info) => handler.onTimeout(review, info),
  });
  admissions.push(server);
  return { server, registry };
}

async function review(server: AdmissionServer, request: AdmissionRequest, timeout = '10s') {
  const reply = await call(server.url, { path: `/validate?timeout=${timeout}`, ca: caPEM, body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }) });
  assert.equal(reply.status, 200, reply.body);
  return (JSON.parse(reply.body) as { response: { uid: string; allowed: boolean; status?: { message?: string; code?: number }; warnings?: string[]; auditAnnotations?: Record<string, string> } }).response;
}

describe('/validate with static validating webhooks', () => {
  test('a webhook hanging after its headers is cut off at timeoutSeconds while other requests are served', async () => {
    const { serving } = await testPKI();
    const hanging = await startWebhookServer({ serving }, () => 'hang-after-headers');
    const fast = await startWebhookServer({ serving }, (r) => allow(r, { warnings: ['fast says hi'] }));
    servers.push(hanging, fast);
    const { server, registry } = await daemon([
      { name: 'hang.example.static.k8s.io', url: `${hanging.url}/validate`, caPEM, timeoutSeconds: 1, resources: ['configmaps'] },
      { name: 'fast.example.static.k8s.io', url: `${fast.url}/validate`, caPEM, resources: ['secrets'] },
    ]);
    const secret = (): AdmissionRequest => configMapRequest({
      kind: { group: '', version: 'v1', kind: 'Secret' }, resource: { group: '', version: 'v1', resource: 'secrets' },
      requestKind: { group: '', version: 'v1', kind: 'Secret' }, requestResource: { group: '', version: 'v1', resource: 'secrets' },
      object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm' } },
    });
    const t0 = Date.now();
    const stuck = review(server, configMapRequest());
    let stuckDone = false;
    void stuck.then(() => { stuckDone = true; });
    // while the configmap request waits on the hanging webhook, secrets keep being answered
    for (let i = 0; i < 10; i++) {
      const r = await review(server, secret());
      assert.equal(r.allowed, true);
      assert.deepEqual(r.warnings, ['fast says hi']);
    }
    const servedOthersIn = Date.now() - t0;
    assert.equal(stuckDone, false, `the hanging request was answered before the others (${servedOthersIn} ms)`);
    const answer = await stuck;
    const elapsed = Date.now() - t0;
    assert.ok(elapsed >= 900 && elapsed < 5_000, `cut off after ${elapsed} ms`);
    assert.equal(answer.allowed, false);
    assert.match(answer.status?.message ?? '', /^Internal error occurred: failed calling webhook "hang\.example\.static\.k8s\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=1s": context deadline exceeded$/);
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_rejection_count', { name: 'hang.example.static.k8s.io', error_type: 'calling_webhook_error', rejection_code: '400' }), 1);
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_request_total', { name: 'fast.example.static.k8s.io', code: '200', rejected: 'false' }), 10);
  });

  test('at the request deadline the listener answers with the failure policy of the calls still running', async () => {
    const { serving } = await testPKI();
    const hanging = await startWebhookServer({ serving }, () => 'hang');
    servers.push(hanging);
    const failing = await daemon([{ name: 'slow.example.static.k8s.io', url: `${hanging.url}/validate`, caPEM, timeoutSeconds: 10, failurePolicy: 'Fail' }]);
    const t0 = Date.now();
    const denied = await review(failing.server, configMapRequest(), '1s');
    assert.ok(Date.now() - t0 < 3_000);
    assert.equal(denied.allowed, false);
    assert.match(denied.status?.message ?? '', /^Internal error occurred: failed calling webhook "slow\.example\.static\.k8s\.io": failed to call webhook: Post "[^"]+\?timeout=1s": context deadline exceeded$/);

    const ignoring = await daemon([{ name: 'slow.example.static.k8s.io', url: `${hanging.url}/validate`, caPEM, timeoutSeconds: 10, failurePolicy: 'Ignore' }]);
    const admitted = await review(ignoring.server, configMapRequest(), '1s');
    assert.equal(admitted.allowed, true);
    assert.deepEqual(admitted.auditAnnotations, { 'failed-open.validating.webhook.admission.k8s.io_round_0_index_0': 'slow.example.static.k8s.io' });
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_webhook_fail_open_count', { name: 'slow.example.static.k8s.io', type: 'validating' }), 1);
  });

  test('webhooks run only when the policies allowed; warnings and audit annotations are merged', async () => {
    const { serving } = await testPKI();
    const hook = await startWebhookServer({ serving }, (r) => allow(r, { warnings: ['webhook warning'], auditAnnotations: { seen: 'yes' } }));
    servers.push(hook);
    const dir = join(tmp.dir, 'policies');
    writeFiles(dir, {
      'p.yaml': `${vap('deny-x.static.k8s.io')}---\n${vapb('deny-x-binding.static.k8s.io', 'deny-x.static.k8s.io')}`,
    });
    const policies = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    const { server } = await daemon([{ name: 'merge.example.static.k8s.io', url: `${hook.url}/validate`, caPEM }], policies);
    const denied = await review(server, configMapRequest({ name: 'forbidden', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'forbidden', namespace: 'default' } } }));
    assert.equal(denied.allowed, false);
    assert.equal(hook.received.length, 0, 'no webhook call for a request the policies denied');
    const allowed = await review(server, configMapRequest());
    assert.equal(allowed.allowed, true);
    assert.deepEqual(allowed.warnings, ['webhook warning']);
    assert.deepEqual(allowed.auditAnnotations, { 'merge.example.static.k8s.io_seen': 'yes' });
  });
});
