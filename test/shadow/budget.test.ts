// The shadow set's own budget, with the real Shadow, its real worker thread and real manifest directories: requests
// beyond the in-flight bound or the worker's CPU share are dropped from shadowing and counted by reason; a candidate
// configuration that does not read leaves the shadow empty, counted, and its readiness check failing without
// blocking.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { defaultFeatureGates } from '../../lib/config/feature-gates.js';
import { createLogger } from '../../lib/log/logger.js';
import { createReloadMetrics } from '../../lib/metrics/reload.js';
import { ManifestSource } from '../../lib/reload/manifest-source.js';
import { Shadow } from '../../lib/shadow/shadow.js';
import type { ShadowBudget } from '../../lib/shadow/shadow.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { valueOf, waitFor } from '../reload/helpers.js';
import { configMapRequest, policy, reviewBody } from './helpers.js';

const tmp = tempDir('sad-shadow-budget-');
writeFiles(tmp.dir, {
  'enforced/names.yaml': policy('names', "object.metadata.name != 'forbidden'"),
  'shadow/blocked.yaml': policy('blocked', "!object.metadata.name.startsWith('blocked')"),
  'shadow.yaml': admissionConfigYAML(join(tmp.dir, 'shadow')),
});
const shadows: Shadow[] = [];
const stop = new AbortController();
const running: Array<Promise<void>> = [];
after(async () => {
  stop.abort();
  await Promise.all(running);
  await Promise.all(shadows.map((s) => s.close()));
  tmp.cleanup();
});

function startShadow(configFile: string, budget: Partial<ShadowBudget>): { shadow: Shadow; registry: Registry; logs: string[] } {
  const registry = new Registry();
  const logs: string[] = [];
  const logger = createLogger({ write: (line) => logs.push(line) });
  const enforced = new ManifestSource({ plugin: 'ValidatingAdmissionPolicy', dir: join(tmp.dir, 'enforced'), metrics: createReloadMetrics(registry, ''), logger });
  enforced.loadInitial();
  const shadow = new Shadow({ configFile, gates: defaultFeatureGates, enforced: [enforced], intervalMs: 60_000, registry, logger, authorizationKubeconfig: '', budget });
  shadows.push(shadow);
  shadow.start();
  running.push(shadow.run(stop.signal));
  return { shadow, registry, logs };
}

const body = Buffer.from(reviewBody(configMapRequest('blocked-1')));
const answer = Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-blocked-1', allowed: true } }));
const metric = async (registry: Registry, name: string, labels: Record<string, string>): Promise<number> => valueOf(await registry.metrics(), name, labels) ?? 0;

test('requests beyond the in-flight bound are skipped and counted, the rest decided', async () => {
  const { shadow, registry } = startShadow(join(tmp.dir, 'shadow.yaml'), { maxInFlight: 2 });
  await waitFor('the shadow worker to compile both sets', () => shadow.readiness.check() === undefined, 20_000, 10);
  // a burst in one turn of the event loop: nothing can come back in between
  for (let i = 0; i < 50; i++) shadow.observe('/validate', body, answer);
  assert.equal(await metric(registry, 'static_admissiond_shadow_skipped_total', { endpoint: 'validate', reason: 'queue_full' }), 48);
  await waitFor('the two admitted to be decided', async () => (await metric(registry, 'static_admissiond_shadow_requests_total', { endpoint: 'validate' })) === 2, 10_000, 10);
  assert.equal(await metric(registry, 'static_admissiond_shadow_decisions_total', { policy: 'blocked.static.k8s.io', enforced: 'absent', shadow: 'deny' }), 2);
  // room again once they are answered
  shadow.observe('/validate', body, answer);
  await waitFor('the next one to be decided', async () => (await metric(registry, 'static_admissiond_shadow_requests_total', { endpoint: 'validate' })) === 3, 10_000, 10);
  // other routes are not shadowed
  shadow.observe('/other', body, answer);
  assert.equal(await metric(registry, 'static_admissiond_shadow_skipped_total', { endpoint: 'validate', reason: 'queue_full' }), 48);
});

test('once the worker has used more than its CPU share over a window, requests are skipped', async () => {
  const { shadow, registry } = startShadow(join(tmp.dir, 'shadow.yaml'), { cpuShare: 0, windowMs: 0 });
  await waitFor('the shadow worker to compile both sets', () => shadow.readiness.check() === undefined, 20_000, 10);
  // the first request opens the window; any work the worker does in it spends a zero share
  shadow.observe('/validate', body, answer);
  await waitFor('the first to be decided', async () => (await metric(registry, 'static_admissiond_shadow_requests_total', { endpoint: 'validate' })) === 1, 10_000, 10);
  shadow.observe('/validate', body, answer);
  assert.equal(await metric(registry, 'static_admissiond_shadow_skipped_total', { endpoint: 'validate', reason: 'cpu_budget' }), 1);
});

test('a candidate configuration that does not read: counted, logged, not ready without blocking, requests skipped', async () => {
  const missing = join(tmp.dir, 'missing.yaml');
  const { shadow, registry, logs } = startShadow(missing, {});
  assert.equal(shadow.readiness.blocking, false);
  assert.match(shadow.readiness.check() ?? '', /the shadow admission configuration does not read: .*missing\.yaml/);
  assert.equal(await metric(registry, 'static_admissiond_shadow_reloads_total', { plugin: 'AdmissionConfiguration', status: 'failure' }), 1);
  assert.ok(logs.some((l) => l.startsWith('E') && l.includes('Failed to read the shadow admission configuration')), logs.join('\n'));
  shadow.observe('/validate', body, answer);
  assert.equal(await metric(registry, 'static_admissiond_shadow_skipped_total', { endpoint: 'validate', reason: 'not_loaded' }), 1);
  // the enforced side's reload metrics saw nothing of it
  assert.equal(await metric(registry, 'apiserver_manifest_admission_config_controller_automatic_reloads_total', { status: 'failure' }), 0);
});
