// A reload reaches the running workers without a restart: the ManifestSource's new snapshot is published to the
// pool, the workers compile it, and the answers change — also for a request sent before any worker has it, which
// the main thread evaluates rather than holding it for the workers' compile (a reload must not stall serving).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createValidateHandler } from '../../../lib/review/validate-handler.js';
import { createLogger } from '../../../lib/log/logger.js';
import { createReloadMetrics } from '../../../lib/metrics/reload.js';
import { ManifestSource } from '../../../lib/reload/manifest-source.js';
import { tempDir } from '../../helpers/fs.js';
import { binding, capture, context, metricValue, policy, review, startPool } from './helpers.js';

const denyName = (name: string): string =>
  policy('p.static.k8s.io', `  validations:\n  - expression: "object.metadata.name != '${name}'"\n    message: "${name} is not allowed"\n`) + binding('b.static.k8s.io', 'p.static.k8s.io');

const configMap = (name: string): ReturnType<typeof review> => {
  const r = capture('002-validate-CREATE-ConfigMap-cm1');
  r.name = name;
  (r.object as { metadata: { name: string } }).metadata.name = name;
  return review(r);
};

test('a reload changes the workers\' answers without restarting them', async (t) => {
  const { dir, cleanup } = tempDir('sad-pool-reload-');
  t.after(cleanup);
  writeFileSync(join(dir, 'p.yaml'), denyName('first'));
  const registry = new Registry();
  const source = new ManifestSource({
    plugin: 'ValidatingAdmissionPolicy', dir, watch: false, metrics: createReloadMetrics(registry, 'sha256:test'), logger: createLogger({ write: () => {} }),
  });
  const initial = source.loadInitial();
  const { pool } = await startPool(t, { snapshot: initial, threads: 2, registry });
  source.on('reload', (event) => {
    if (event.outcome === 'reloaded') pool.publish(source.current()!);
  });
  const handler = createValidateHandler({ snapshot: () => source.current(), pool });
  const allowed = async (name: string): Promise<boolean> => (await handler.handle(configMap(name), context())).allowed === true;
  const threadIds = pool.piscina.threads.map((w) => w.threadId).sort();

  assert.equal(await allowed('first'), false);
  assert.equal(await allowed('second'), true);

  // The new snapshot is published and a request is sent at once, before the workers can have compiled it: it is
  // answered with the new snapshot all the same (evaluated on the main thread meanwhile, see below).
  writeFileSync(join(dir, 'p.yaml'), denyName('second'));
  await source.checkAndReload();
  assert.notEqual(source.current()!.hash, initial.hash);
  const [first, second] = await Promise.all([allowed('first'), allowed('second')]);
  assert.equal(first, true, 'the old rule is gone');
  assert.equal(second, false, 'the new rule applies');
  const denial = await handler.handle(configMap('second'), context());
  assert.match(denial.status?.message ?? '', /denied request: second is not allowed$/);

  await pool.ready();
  assert.deepEqual(pool.piscina.threads.map((w) => w.threadId).sort(), threadIds, 'the same worker threads');
  assert.equal(await metricValue(registry, 'static_admissiond_policy_worker_failures_total'), undefined, 'no failures');

  // and again (the workers keep at most a couple of snapshots)
  writeFileSync(join(dir, 'p.yaml'), denyName('third'));
  await source.checkAndReload();
  assert.equal(await allowed('second'), true);
  assert.equal(await allowed('third'), false);
});

test('a request matched against the previous snapshot is still evaluated with it after a reload', async (t) => {
  const { dir, cleanup } = tempDir('sad-pool-reload-');
  t.after(cleanup);
  writeFileSync(join(dir, 'p.yaml'), denyName('first'));
  const source = new ManifestSource({
    plugin: 'ValidatingAdmissionPolicy', dir, watch: false, metrics: createReloadMetrics(new Registry(), 'sha256:test'), logger: createLogger({ write: () => {} }),
  });
  const initial = source.loadInitial();
  const { pool } = await startPool(t, { snapshot: initial });
  let served = initial;
  const handler = createValidateHandler({ snapshot: () => served, pool });
  writeFileSync(join(dir, 'p.yaml'), denyName('second'));
  await source.checkAndReload();
  pool.publish(source.current()!);
  await pool.ready();
  // matched against the old snapshot (hash and hook indexes of the old one)
  assert.equal((await handler.handle(configMap('first'), context())).allowed, false);
  served = source.current()!;
  assert.equal((await handler.handle(configMap('first'), context())).allowed, true);
});

test('until every worker has compiled a reloaded snapshot, its requests are evaluated on the main thread', async (t) => {
  const { dir, cleanup } = tempDir('sad-pool-reload-');
  t.after(cleanup);
  writeFileSync(join(dir, 'p.yaml'), denyName('first'));
  const source = new ManifestSource({
    plugin: 'ValidatingAdmissionPolicy', dir, watch: false, metrics: createReloadMetrics(new Registry(), 'sha256:test'), logger: createLogger({ write: () => {} }),
  });
  const { pool } = await startPool(t, { snapshot: source.loadInitial(), threads: 2 });
  const handler = createValidateHandler({ snapshot: () => source.current(), pool });
  writeFileSync(join(dir, 'p.yaml'), denyName('second'));
  await source.checkAndReload();
  const reloaded = source.current()!;
  pool.publish(reloaded);
  // the workers learn of it through their channel, in a later turn: nobody has compiled it yet
  assert.equal(pool.hasCompiled(reloaded.hash), false);
  const sent = pool.tasksSent;
  const answer = handler.handle(configMap('second'), context());
  assert.equal(pool.tasksSent, sent, 'no task for the workers');
  assert.match((await answer).status?.message ?? '', /denied request: second is not allowed$/);
  await pool.ready();
  assert.equal(pool.hasCompiled(reloaded.hash), true);
  assert.equal((await handler.handle(configMap('second'), context())).allowed, false);
  assert.equal(pool.tasksSent, sent + 1, 'once compiled everywhere, the workers evaluate it');
});
