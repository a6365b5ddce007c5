// TLS of the admission listener with real certificate files: the key must match the certificate before anything is
// served, the files are reloaded when replaced (new connections see the new pair), a broken or mismatched
// replacement keeps the last good pair, the expiry gauge follows the served certificate, TLS 1.2 is the floor, and
// --client-ca-file makes client certificates mandatory (and is reloaded too).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import type { CertificateAndKey, CertificateAuthority } from '../../lib/server/dev-cert.js';
import { startAdmissionServer } from '../../lib/server/server.js';
import type { AdmissionServer } from '../../lib/server/server.js';
import { loadTLSMaterial, TLSLoadError } from '../../lib/server/tls.js';
import { call, memoryLogger, newRegistry, replaceFile, sampleValue, servedFingerprint, tempDir, waitFor } from './helpers.js';

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u1', operation: 'CREATE', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' } },
});

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;
const notAfterSeconds = (pem: string): number => new Date(new X509Certificate(pem).validTo).getTime() / 1000;

let tmp: { dir: string; cleanup: () => void };
let ca: CertificateAuthority;
let pairA: CertificateAndKey;
let pairB: CertificateAndKey;
let pairC: CertificateAndKey;

before(async () => {
  tmp = tempDir('sad-tls-');
  ca = await createCertificateAuthority('tls test CA');
  // different lifetimes, so the expiry gauge tells them apart
  pairA = await ca.issue({ commonName: 'a', hosts: ['127.0.0.1'], validityDays: 10 });
  pairB = await ca.issue({ commonName: 'b', hosts: ['127.0.0.1'], validityDays: 20 });
  pairC = await ca.issue({ commonName: 'c', hosts: ['127.0.0.1'], validityDays: 30 });
});
after(() => tmp.cleanup());

function files(name: string, pair: CertificateAndKey): { certFile: string; keyFile: string } {
  const certFile = join(tmp.dir, `${name}.crt`);
  const keyFile = join(tmp.dir, `${name}.key`);
  writeFileSync(certFile, pair.certPEM);
  writeFileSync(keyFile, pair.keyPEM);
  return { certFile, keyFile };
}

describe('loading', () => {
  test('a key that does not belong to the certificate is refused before anything is served', async () => {
    const { certFile } = files('mismatch-a', pairA);
    const { keyFile } = files('mismatch-b', pairB);
    assert.throws(() => loadTLSMaterial({ certFile, keyFile }), (err: Error) => err instanceof TLSLoadError && /tls: private key does not match public key/.test(err.message) && err.message.includes(certFile));
    await assert.rejects(startAdmissionServer({
      bindAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile }, routes: {}, logger: memoryLogger().logger, registry: newRegistry(),
    }), /does not match/);
  });

  test('unreadable, empty and garbage files name the file and the fault', () => {
    const good = files('load-good', pairA);
    const garbage = join(tmp.dir, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate');
    assert.throws(() => loadTLSMaterial({ certFile: join(tmp.dir, 'missing.crt'), keyFile: good.keyFile }), /certificate file ".*missing\.crt": ENOENT/);
    assert.throws(() => loadTLSMaterial({ certFile: garbage, keyFile: good.keyFile }), /certificate file ".*garbage\.pem": no PEM certificate found/);
    assert.throws(() => loadTLSMaterial({ certFile: good.certFile, keyFile: garbage }), /private key file ".*garbage\.pem"/);
    assert.throws(() => loadTLSMaterial({ ...good, clientCAFile: garbage }), /client CA file ".*garbage\.pem": no PEM certificate found/);
    const m = loadTLSMaterial(good);
    assert.equal(m.fingerprint256, fingerprint(pairA.certPEM));
    assert.equal(m.notAfter.getTime() / 1000, notAfterSeconds(pairA.certPEM));
  });

  test('TLS 1.2 is the minimum', async () => {
    const server = await startAdmissionServer({
      bindAddress: '127.0.0.1', port: 0, tls: files('tls-min', pairA), routes: {}, logger: memoryLogger().logger, registry: newRegistry(),
    });
    try {
      const url = new URL(server.url);
      const attempt = (maxVersion: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'): Promise<string> => new Promise((resolve, reject) => {
        const s = connect({ host: url.hostname, port: Number(url.port), ca: ca.certPEM, minVersion: 'TLSv1', maxVersion }, () => {
          const v = s.getProtocol() ?? '';
          s.destroy();
          resolve(v);
        });
        s.on('error', reject);
      });
      assert.equal(await attempt('TLSv1.3'), 'TLSv1.3');
      assert.equal(await attempt('TLSv1.2'), 'TLSv1.2');
      await assert.rejects(attempt('TLSv1.1'));
    } finally {
      await server.close();
    }
  });
});

describe('reloading', () => {
  let server: AdmissionServer;
  let registry: ReturnType<typeof newRegistry>;
  let certFile: string;
  let keyFile: string;
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number | undefined> => sampleValue(await registry.metrics(), name, labels);
  const failures = (): Promise<number | undefined> => metric('static_admissiond_serving_certificate_reloads_total', { status: 'failure' });

  before(async () => {
    ({ certFile, keyFile } = files('serving', pairA));
    registry = newRegistry();
    server = await startAdmissionServer({
      bindAddress: '127.0.0.1',
      port: 0,
      tls: { certFile, keyFile, reloadIntervalMs: 25 },
      routes: { '/validate': async () => ({ allowed: true }) },
      logger: memoryLogger().logger,
      registry,
    });
  });
  after(() => server.close());

  test('serves the initial pair; the expiry gauge is its notAfter', async () => {
    assert.equal(await servedFingerprint(server.url), fingerprint(pairA.certPEM));
    assert.equal(await metric('static_admissiond_serving_certificate_expiration_timestamp_seconds'), notAfterSeconds(pairA.certPEM));
    assert.equal(await metric('static_admissiond_serving_certificate_reloads_total', { status: 'success' }), 1);
    assert.equal((await call(server.url, { ca: ca.certPEM, body: review })).status, 200);
  });

  test('a renewer replacing key then certificate: new connections see the new pair, the gauge follows', async () => {
    replaceFile(keyFile, pairB.keyPEM);
    // key B with certificate A is not a pair: wait until the poll has seen it, then check A is still served
    await waitFor('the half-written pair to be noticed', async () => (await failures()) === 1);
    assert.equal(await servedFingerprint(server.url), fingerprint(pairA.certPEM));
    replaceFile(certFile, pairB.certPEM);
    await waitFor('new connections to see certificate B', async () => (await servedFingerprint(server.url)) === fingerprint(pairB.certPEM));
    assert.equal(await metric('static_admissiond_serving_certificate_expiration_timestamp_seconds'), notAfterSeconds(pairB.certPEM));
    assert.equal((await call(server.url, { ca: ca.certPEM, body: review })).status, 200);
    assert.equal(server.certificate().fingerprint256, fingerprint(pairB.certPEM));
  });

  test('a mismatched pair keeps the last good one; completing the pair swaps', async () => {
    const before = (await failures())!;
    replaceFile(certFile, pairC.certPEM); // certificate C, key still B
    await waitFor('the mismatch to be counted', async () => (await failures()) === before + 1);
    assert.equal(await servedFingerprint(server.url), fingerprint(pairB.certPEM));
    assert.equal(await metric('static_admissiond_serving_certificate_expiration_timestamp_seconds'), notAfterSeconds(pairB.certPEM));
    replaceFile(keyFile, pairC.keyPEM);
    await waitFor('certificate C once its key arrived', async () => (await servedFingerprint(server.url)) === fingerprint(pairC.certPEM));
  });

  test('garbage, a truncated certificate or a missing file keeps the last good pair, counted once each', async () => {
    const faults: Array<[string, () => void]> = [
      ['garbage certificate', () => replaceFile(certFile, 'garbage')],
      ['truncated certificate', () => replaceFile(certFile, pairC.certPEM.slice(0, 200))],
      ['empty key', () => { replaceFile(certFile, pairC.certPEM); replaceFile(keyFile, ''); }],
      ['missing key file', () => rmSync(keyFile)],
    ];
    for (const [what, breakIt] of faults) {
      const before = (await failures())!;
      breakIt();
      await waitFor(`the ${what} to be counted`, async () => (await failures()) === before + 1);
      assert.equal(await servedFingerprint(server.url), fingerprint(pairC.certPEM), what);
      assert.equal((await call(server.url, { ca: ca.certPEM, body: review })).status, 200, what);
      // the same broken content is not counted again at the next polls
      const reloadResult = await server.reloadTLS();
      assert.equal(reloadResult, 'failed');
      assert.equal(await failures(), before + 1, what);
    }
    // back to the served pair: nothing to swap, nothing counted
    const successes = await metric('static_admissiond_serving_certificate_reloads_total', { status: 'success' });
    replaceFile(keyFile, pairC.keyPEM);
    assert.equal(await server.reloadTLS(), 'unchanged');
    assert.equal(await metric('static_admissiond_serving_certificate_reloads_total', { status: 'success' }), successes);
    assert.equal(await metric('static_admissiond_serving_certificate_expiration_timestamp_seconds'), notAfterSeconds(pairC.certPEM));
  });
});

describe('client certificates (--client-ca-file)', () => {
  test('a client without a certificate, or with one from another CA, is refused; one signed by the CA is served', async () => {
    const clientCA = await createCertificateAuthority('client CA');
    const otherCA = await createCertificateAuthority('other client CA');
    const apiserver = await clientCA.issue({ commonName: 'kube-apiserver', usage: 'client' });
    const stranger = await otherCA.issue({ commonName: 'stranger', usage: 'client' });
    const clientCAFile = join(tmp.dir, 'client-ca.crt');
    writeFileSync(clientCAFile, clientCA.certPEM);
    const { logger, lines } = memoryLogger(2);
    const server = await startAdmissionServer({
      bindAddress: '127.0.0.1',
      port: 0,
      tls: { ...files('mtls', pairA), clientCAFile, reloadIntervalMs: 25 },
      routes: { '/validate': async () => ({ allowed: true }) },
      logger,
      registry: newRegistry(),
    });
    try {
      const post = (client?: CertificateAndKey) => call(server.url, { ca: ca.certPEM, body: review, ...(client ? { cert: client.certPEM, key: client.keyPEM } : {}) });
      // TLS 1.3: the client learns of the refusal from an alert or a reset, depending on timing
      await assert.rejects(post(), (err: NodeJS.ErrnoException) => /CERTIFICATE_REQUIRED|ECONNRESET/.test(String(err.code)));
      await assert.rejects(post(stranger), (err: NodeJS.ErrnoException) => /UNKNOWN_CA|ECONNRESET/.test(String(err.code)));
      assert.equal((await post(apiserver)).status, 200);
      await waitFor('the refused handshake to be logged', () => lines.some((l) => l.includes('Closing a connection after a client error') && l.includes('ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE')));

      // the client CA is reloaded too: after switching to the other CA, the roles swap
      replaceFile(clientCAFile, otherCA.certPEM);
      await waitFor('the stranger to be accepted', async () => (await post(stranger).then((r) => r.status, () => 0)) === 200);
      await assert.rejects(post(apiserver));
    } finally {
      await server.close();
    }
  });
});
