// ManifestSource against real directories, real chokidar and real prom-client registries: convergence after every
// common way of changing files, the all-or-nothing rule, upstream's counting quirks (§6), and the metrics (§7).
// Every wait is on a 'reload' event or a polled condition with a deadline.
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, rename, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../lib/log/logger.js';
import { createReloadMetrics } from '../../lib/metrics/reload.js';
import { InitialLoadError, ManifestSource } from '../../lib/reload/manifest-source.js';
import type { ReloadEvent } from '../../lib/reload/manifest-source.js';
import type { Snapshot } from '../../lib/reload/snapshot.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import {
  bindingYAML,
  contentHash,
  delay,
  docs,
  lastConfigInfo,
  lastTimestamp,
  makeTempDir,
  minimalPolicySet,
  nextEvent,
  policyAndBinding,
  reloadsTotal,
  samplesOf,
  testAPIServerIDHash,
  valueOf,
  vapYAML,
  waitFor,
} from './helpers.js';

const VAP: PluginName = 'ValidatingAdmissionPolicy';

interface HarnessOptions {
  /** files written into the manifest dir before anything starts */
  files?: Record<string, string>;
  intervalMs?: number;
  watch?: boolean;
  apiServerIDHash?: string;
  /** skip creating the manifest dir (the test lays it out itself) */
  noDir?: boolean;
  plugin?: PluginName;
}

interface Harness {
  readonly root: string;
  readonly dir: string;
  readonly source: ManifestSource;
  readonly registry: Registry;
  /** every 'reload' event, in order */
  readonly events: ReloadEvent[];
  /** parsed JSON log lines */
  readonly logs: Array<Record<string, unknown>>;
  /** the reload metrics' clock, in ms; tests move it to see timestamps move */
  clock: number;
  metrics(): Promise<string>;
  /** run() with an abort registered for the end of the test; resolves on the first check run() makes */
  start(): Promise<ReloadEvent>;
  /** this harness's successes/failures counter values (0 when the series is absent) */
  counts(): Promise<{ success: number; failure: number }>;
}

async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const tmp = await makeTempDir();
  const cleanups: Array<() => Promise<void>> = [tmp.cleanup];
  t.after(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  const dir = join(tmp.path, 'policies');
  if (!options.noDir) await mkdir(dir);
  for (const [name, content] of Object.entries(options.files ?? {})) await writeFile(join(dir, name), content);
  const registry = new Registry();
  const logs: Array<Record<string, unknown>> = [];
  const h: Harness = {
    root: tmp.path,
    dir,
    registry,
    events: [],
    logs,
    clock: 1_700_000_000_000,
    source: undefined as unknown as ManifestSource,
    metrics: () => registry.metrics(),
    start: async () => {
      const ac = new AbortController();
      const first = nextEvent<ReloadEvent>(h.source, 'reload', () => true, 'the check run() makes at start');
      const done = h.source.run(ac.signal);
      cleanups.push(async () => {
        ac.abort();
        await withDeadline(done, 5_000, 'run() to return after abort');
      });
      return first;
    },
    counts: async () => {
      const text = await registry.metrics();
      const plugin = options.plugin ?? VAP;
      return {
        success: valueOf(text, reloadsTotal, { status: 'success', plugin }) ?? 0,
        failure: valueOf(text, reloadsTotal, { status: 'failure', plugin }) ?? 0,
      };
    },
  };
  const metrics = createReloadMetrics(registry, options.apiServerIDHash ?? testAPIServerIDHash, () => h.clock);
  const source = new ManifestSource({
    plugin: options.plugin ?? VAP,
    dir,
    intervalMs: options.intervalMs ?? 50,
    watch: options.watch ?? true,
    metrics,
    logger: createLogger({ format: 'json', write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) }),
  });
  source.on('reload', (e) => h.events.push(e));
  (h as { source: ManifestSource }).source = source;
  return h;
}

async function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** checkAndReload once and return the event it emitted. */
async function check(h: Harness): Promise<ReloadEvent> {
  const before = h.events.length;
  await h.source.checkAndReload();
  assert.equal(h.events.length, before + 1, 'one check emits exactly one reload event');
  return h.events[h.events.length - 1]!;
}

function policyNames(s: Snapshot | undefined): string[] {
  assert.ok(s, 'a snapshot is loaded');
  assert.equal(s.manifests.family, 'policy');
  return s.manifests.family === 'policy' ? s.manifests.policies.map((p) => p.metadata?.name ?? '') : [];
}

function bindingNames(s: Snapshot | undefined): string[] {
  assert.ok(s);
  return s.manifests.family === 'policy' ? s.manifests.bindings.map((b) => b.metadata?.name ?? '') : [];
}

async function writeAtomically(path: string, content: string): Promise<void> {
  await writeFile(`${path}.tmp`, content);
  await rename(`${path}.tmp`, path);
}

/** Waits until current() holds `hash`. */
function converge(h: Harness, hash: string, what: string, timeoutMs = 10_000): Promise<Snapshot> {
  return waitFor(what, () => {
    const s = h.source.current();
    return s !== undefined && s.hash === hash ? s : undefined;
  }, timeoutMs);
}

/**
 * With a long intervalMs the only checks after run()'s first one come from the watcher: creates .txt files (ignored
 * by the loader) until two in a row are each followed by a check, which proves the watch is established (two, so
 * that a check still pending from an earlier event cannot pass for a live watch). Each round creates a new file:
 * chokidar drops a second 'change' of one path within 50 ms, and an 'add' of a new name is not throttled.
 */
async function primeWatcher(h: Harness, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let rounds = 0;
  const trace: string[] = [];
  for (let i = 0; rounds < 2; i++) {
    const seen = nextEvent(h.source, 'reload', () => true, 'a check after a .txt write', 250).then(() => true, () => false);
    await writeFile(join(h.dir, `prime-${i}.txt`), `prime ${i}\n`);
    const ok = await seen;
    trace.push(ok ? '+' : '-');
    rounds = ok ? rounds + 1 : 0;
    if (rounds < 2 && Date.now() > deadline) {
      throw new Error(`no watch event within ${timeoutMs} ms of creating files in ${h.dir} (rounds ${trace.join('')}); ${h.events.length} reload events so far; source log: ${JSON.stringify(h.logs)}`);
    }
  }
}

const hour = 3_600_000;
const goodSet = minimalPolicySet;
const goodHash = contentHash(goodSet);
const newSet = docs(policyAndBinding('p1', "object.metadata.name != 'also-forbidden'"));
const newHash = contentHash(newSet);

describe('initial load', () => {
  test('counts as one success and publishes the hash', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    assert.equal(h.source.hasSynced(), false);
    assert.equal(h.source.current(), undefined);
    assert.equal(samplesOf(await h.metrics(), reloadsTotal).length, 0, 'nothing recorded before the load');

    const snapshot = h.source.loadInitial();
    assert.equal(h.source.hasSynced(), true);
    assert.equal(h.source.current(), snapshot);
    assert.equal(snapshot.hash, goodHash);
    assert.equal(snapshot.hash.length, 71);
    assert.deepEqual(policyNames(snapshot), ['p1.static.k8s.io']);
    assert.deepEqual(bindingNames(snapshot), ['p1-binding.static.k8s.io']);
    assert.deepEqual({ ...snapshot.counts }, { ValidatingAdmissionPolicy: 1, ValidatingAdmissionPolicyBinding: 1 });

    const text = await h.metrics();
    const lines = text.split('\n');
    assert.ok(lines.includes(`${reloadsTotal}{status="success",plugin="ValidatingAdmissionPolicy",apiserver_id_hash="${testAPIServerIDHash}"} 1`), text);
    assert.equal(valueOf(text, reloadsTotal, { status: 'failure' }), undefined, 'no failure series');
    assert.equal(valueOf(text, lastTimestamp, { status: 'success', plugin: VAP, apiserver_id_hash: testAPIServerIDHash }), h.clock / 1000);
    assert.deepEqual(samplesOf(text, lastConfigInfo), [
      { name: lastConfigInfo, labels: { plugin: VAP, apiserver_id_hash: testAPIServerIDHash, hash: goodHash }, value: 1 },
    ]);
    assert.ok(h.logs.some((l) => l.msg === 'Loaded manifest-based admission policy configurations' && l.plugin === VAP && l.count === 1), JSON.stringify(h.logs));
  });

  test('a failed initial load throws upstream\'s message and records nothing', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': docs(vapYAML('p1.static.k8s.io'), bindingYAML('b.static.k8s.io', 'missing.static.k8s.io')) } });
    assert.throws(() => h.source.loadInitial(), (err: unknown) => {
      assert.ok(err instanceof InitialLoadError);
      assert.equal(err.plugin, VAP);
      assert.equal(err.message, `failed to load static policy manifests from "${h.dir}": binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory`);
      return true;
    });
    assert.equal(h.source.hasSynced(), false);
    assert.equal(h.source.current(), undefined);
    assert.equal(samplesOf(await h.metrics(), reloadsTotal).length, 0);
    assert.equal(samplesOf(await h.metrics(), lastConfigInfo).length, 0);
  });

  test('an empty directory loads as an empty snapshot with hash ""', async (t) => {
    const h = await harness(t, { files: { 'empty.yaml': '', 'notes.txt': 'not a manifest' } });
    const snapshot = h.source.loadInitial();
    assert.equal(snapshot.hash, '');
    assert.deepEqual(policyNames(snapshot), []);
    assert.deepEqual(samplesOf(await h.metrics(), lastConfigInfo).map((s) => s.labels.hash), ['']);
  });
});

describe('reload loop: convergence on the new content', () => {
  test('in-place write', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    await h.start();
    await writeFile(join(h.dir, 'p.yaml'), newSet);
    const s = await converge(h, newHash, 'the in-place write to be loaded');
    assert.match(JSON.stringify(s.manifests), /also-forbidden/);
    const text = await h.metrics();
    assert.ok((await h.counts()).success >= 2);
    assert.equal((await h.counts()).failure, 0);
    assert.deepEqual(samplesOf(text, lastConfigInfo).map((x) => x.labels.hash), [newHash]);
  });

  test('write to x.yaml.tmp, then rename: exactly one reload, no failure, no intermediate state', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    await h.start();
    h.clock += 1000;
    const tmp = join(h.dir, 'p.yaml.tmp');
    await writeFile(tmp, newSet);
    // the .tmp file is not a manifest: a check now is a no-op
    const event = await check(h);
    assert.equal(event.outcome, 'unchanged');
    assert.equal(h.source.current()!.hash, goodHash);
    await rename(tmp, join(h.dir, 'p.yaml'));
    await converge(h, newHash, 'the renamed file to be loaded');
    const reloaded = h.events.filter((e) => e.outcome === 'reloaded');
    assert.deepEqual(reloaded.map((e) => e.hash), [newHash]);
    assert.deepEqual(await h.counts(), { success: 2, failure: 0 });
    const text = await h.metrics();
    assert.equal(valueOf(text, lastTimestamp, { status: 'success' }), h.clock / 1000);
    assert.deepEqual(samplesOf(text, lastConfigInfo).map((x) => x.labels.hash), [newHash]);
  });

  test('editor save: unlink, then add', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    await h.start();
    await unlink(join(h.dir, 'p.yaml'));
    await writeFile(join(h.dir, 'p.yaml'), newSet);
    await converge(h, newHash, 'the re-added file to be loaded');
    // if a check fell between unlink and add it loaded the empty directory: nothing else may have been installed
    for (const e of h.events.filter((x) => x.outcome === 'reloaded')) assert.ok(e.hash === '' || e.hash === newHash, e.hash);
    assert.equal((await h.counts()).failure, 0);
    assert.deepEqual(samplesOf(await h.metrics(), lastConfigInfo).map((x) => x.labels.hash), [newHash]);
  });

  test('kubectl ConfigMap mount: ..data symlink swap', async (t) => {
    const h = await harness(t, { noDir: true });
    const d = h.dir;
    await mkdir(d);
    const v1 = '..2024_01_01_00_00_00.1';
    await mkdir(join(d, v1));
    await writeFile(join(d, v1, 'p.yaml'), goodSet);
    await symlink(v1, join(d, '..data'));
    await symlink('..data/p.yaml', join(d, 'p.yaml'));
    assert.equal(h.source.loadInitial().hash, goodHash);
    await h.start();

    // what the kubelet's AtomicWriter does
    const v2 = '..2024_01_01_00_05_00.2';
    await mkdir(join(d, v2));
    await writeFile(join(d, v2, 'p.yaml'), newSet);
    await symlink(v2, join(d, '..data_tmp'));
    await rename(join(d, '..data_tmp'), join(d, '..data'));
    await rm(join(d, v1), { recursive: true });

    const s = await converge(h, newHash, 'the swapped ConfigMap data to be loaded');
    assert.deepEqual(policyNames(s), ['p1.static.k8s.io']);
    assert.equal((await h.counts()).failure, 0, JSON.stringify(h.events.filter((e) => e.error).map((e) => e.error!.message)));
    assert.deepEqual(samplesOf(await h.metrics(), lastConfigInfo).map((x) => x.labels.hash), [newHash]);
  });

  test('deleting every file installs an empty snapshot with hash ""', async (t) => {
    const h = await harness(t, { files: { 'a.yaml': policyAndBinding('a'), 'b.yaml': policyAndBinding('b') } });
    const initial = h.source.loadInitial();
    assert.deepEqual(policyNames(initial), ['a.static.k8s.io', 'b.static.k8s.io']);
    await h.start();
    await unlink(join(h.dir, 'a.yaml'));
    await unlink(join(h.dir, 'b.yaml'));
    const s = await converge(h, '', 'the empty directory to be loaded');
    assert.deepEqual(policyNames(s), []);
    assert.deepEqual(bindingNames(s), []);
    assert.deepEqual({ ...s.counts }, {});
    assert.equal((await h.counts()).failure, 0);
    // the info series is still emitted, with hash=""
    assert.deepEqual(samplesOf(await h.metrics(), lastConfigInfo).map((x) => x.labels), [{ plugin: VAP, apiserver_id_hash: testAPIServerIDHash, hash: '' }]);
    assert.ok(h.logs.some((l) => l.msg === 'reloaded manifest config' && l.dir === h.dir));
  });

  test('directory removed: reload fails and the snapshot stays; recreated: converges via the tick', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: 50 });
    const initial = h.source.loadInitial();
    await h.start();
    h.clock += 1000;
    const failed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'a failed reload after the directory is removed');
    await rm(h.dir, { recursive: true });
    const event = await failed;
    assert.equal(event.hash, '');
    assert.equal(event.error?.message.startsWith(`failed to read manifest directory "${h.dir}": `), true, event.error?.message);
    assert.equal(h.source.current(), initial, 'the previous snapshot is kept');
    assert.equal(h.source.hasSynced(), true);
    let text = await h.metrics();
    assert.ok((valueOf(text, reloadsTotal, { status: 'failure', plugin: VAP, apiserver_id_hash: testAPIServerIDHash }) ?? 0) >= 1);
    assert.equal(valueOf(text, reloadsTotal, { status: 'success' }), 1);
    assert.equal(valueOf(text, lastTimestamp, { status: 'failure' }), h.clock / 1000);
    assert.deepEqual(samplesOf(text, lastConfigInfo).map((x) => x.labels.hash), [goodHash], 'a failure never touches last_config_info');
    assert.ok(h.logs.some((l) => l.msg === 'reloading manifest config' && l.plugin === VAP && l.dir === h.dir && typeof l.err === 'string'), JSON.stringify(h.logs));

    // the failure repeats at every tick while the directory is missing
    const failuresSoFar = (await h.counts()).failure;
    await waitFor('more failures while the directory is missing', async () => (await h.counts()).failure > failuresSoFar);

    // recreate it atomically with new content
    const staging = join(h.root, 'staging');
    await mkdir(staging);
    await writeFile(join(staging, 'p.yaml'), newSet);
    await rename(staging, h.dir);
    await converge(h, newHash, 'the recreated directory to be loaded');
    text = await h.metrics();
    assert.equal(valueOf(text, reloadsTotal, { status: 'success' }), 2);
    assert.deepEqual(samplesOf(text, lastConfigInfo).map((x) => x.labels.hash), [newHash]);
  });

  test('poll only (watch: false) converges at the tick', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, watch: false, intervalMs: 50 });
    h.source.loadInitial();
    await h.start();
    await writeAtomically(join(h.dir, 'p.yaml'), newSet);
    await converge(h, newHash, 'the poll to load the change');
  });

  test('watch only: with a one-hour interval the watcher picks up the change', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: hour });
    h.source.loadInitial();
    const first = await h.start();
    assert.equal(first.outcome, 'unchanged', 'the check right after the watch is set is a no-op');
    await primeWatcher(h);
    await writeAtomically(join(h.dir, 'p.yaml'), newSet);
    await converge(h, newHash, 'the watcher to load the change (the tick is an hour away)');
    assert.deepEqual(await h.counts(), { success: 2, failure: 0 });
  });

  test('watch only: a change right after the check run() makes at start, before the watch is live, is loaded without the tick', async (t) => {
    // upstream checks right after the watch is registered (util/filesystem/watchuntil.go); chokidar registers its
    // fs watch asynchronously, so what lands before that must be caught by a check once it is live
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: hour });
    h.source.loadInitial();
    const first = await h.start();
    assert.equal(first.outcome, 'unchanged');
    writeFileSync(join(h.root, 'p.yaml'), newSet);
    renameSync(join(h.root, 'p.yaml'), join(h.dir, 'p.yaml'));
    await converge(h, newHash, 'the change to be loaded (the tick is an hour away)');
    assert.deepEqual(await h.counts(), { success: 2, failure: 0 });
  });

  test('watch only: a second file added is picked up too', async (t) => {
    const h = await harness(t, { files: { 'a.yaml': goodSet }, intervalMs: hour });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const second = policyAndBinding('p2');
    await writeAtomically(join(h.dir, 'b.yaml'), second);
    const s = await converge(h, contentHash(goodSet, second), 'the added file to be loaded');
    assert.deepEqual(policyNames(s), ['p1.static.k8s.io', 'p2.static.k8s.io']);
  });

  test('watch only: a second change right after a reload is picked up too', async (t) => {
    // Upstream runs the handler for every fsnotify event. A change that lands just after a check has read the
    // directory must cause another check, however soon after the previous event it comes.
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: hour });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const v2 = docs(policyAndBinding('p1', "object.metadata.name != 'v2'"));
    const v3 = docs(policyAndBinding('p1', "object.metadata.name != 'v3'"));
    // prepared outside the watched directory, then renamed in: each change is one atomic event on p.yaml
    await writeFile(join(h.root, 'v2.yaml'), v2);
    await writeFile(join(h.root, 'v3.yaml'), v3);
    const loadedV2 = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'reloaded', 'v2 to be loaded');
    await rename(join(h.root, 'v2.yaml'), join(h.dir, 'p.yaml'));
    assert.equal((await loadedV2).hash, contentHash(v2));
    await rename(join(h.root, 'v3.yaml'), join(h.dir, 'p.yaml'));
    await converge(h, contentHash(v3), 'the second change to be loaded (the tick is an hour away)', 3_000);
  });

  test('run() returns once the signal aborts', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: 20 });
    h.source.loadInitial();
    const ac = new AbortController();
    const first = nextEvent<ReloadEvent>(h.source, 'reload', () => true, 'the first check');
    const done = h.source.run(ac.signal);
    await first;
    ac.abort();
    await withDeadline(done, 5_000, 'run() to return after abort');
    const n = h.events.length;
    // run() awaited the last check: no check is left in flight
    await h.source.checkAndReload();
    assert.equal(h.events.length, n + 1);
  });
});

describe('broken manifests never replace the good snapshot', () => {
  const broken: Record<string, { content: string; message: (file: string) => string | RegExp }> = {
    'bad YAML': {
      content: `${vapYAML('p1.static.k8s.io')}  validations: [unclosed\n`,
      message: (file) => new RegExp(`^error loading ${escapeRegExp(file)}: `),
    },
    'unknown field': {
      content: docs(vapYAML('p1.static.k8s.io').replace('  failurePolicy: Fail\n', '  failurePolicy: Fail\n  foo: 1\n'), bindingYAML('p1-binding.static.k8s.io', 'p1.static.k8s.io')),
      message: (file) => `error loading ${file}: strict decoding error: unknown field "spec.foo"`,
    },
    'binding referencing a missing policy': {
      content: docs(vapYAML('p1.static.k8s.io'), bindingYAML('p1-binding.static.k8s.io', 'missing.static.k8s.io')),
      message: () => 'binding "p1-binding.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory',
    },
    'CEL that does not compile': {
      content: policyAndBinding('p1', "object.metadata.name == 'x' &&"),
      message: () => /expression/,
    },
  };

  for (const [name, { content, message }] of Object.entries(broken)) {
    test(name, async (t) => {
      const h = await harness(t, { files: { 'p.yaml': goodSet } });
      const good = h.source.loadInitial();
      h.clock += 1000;
      const file = join(h.dir, 'p.yaml');
      await writeFile(file, content);
      const event = await check(h);
      assert.ok(event.outcome === 'load-failed' || event.outcome === 'compile-failed', event.outcome);
      assert.ok(event.error);
      const expected = message(file);
      if (typeof expected === 'string') assert.equal(event.error.message, expected);
      else assert.match(event.error.message, expected);
      assert.equal(h.source.current(), good);
      assert.deepEqual(await h.counts(), { success: 1, failure: 1 });
      const text = await h.metrics();
      assert.equal(valueOf(text, lastTimestamp, { status: 'failure' }), h.clock / 1000);
      assert.equal(valueOf(text, lastTimestamp, { status: 'success' }), (h.clock - 1000) / 1000);
      assert.deepEqual(samplesOf(text, lastConfigInfo).map((x) => x.labels.hash), [goodHash]);
    });
  }

  test('with the loop running, a broken write is never installed and the fix is', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    const good = h.source.loadInitial();
    await h.start();
    const failed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'the broken write to fail');
    await writeAtomically(join(h.dir, 'p.yaml'), broken['unknown field']!.content);
    await failed;
    assert.equal(h.source.current(), good);
    await writeAtomically(join(h.dir, 'p.yaml'), newSet);
    await converge(h, newHash, 'the fixed file to be loaded');
    assert.ok(h.events.filter((e) => e.outcome === 'reloaded').every((e) => e.hash === newHash));
  });
});

describe('upstream counting (§6)', () => {
  test('reverting a broken file to the last good content records no success (consequence b)', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    const good = h.source.loadInitial();
    const file = join(h.dir, 'p.yaml');
    h.clock += 1000;
    await writeFile(file, 'kind: [\n');
    assert.equal((await check(h)).outcome, 'load-failed');
    h.clock += 1000;
    await writeFile(file, goodSet);
    const event = await check(h);
    assert.equal(event.outcome, 'unchanged');
    assert.equal(event.hash, goodHash);
    assert.equal(h.source.current(), good);
    assert.deepEqual(await h.counts(), { success: 1, failure: 1 });
    const text = await h.metrics();
    const successTs = valueOf(text, lastTimestamp, { status: 'success' })!;
    const failureTs = valueOf(text, lastTimestamp, { status: 'failure' })!;
    assert.ok(failureTs > successTs, 'the failure timestamp stays the newest');
  });

  test('a persistent error counts one failure per check (consequence a)', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    await writeFile(join(h.dir, 'p.yaml'), 'not: [valid\n');
    const n = 5;
    for (let i = 0; i < n; i++) assert.equal((await check(h)).outcome, 'load-failed');
    assert.deepEqual(await h.counts(), { success: 1, failure: n });
    assert.equal(h.logs.filter((l) => l.msg === 'reloading manifest config').length, n);
  });

  test('a check requested as the previous run finishes still runs', async (t) => {
    // Code that resumes after a 'reload' event (an await on it) runs before the finished run has released its
    // state; a checkAndReload() made there must still re-read the directory, not resolve without a check.
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    const first = nextEvent<ReloadEvent>(h.source, 'reload', () => true, 'the first check');
    void h.source.checkAndReload();
    await first;
    const before = h.events.length;
    writeFileSync(join(h.dir, 'p.yaml'), newSet);
    await h.source.checkAndReload();
    assert.equal(h.events.length, before + 1, 'checkAndReload() resolved without running a check');
    assert.equal(h.source.current()!.hash, newHash);
  });

  test('an unchanged directory: no metric change, no log line', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    const before = await h.metrics();
    const logs = h.logs.length;
    h.clock += 1000;
    for (let i = 0; i < 3; i++) assert.equal((await check(h)).outcome, 'unchanged');
    assert.equal(await h.metrics(), before);
    assert.equal(h.logs.length, logs);
  });

  test('touching mtime only is unchanged', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    const good = h.source.loadInitial();
    const before = await h.metrics();
    h.clock += 1000;
    const later = new Date(Date.now() + 60_000);
    await utimes(join(h.dir, 'p.yaml'), later, later);
    const event = await check(h);
    assert.equal(event.outcome, 'unchanged');
    assert.equal(h.source.current(), good);
    assert.equal(await h.metrics(), before);
  });

  test('renaming a file without changing the name order is unchanged', async (t) => {
    const h = await harness(t, { files: { 'a.yaml': goodSet } });
    const good = h.source.loadInitial();
    await rename(join(h.dir, 'a.yaml'), join(h.dir, 'b.yml'));
    assert.equal((await check(h)).outcome, 'unchanged');
    assert.equal(h.source.current(), good);
  });

  test('a .txt edit triggers a check that short-circuits (no metric change)', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet, 'notes.txt': 'my notes\n' }, intervalMs: hour });
    const good = h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const before = await h.metrics();
    const logs = h.logs.length;
    h.clock += 1000;
    const seen = nextEvent<ReloadEvent>(h.source, 'reload', () => true, 'the check triggered by the .txt edit');
    await writeFile(join(h.dir, 'notes.txt'), 'my notes, edited\n');
    const event = await seen;
    assert.equal(event.outcome, 'unchanged');
    assert.equal(event.hash, goodHash);
    assert.equal(h.source.current(), good);
    assert.equal(await h.metrics(), before);
    assert.equal(h.logs.length, logs, 'a short-circuited check logs nothing');
  });

  test('a failed CEL change followed by a fix reloads the fix', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    await writeFile(join(h.dir, 'p.yaml'), policyAndBinding('p1', "object.metadata.name == 'x' &&"));
    const failed = await check(h);
    assert.ok(failed.outcome === 'load-failed' || failed.outcome === 'compile-failed');
    await writeFile(join(h.dir, 'p.yaml'), newSet);
    assert.equal((await check(h)).outcome, 'reloaded');
    assert.equal(h.source.current()!.hash, newHash);
  });
});

describe('readers never observe a partial set', () => {
  test('a two-file change lands as old set or new set, never a mix', async (t) => {
    // Every mix of old and new files is invalid (the bindings name the other file's policies), so no intermediate
    // state can load; readers sample current() throughout and record every installed snapshot.
    const oldA = vapYAML('p1.static.k8s.io');
    const oldB = bindingYAML('p1-binding.static.k8s.io', 'p1.static.k8s.io');
    const newA = docs(vapYAML('p2.static.k8s.io'), vapYAML('p3.static.k8s.io'));
    const newB = docs(bindingYAML('p2-binding.static.k8s.io', 'p2.static.k8s.io'), bindingYAML('p3-binding.static.k8s.io', 'p3.static.k8s.io'));
    const oldHash = contentHash(oldA, oldB);
    const finalHash = contentHash(newA, newB);
    const h = await harness(t, { files: { 'a.yaml': oldA, 'b.yaml': oldB }, intervalMs: 20 });
    assert.equal(h.source.loadInitial().hash, oldHash);
    await h.start();

    const seen = new Set<Snapshot>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        seen.add(h.source.current()!);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // a wait below that fails must fail the test, not leave the sampler spinning until the file's timeout
    t.after(() => {
      sampling = false;
    });
    h.source.on('reload', (e) => {
      if (e.outcome === 'reloaded') seen.add(h.source.current()!);
    });

    // Each file is replaced atomically (temp + rename), as the README asks of writers: an in-place rewrite has a
    // truncated moment in which an empty b.yaml is skipped (as upstream) and p2, p3 alone form a valid set.
    const failed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'the half-applied change to fail');
    await writeAtomically(join(h.dir, 'a.yaml'), newA);
    await failed;
    assert.equal(h.source.current()!.hash, oldHash, 'half the change is not installed');
    await writeAtomically(join(h.dir, 'b.yaml'), newB);
    await converge(h, finalHash, 'the complete change to be loaded');
    sampling = false;
    await sampler;

    assert.ok(seen.size >= 2);
    for (const s of seen) {
      const state = { hash: s.hash, policies: policyNames(s), bindings: bindingNames(s) };
      assert.ok(
        (s.hash === oldHash && state.policies.join() === 'p1.static.k8s.io' && state.bindings.join() === 'p1-binding.static.k8s.io')
        || (s.hash === finalHash && state.policies.join() === 'p2.static.k8s.io,p3.static.k8s.io' && state.bindings.join() === 'p2-binding.static.k8s.io,p3-binding.static.k8s.io'),
        `a reader saw a mixed snapshot: ${JSON.stringify(state)}`,
      );
      assert.ok(Object.isFrozen(s) && Object.isFrozen(s.manifests), 'snapshots are immutable');
    }
  });
});

describe('metrics (§7)', () => {
  test('the success timestamp moves and last_config_info keeps one series per plugin', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    const t1 = valueOf(await h.metrics(), lastTimestamp, { status: 'success', plugin: VAP });
    h.clock += 5_500;
    await writeFile(join(h.dir, 'p.yaml'), newSet);
    assert.equal((await check(h)).outcome, 'reloaded');
    const text = await h.metrics();
    const t2 = valueOf(text, lastTimestamp, { status: 'success', plugin: VAP });
    assert.equal(t2! - t1!, 5.5);
    assert.ok(text.split('\n').includes(`${reloadsTotal}{status="success",plugin="ValidatingAdmissionPolicy",apiserver_id_hash="${testAPIServerIDHash}"} 2`), text);
    assert.deepEqual(samplesOf(text, lastConfigInfo), [
      { name: lastConfigInfo, labels: { plugin: VAP, apiserver_id_hash: testAPIServerIDHash, hash: newHash }, value: 1 },
    ]);
    assert.ok(!text.includes(goodHash), 'the old hash series is gone');
  });

  test('with the real clock the timestamp is the unix time in seconds', async (t) => {
    const tmp = await makeTempDir();
    t.after(tmp.cleanup);
    await writeFile(join(tmp.path, 'p.yaml'), goodSet);
    const registry = new Registry();
    const source = new ManifestSource({ plugin: VAP, dir: tmp.path, metrics: createReloadMetrics(registry, testAPIServerIDHash), logger: createLogger({ write: () => {} }) });
    const before = Date.now() / 1000;
    source.loadInitial();
    const after = Date.now() / 1000;
    const ts = valueOf(await registry.metrics(), lastTimestamp, { status: 'success' })!;
    assert.ok(ts >= before && ts <= after, `${before} <= ${ts} <= ${after}`);
  });

  test('two plugins on one registry: one last_config_info series each', async (t) => {
    const tmp = await makeTempDir();
    t.after(tmp.cleanup);
    const vapDir = join(tmp.path, 'vap');
    const mapDir = join(tmp.path, 'map');
    await mkdir(vapDir);
    await mkdir(mapDir);
    await writeFile(join(vapDir, 'p.yaml'), goodSet);
    const registry = new Registry();
    const metrics = createReloadMetrics(registry, testAPIServerIDHash);
    const logger = createLogger({ write: () => {} });
    const vap = new ManifestSource({ plugin: VAP, dir: vapDir, metrics, logger });
    const map = new ManifestSource({ plugin: 'MutatingAdmissionPolicy', dir: mapDir, metrics, logger });
    vap.loadInitial();
    map.loadInitial();
    await writeFile(join(vapDir, 'p.yaml'), newSet);
    await vap.checkAndReload();
    const infos = samplesOf(await registry.metrics(), lastConfigInfo).map((s) => s.labels).sort((a, b) => a.plugin!.localeCompare(b.plugin!));
    assert.deepEqual(infos, [
      { plugin: 'MutatingAdmissionPolicy', apiserver_id_hash: testAPIServerIDHash, hash: '' },
      { plugin: VAP, apiserver_id_hash: testAPIServerIDHash, hash: newHash },
    ]);
  });

  test('no last_config_info when the apiserver id hash is ""', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, apiServerIDHash: '' });
    h.source.loadInitial();
    await writeFile(join(h.dir, 'p.yaml'), newSet);
    assert.equal((await check(h)).outcome, 'reloaded');
    const text = await h.metrics();
    assert.deepEqual(samplesOf(text, lastConfigInfo), []);
    assert.ok(text.split('\n').includes(`${reloadsTotal}{status="success",plugin="ValidatingAdmissionPolicy",apiserver_id_hash=""} 2`), text);
  });

  test('help strings and types are upstream\'s', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet } });
    h.source.loadInitial();
    const text = await h.metrics();
    for (const line of [
      `# HELP ${reloadsTotal} [ALPHA] Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.`,
      `# TYPE ${reloadsTotal} counter`,
      `# HELP ${lastTimestamp} [ALPHA] Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.`,
      `# TYPE ${lastTimestamp} gauge`,
      `# HELP ${lastConfigInfo} [ALPHA] Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.`,
      `# TYPE ${lastConfigInfo} gauge`,
    ]) assert.ok(text.split('\n').includes(line), `missing ${JSON.stringify(line)} in\n${text}`);
  });
});

describe('watch re-establishment', () => {
  test('after the directory is removed and recreated, the watcher (not the tick) sees changes again', async (t) => {
    // The ticker is the only setInterval the source uses; mocking it lets the test decide when ticks happen, so a
    // change seen without a tick can only have come from the watcher. Upstream retries the watch at every tick
    // until the directory exists again (attemptPeriodicRewatch).
    t.mock.timers.enable({ apis: ['setInterval'] });
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: 1000 });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const failed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'the removal to fail a reload');
    await rm(h.dir, { recursive: true });
    await failed;
    // (a macrotask first: a check requested while the previous run is finishing is dropped, see the test
    // 'a check requested as the previous run finishes still runs')
    await new Promise((resolve) => setImmediate(resolve));
    // a tick while the directory is missing
    const tickFailed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'the tick to fail a reload');
    t.mock.timers.tick(1000);
    await tickFailed;

    const staging = join(h.root, 'staging');
    await mkdir(staging);
    await writeFile(join(staging, 'p.yaml'), newSet);
    await rename(staging, h.dir);
    // ticks once the directory is back: each one both re-reads and (upstream) re-establishes the watch
    await waitFor('the recreated directory to be loaded', () => {
      t.mock.timers.tick(1000);
      return h.source.current()!.hash === newHash;
    });
    t.mock.timers.tick(1000);
    await h.source.checkAndReload();

    const third = docs(policyAndBinding('p1', "object.metadata.name != 'third'"));
    await primeWatcher(h, 3_000);
    await writeAtomically(join(h.dir, 'p.yaml'), third);
    await converge(h, contentHash(third), 'the watcher to load a change after the directory came back', 3_000);
  });
});

describe('watch renewal after the directory is replaced', () => {
  // Upstream (S/util/filesystem/watchuntil.go WatchUntil) removes and re-adds its watch when the watched path itself
  // is removed or renamed; these tests hold the daemon to the stronger bar that a replaced directory never leaves a
  // change waiting for the tick. The interval is the default minute and every wait ends after a few seconds, so a
  // change seen in time can only have come from a watch.
  const minute = 60_000;
  const soon = 3_000;
  const later = docs(policyAndBinding('p1', "object.metadata.name != 'later'"));
  // The changes these tests make come a while after the replacement, as in the reported case: a watch left on the
  // old directory keeps delivering events for 100-200 ms after it is replaced, and only a later change tells a
  // renewed watch from a dying one. This wait is the scenario, not synchronisation.
  const aWhile = (): Promise<void> => delay(500);

  test('rm -rf and mkdir, then a change', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: minute });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    // in one go, as `rm -rf d && mkdir d` does it: no event is handled in between
    rmSync(h.dir, { recursive: true, force: true });
    mkdirSync(h.dir);
    // the new, empty directory is a valid (empty) set and is applied, as upstream applies it
    await converge(h, '', 'the recreated empty directory to be loaded', soon);
    await aWhile();
    await writeAtomically(join(h.dir, 'p.yaml'), later);
    await converge(h, contentHash(later), 'a change in the recreated directory (the tick is a minute away)', soon);
  });

  test('a new directory renamed into place of the old one, then a change', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: minute });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const staging = join(h.root, 'staging');
    await mkdir(staging);
    await writeFile(join(staging, 'p.yaml'), newSet);
    // the old directory moves away (the watch follows its inode there), the new one takes its name, in one go
    renameSync(h.dir, join(h.root, 'old'));
    renameSync(staging, h.dir);
    await converge(h, newHash, 'the new directory to be loaded', soon);
    await aWhile();
    await writeAtomically(join(h.dir, 'p.yaml'), later);
    await converge(h, contentHash(later), 'a change in the new directory (the tick is a minute away)', soon);
    // a change in the old directory, still watched before the renewal, is not the manifest directory any more
    await writeFile(join(h.root, 'old', 'p.yaml'), goodSet);
    await h.source.checkAndReload();
    assert.equal(h.source.current()?.hash, contentHash(later));
  });

  test('a new directory renamed over the old (emptied) one, then a change', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: minute });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    await rm(join(h.dir, 'p.yaml'));
    for (const f of await readdir(h.dir)) await rm(join(h.dir, f));
    await converge(h, '', 'the emptied directory to be loaded', soon);
    const staging = join(h.root, 'staging');
    await mkdir(staging);
    await writeFile(join(staging, 'p.yaml'), newSet);
    // rename(2) replaces an empty directory atomically: the path never goes missing
    await rename(staging, h.dir);
    await converge(h, newHash, 'the directory renamed over the old one to be loaded', soon);
    await aWhile();
    // the change is a removal, as in the reported case
    await rm(join(h.dir, 'p.yaml'));
    await converge(h, '', 'a file removed from the directory renamed over the old one (the tick is a minute away)', soon);
  });

  test('removed, missing for a while, then created again with content: loaded at once', async (t) => {
    const h = await harness(t, { files: { 'p.yaml': goodSet }, intervalMs: minute });
    h.source.loadInitial();
    await h.start();
    await primeWatcher(h);
    const failed = nextEvent<ReloadEvent>(h.source, 'reload', (e) => e.outcome === 'load-failed', 'the removal to fail a reload', soon);
    await rm(h.dir, { recursive: true, force: true });
    await failed;
    assert.equal(h.source.current()?.hash, goodHash, 'the previous snapshot keeps serving');
    await mkdir(h.dir);
    await writeAtomically(join(h.dir, 'p.yaml'), later);
    await converge(h, contentHash(later), 'the directory that came back to be loaded (the tick is a minute away)', soon);
    await aWhile();
    await writeAtomically(join(h.dir, 'p.yaml'), newSet);
    await converge(h, newHash, 'a later change to be loaded', soon);
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
