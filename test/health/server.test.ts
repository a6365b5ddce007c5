import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { startHealthServer } from '../../lib/health/server.js';

async function getText(url: string): Promise<[number, string]> {
  const res = await fetch(url);
  return [res.status, await res.text()];
}

test('livez/readyz/healthz in kube style: status codes, ?verbose, ?exclude, per-check paths, /metrics', async () => {
  let loaded = false;
  const registry = new Registry();
  const server = await startHealthServer({
    bindAddress: '127.0.0.1:0',
    registry,
    livez: () => [{ name: 'ping', check: () => undefined }],
    readyz: () => [
      { name: 'ping', check: () => undefined },
      { name: 'manifests-loaded/ValidatingAdmissionPolicy', check: () => (loaded ? undefined : 'initial load not complete') },
    ],
  });
  try {
    const get = (path: string): Promise<[number, string]> => getText(server.url + path);
    assert.deepEqual(await get('/livez'), [200, 'ok']);
    assert.deepEqual(await get('/readyz'), [500, '[+]ping ok\n[-]manifests-loaded/ValidatingAdmissionPolicy failed: reason withheld\nreadyz check failed\n']);
    assert.deepEqual(await get('/readyz?verbose'), [500, '[+]ping ok\n[-]manifests-loaded/ValidatingAdmissionPolicy failed: initial load not complete\nreadyz check failed\n']);
    assert.equal((await get('/readyz?exclude=manifests-loaded/ValidatingAdmissionPolicy'))[0], 200);
    assert.equal((await get('/readyz/ping'))[0], 200);
    assert.equal((await get('/readyz/nope'))[0], 404);
    loaded = true;
    assert.deepEqual(await get('/readyz'), [200, 'ok']);
    assert.deepEqual(await get('/healthz'), [200, 'ok']);
    assert.deepEqual(await get('/readyz?verbose'), [200, '[+]ping ok\n[+]manifests-loaded/ValidatingAdmissionPolicy ok\nreadyz check passed\n']);
    const [status, metrics] = await get('/metrics');
    assert.equal(status, 200);
    assert.equal(typeof metrics, 'string');
    assert.equal((await fetch(server.url + '/readyz', { method: 'POST' })).status, 405);
  } finally {
    await server.close();
  }
});

test('a non-blocking check is listed but does not fail readiness, unless asked for alone', async () => {
  const server = await startHealthServer({
    bindAddress: '127.0.0.1:0',
    registry: new Registry(),
    livez: () => [],
    readyz: () => [
      { name: 'ping', check: () => undefined },
      { name: 'shadow-manifests-loaded', blocking: false, check: () => 'the shadow manifests have not loaded yet' },
    ],
  });
  try {
    const get = (path: string): Promise<[number, string]> => getText(server.url + path);
    assert.deepEqual(await get('/readyz'), [200, 'ok']);
    assert.deepEqual(await get('/readyz?verbose'), [200, '[+]ping ok\n[-]shadow-manifests-loaded failed (not blocking): the shadow manifests have not loaded yet\nreadyz check passed\n']);
    assert.deepEqual(await get('/readyz/shadow-manifests-loaded'), [500, '[-]shadow-manifests-loaded failed: reason withheld\nreadyz check failed\n']);
  } finally {
    await server.close();
  }
});
