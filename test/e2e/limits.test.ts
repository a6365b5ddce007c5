// The slow-client and size limits as `serve` flags, end to end: the real executable started with
// --max-request-body-bytes, --request-header-timeout and --request-body-timeout enforces each over real TLS; --help
// shows them with their defaults; contradictory values are usage errors before anything starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { tempDir, vap, vapb, writeFiles } from '../helpers/fs.js';
import { post, spawnDaemon, stop, waitFor } from './helpers.js';

const review = (data = ''): string => JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u-1', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' }, operation: 'CREATE',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: data } },
  },
});

/** Opens a TLS connection, lets `feed` write to it, and resolves with what came back and when it closed. */
async function slowClient(url: string, ca: string, feed: (write: (s: string) => void) => NodeJS.Timeout | undefined): Promise<{ received: string; closedAfter: number }> {
  const u = new URL(url);
  const socket = connect({ host: u.hostname, port: Number(u.port), ca });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', reject);
  });
  const opened = Date.now();
  let received = '';
  socket.on('data', (d: Buffer) => { received += d.toString(); });
  socket.on('error', () => undefined);
  const timer = feed((s) => { if (!socket.destroyed) socket.write(s); });
  const closedAfter = await new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  clearInterval(timer);
  return { received, closedAfter };
}

test('serve --max-request-body-bytes, --request-header-timeout and --request-body-timeout take effect', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-limits-');
  t.after(cleanup);
  writeFiles(dir, {
    'policies/p.yaml': `${vap('p.static.k8s.io')}---\n${vapb('p-binding.static.k8s.io', 'p.static.k8s.io')}`,
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const limit = 4096;
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0', '--secure-port', '0',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, '--workers', '0',
    '--max-request-body-bytes', String(limit), '--request-header-timeout', '300ms', '--request-body-timeout=700ms']);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  // a body within the limit is served, one byte over it is 413 with a message naming the limit
  const fits = review('x'.repeat(limit - Buffer.byteLength(review())));
  assert.equal(Buffer.byteLength(fits), limit);
  assert.equal((await post(`${url}/validate`, certs.caPEM, fits)).status, 200);
  const over = await post(`${url}/validate`, certs.caPEM, fits.replace('"x":"', '"x":"x'));
  assert.equal(over.status, 413);
  const status = JSON.parse(over.body) as { reason: string; message: string; code: number };
  assert.deepEqual([status.code, status.reason, status.message], [413, 'RequestEntityTooLarge', `request body exceeds the limit of ${limit} bytes`]);

  // headers trickled: cut at 300ms (plus Node's check interval), with a 408 naming the flag
  const text = 'POST /validate HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(5_000);
  let i = 0;
  const headers = await slowClient(url, certs.caPEM, (write) => setInterval(() => write(text[i++]!), 20));
  assert.match(headers.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.ok(headers.received.endsWith('408 Request Timeout: the request headers did not arrive within 300ms (--request-header-timeout)'), headers.received);
  assert.ok(headers.closedAfter >= 300 && headers.closedAfter < 1_500, `headers: closed after ${headers.closedAfter}ms`);

  // body trickled after complete headers: cut at 700ms, with a 408 naming the flag
  const payload = review();
  let j = 0;
  const body = await slowClient(url, certs.caPEM, (write) => {
    write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`);
    return setInterval(() => { if (j < payload.length - 1) write(payload[j++]!); }, 20);
  });
  assert.match(body.received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  assert.ok(body.received.endsWith('408 Request Timeout: the request did not arrive in full within 700ms of its first byte (--request-body-timeout)'), body.received);
  assert.ok(body.closedAfter >= 700 && body.closedAfter < 2_500, `body: closed after ${body.closedAfter}ms`);

  assert.equal((await post(`${url}/validate`, certs.caPEM, review())).status, 200);
  assert.equal(await stop(daemon), 0);
});

test('serve --help shows the limits with their defaults', async () => {
  const { code, out } = await run(['serve', '--help']);
  assert.equal(code, 0);
  assert.match(out, /--max-request-body-bytes int +.* \(default 7340032\)\n/);
  // pflag's FlagUsages: only string defaults are quoted; a duration in Go's time.Duration String()
  assert.match(out, /--request-header-timeout duration +.* \(default 3s\)\n/);
  assert.match(out, /--request-body-timeout duration +.* \(default 4s\)\n/);
  assert.match(out, /--reload-interval duration +.* \(default 1m0s\)\n/);
});

test('contradictory limits are usage errors, before anything starts', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--request-header-timeout', '5s', '--request-body-timeout', '2s'], /--request-header-timeout \(5s\) must not exceed --request-body-timeout \(2s\)/],
    [['--max-request-body-bytes', '0'], /invalid --max-request-body-bytes 0: must be greater than zero/],
    [['--request-header-timeout', '0'], /invalid --request-header-timeout 0s: must be at least 1ms/],
    [['--request-body-timeout', 'soon'], /invalid argument "soon" for "--request-body-timeout" flag: time: invalid duration "soon"/],
  ];
  for (const [flags, message] of cases) {
    const { code, err } = await run(['serve', '--dev', '--secure-port', '0', '--health-bind-address', '127.0.0.1:0', ...flags]);
    assert.equal(code, 2, `${flags.join(' ')}: ${err}`);
    assert.match(err, message);
  }
});
