// The --dev certificate: fast, ECDSA P-256, a CA that verifies a serving certificate for 127.0.0.1, ::1 and
// localhost, files written with the key private, and usable by the admission listener as is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { startAdmissionServer } from '../../lib/server/server.js';
import { call, memoryLogger, newRegistry, tempDir } from './helpers.js';

test('generateDevCertificates: CA + serving pair for 127.0.0.1/::1/localhost in well under a second', async () => {
  const parent = tempDir('sad-devcert-');
  try {
    await generateDevCertificates({ parentDir: parent.dir }).then((d) => d.cleanup()); // first use loads the library
    const started = performance.now();
    const dev = await generateDevCertificates({ parentDir: parent.dir });
    const took = performance.now() - started;
    assert.ok(took < 1_000, `took ${took.toFixed(0)}ms`);

    const caPEM = readFileSync(dev.caFile, 'utf8');
    assert.equal(caPEM, dev.caPEM);
    assert.equal(Buffer.from(dev.caBundle, 'base64').toString(), caPEM);
    const ca = new X509Certificate(caPEM);
    const serving = new X509Certificate(readFileSync(dev.certFile));
    assert.equal(ca.ca, true);
    assert.equal(serving.ca, false);
    assert.ok(serving.verify(ca.publicKey), 'the CA signed the serving certificate');
    assert.equal(serving.checkIssued(ca), true);
    assert.equal(serving.subjectAltName, 'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost');
    assert.equal(serving.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(serving.checkHost('localhost'), 'localhost');
    assert.equal(serving.publicKey.asymmetricKeyType, 'ec');
    assert.equal(serving.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.ok(serving.checkPrivateKey(createPrivateKey(readFileSync(dev.keyFile))));
    assert.ok(new Date(serving.validTo).getTime() > Date.now() + 7 * 86_400_000);
    assert.equal(statSync(dev.keyFile).mode & 0o777, 0o600);

    const server = await startAdmissionServer({
      bindAddress: '127.0.0.1', port: 0, tls: { certFile: dev.certFile, keyFile: dev.keyFile },
      routes: { '/validate': async () => ({ allowed: true }) }, logger: memoryLogger().logger, registry: newRegistry(),
    });
    try {
      // verified against the dev CA, by IP and by name
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u', operation: 'CREATE', kind: { version: 'v1', kind: 'Pod' }, resource: { version: 'v1', resource: 'pods' } } });
      assert.equal((await call(server.url, { ca: caPEM, body })).status, 200);
      assert.equal((await call(server.url.replace('127.0.0.1', 'localhost'), { ca: caPEM, body })).status, 200);
    } finally {
      await server.close();
    }
    dev.cleanup();
    assert.equal(existsSync(dev.dir), false);
  } finally {
    parent.cleanup();
  }
});
