// A policy worker's heap limit (--worker-max-old-space-size), end to end: a request whose evaluation needs more heap
// than a worker may take ends that worker, not the daemon. The request is answered by its policy's failure policy
// (Fail: a denial saying why), the failure is counted with reason "memory", Piscina starts another worker, and the
// pool serves large requests again once it has compiled the policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { tempDir, vap, vapb, writeFiles } from '../helpers/fs.js';
import { post, spawnDaemon, stop, waitFor } from './helpers.js';

/** A ConfigMap review whose object carries `objects` empty objects (3 bytes each in the body) and `padding` bytes of data. */
const review = (uid: string, objects: number, padding = 0): string => JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid, kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: 'y'.repeat(padding) }, items: Array.from({ length: objects }, () => ({})) },
  },
});

function metrics(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${url}/metrics`, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

test('a worker reaching --worker-max-old-space-size: its request is answered by the failure policy, the daemon and the pool go on', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-worker-memory-');
  t.after(cleanup);
  writeFiles(dir, {
    'policies/p.yaml': `${vap('p.static.k8s.io', '  failurePolicy: Fail\n')}---\n${vapb('p-binding.static.k8s.io', 'p.static.k8s.io')}`,
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0', '--secure-port', '0',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, '--workers', '1', '--worker-max-old-space-size', '32']);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
  const health = await waitFor('the health listener', () => /"Serving health and metrics" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  // 2 million empty objects in a 6 MB body: JSON.parse alone builds more than 32 MiB of them (a body over 64 KiB is
  // never evaluated on the main thread, so it goes to a worker)
  // ?timeout=30s (kube's largest): on a loaded machine parsing 6 MB may take longer than the default 10 s deadline
  const answer = await post(`${url}/validate?timeout=30s`, certs.caPEM, review('u-big', 2_000_000));
  assert.equal(answer.status, 200, answer.body);
  const response = (JSON.parse(answer.body) as { response: { uid: string; allowed: boolean; status?: { code: number; message: string } } }).response;
  assert.equal(response.uid, 'u-big');
  assert.equal(response.allowed, false);
  assert.equal(response.status?.code, 422);
  assert.equal(response.status?.message,
    "configmaps \"cm\" is forbidden: ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: policy worker failed while evaluating the request: Worker terminated due to reaching memory limit: JS heap out of memory");
  assert.match(await metrics(health), /^static_admissiond_policy_worker_failures_total\{reason="memory"\} 1$/m);

  // Piscina replaced the worker: once the new one has compiled the policies, a large request that fits is evaluated
  // in the pool again (a body over 64 KiB; until then such requests are evaluated on the main thread)
  const tasks = (m: string): number => Number(/^static_admissiond_policy_pool_tasks_total (\d+)$/m.exec(m)?.[1] ?? NaN);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const before = tasks(await metrics(health));
    const fits = await post(`${url}/validate`, certs.caPEM, review('u-fits', 0, 100_000));
    assert.equal(fits.status, 200, fits.body);
    assert.equal((JSON.parse(fits.body) as { response: { allowed: boolean } }).response.allowed, true, fits.body);
    if (tasks(await metrics(health)) > before) break;
    assert.ok(Date.now() < deadline, `the pool did not take requests again:\n${daemon.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(daemon.child.exitCode, null);
  assert.equal(await stop(daemon), 0);
});

test('serve --worker-max-old-space-size: shown with its default; below 32 MiB a usage error', async () => {
  const { code, out } = await run(['serve', '--help']);
  assert.equal(code, 0);
  assert.match(out, /--worker-max-old-space-size int +.* \(default 512\)\n/);
  const low = await run(['serve', '--dev', '--secure-port', '0', '--health-bind-address', '127.0.0.1:0', '--worker-max-old-space-size', '16']);
  assert.equal(low.code, 2, low.err);
  assert.match(low.err, /invalid --worker-max-old-space-size 16: must be at least 32 \(MiB\)/);
});
