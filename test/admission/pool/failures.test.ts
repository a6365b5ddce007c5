// A worker that dies or overruns: the request is answered by the failure policy of the affected policies (Fail
// denies with a message saying what happened, Ignore admits), the failure is counted, and the pool replaces the
// worker and keeps serving — a replacement started after a reload evaluates the current snapshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Registry } from 'prom-client';
import type { AdmissionRequest, AdmissionResponse } from '../../../lib/api/admission.js';
import { testHookExit, testHookHang } from '../../../lib/admission/pool/protocol.js';
import { createValidateHandler } from '../../../lib/review/validate-handler.js';
import { createLogger } from '../../../lib/log/logger.js';
import { createCertificateAuthority } from '../../../lib/server/dev-cert.js';
import { startAdmissionServer } from '../../../lib/server/server.js';
import { tempDir } from '../../helpers/fs.js';
import { binding, capture, context, metricValue, policy, review, snapshotOf, startPool } from './helpers.js';

const failPolicy = policy('p-fail.static.k8s.io', `  validations:\n  - expression: "object.metadata.name != 'denied'"\n`, 'configmaps', '  failurePolicy: Fail\n') +
  binding('b-fail.static.k8s.io', 'p-fail.static.k8s.io');
const ignorePolicy = policy('p-ignore.static.k8s.io', `  validations:\n  - expression: "object.metadata.name != 'b-denied'"\n`, 'configmaps', '  failurePolicy: Ignore\n') +
  binding('b-ignore.static.k8s.io', 'p-ignore.static.k8s.io');

function configMap(name: string, uid = `uid-${name}`): AdmissionRequest {
  const r = capture('002-validate-CREATE-ConfigMap-cm1');
  r.uid = uid;
  r.name = name;
  (r.object as { metadata: { name: string } }).metadata.name = name;
  return r;
}

async function waitFor(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(10);
  }
}

test('a worker exiting mid-request: Fail denies, Ignore admits, the failure is counted, the pool keeps serving', async (t) => {
  const fail = snapshotOf(t, { 'p.yaml': failPolicy });
  const ignore = snapshotOf(t, { 'p.yaml': ignorePolicy });
  const { pool, registry } = await startPool(t, { snapshot: fail, threads: 1, testHooks: true });
  let current = fail;
  const handler = createValidateHandler({ snapshot: () => current, pool });
  const firstThread = pool.piscina.threads[0]!.threadId;

  const crashed = await handler.handle(review(configMap('cm', testHookExit)), context());
  assert.equal(crashed.allowed, false);
  assert.equal(crashed.status?.code, 422);
  assert.equal(crashed.status?.message,
    "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'p-fail.static.k8s.io' with binding 'b-fail.static.k8s.io' denied request: policy worker failed while evaluating the request: worker exited with code: 3");
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total', { reason: 'crash' }), 1);

  // the pool replaced the worker and answers normally again
  assert.equal((await handler.handle(review(configMap('fine')), context())).allowed, true);
  assert.equal((await handler.handle(review(configMap('denied')), context())).allowed, false);
  assert.equal(pool.threads, 1);
  assert.notEqual(pool.piscina.threads[0]!.threadId, firstThread, 'a new worker thread');

  // after a reload to an Ignore policy, a crash admits; the replacement worker evaluates the new snapshot
  pool.publish(ignore);
  current = ignore;
  // (until the workers have compiled a reloaded snapshot, its requests are evaluated on the main thread)
  await pool.ready();
  const admitted = await handler.handle(review(configMap('cm', testHookExit)), context());
  assert.deepEqual(admitted, { uid: testHookExit, allowed: true });
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total', { reason: 'crash' }), 2);
  const denied = await handler.handle(review(configMap('b-denied')), context());
  assert.match(denied.status?.message ?? '', /ValidatingAdmissionPolicy 'p-ignore\.static\.k8s\.io' with binding 'b-ignore\.static\.k8s\.io' denied request/,
    'the replacement worker, started after the reload, evaluates the new snapshot');
  assert.equal((await handler.handle(review(configMap('denied')), context())).allowed, true, 'the old snapshot\'s rule is gone');
});

test('a worker terminated under load: every request is answered, the pool recovers', async (t) => {
  const snapshot = snapshotOf(t, { 'p.yaml': failPolicy });
  const { pool, registry } = await startPool(t, { snapshot, threads: 2 });
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });
  const answers: Array<Promise<AdmissionResponse>> = [];
  for (let i = 0; i < 200; i++) answers.push(handler.handle(review(configMap(`cm-${i}`)), context()));
  void pool.piscina.threads[0]!.terminate();
  const settled = await Promise.all(answers);
  const failed = settled.filter((r) => r.allowed !== true);
  for (const r of failed) assert.match(r.status?.message ?? '', /denied request: policy worker failed while evaluating the request: worker exited/);
  assert.equal(settled.length, 200);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total', { reason: 'crash' }) ?? 0, failed.length);
  await waitFor('two workers again', () => pool.threads === 2);
  await pool.ready();
  assert.equal((await handler.handle(review(configMap('after')), context())).allowed, true);
  assert.equal((await handler.handle(review(configMap('denied')), context())).allowed, false);
});

let tls: { dir: string; cleanup: () => void; certFile: string; keyFile: string; ca: string };
before(async () => {
  const { dir, cleanup } = tempDir('sad-pool-tls-');
  const ca = await createCertificateAuthority('pool test CA');
  const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1'] });
  writeFileSync(join(dir, 'tls.crt'), serving.certPEM);
  writeFileSync(join(dir, 'tls.key'), serving.keyPEM);
  tls = { dir, cleanup, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), ca: ca.certPEM };
});
after(() => tls.cleanup());

function post(url: string, body: Buffer): Promise<{ status: number; body: { response: AdmissionResponse } }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca: tls.ca, agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response: AdmissionResponse } }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a worker overrunning the request deadline: answered by the failure policy at the deadline, the worker replaced', async (t) => {
  const snapshot = snapshotOf(t, { 'p.yaml': failPolicy });
  const registry = new Registry();
  const { pool } = await startPool(t, { snapshot, threads: 1, testHooks: true, registry });
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });
  const server = await startAdmissionServer({
    bindAddress: '127.0.0.1', port: 0, tls: { certFile: tls.certFile, keyFile: tls.keyFile },
    routes: { '/validate': (r, ctx) => handler.handle(r, ctx) },
    onTimeout: (r, info) => handler.onTimeout(r, info),
    logger: createLogger({ write: () => {} }), registry,
  });
  t.after(() => server.close());
  const hungThread = pool.piscina.threads[0]!.threadId;

  const started = Date.now();
  const hung = await post(`${server.url}/validate?timeout=1s`, review(configMap('cm', testHookHang)).body as Buffer);
  const took = Date.now() - started;
  assert.equal(hung.status, 200);
  assert.equal(hung.body.response.allowed, false);
  assert.match(hung.body.response.status?.message ?? '',
    /ValidatingAdmissionPolicy 'p-fail\.static\.k8s\.io' with binding 'b-fail\.static\.k8s\.io' denied request: policy evaluation did not finish within the 1000ms request deadline$/);
  assert.ok(took >= 900 && took < 5_000, `answered at the deadline (${took} ms)`);

  // the stuck worker is terminated and replaced; the pool serves again
  await waitFor('a replacement worker', () => pool.threads === 1 && pool.piscina.threads[0]!.threadId !== hungThread);
  const fine = await post(`${server.url}/validate?timeout=5s`, review(configMap('fine')).body as Buffer);
  assert.equal(fine.body.response.allowed, true);
  const denied = await post(`${server.url}/validate?timeout=5s`, review(configMap('denied')).body as Buffer);
  assert.equal(denied.body.response.allowed, false);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total', { reason: 'timeout' }), 1);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total', { reason: 'overrun' }), 1);
});
