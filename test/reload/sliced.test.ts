// A reload decodes, validates and compiles in slices: the event loop runs between them, so serving goes on during
// a large reload, and the result is the synchronous load's — the same snapshot, the same errors, nothing applied
// until the one-reference swap.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { clearCompileCache } from '../../lib/cel/index.js';
import { compileManifests, compileManifestsSliced } from '../../lib/manifest/compile.js';
import { loadManifests, loadManifestsSliced } from '../../lib/manifest/load.js';
import { ManifestError } from '../../lib/manifest/errors.js';
import { readManifestFilesSync } from '../../lib/manifest/files.js';
import { runSliced, runSync } from '../../lib/manifest/steps.js';
import type { Steps } from '../../lib/manifest/steps.js';
import { createLogger } from '../../lib/log/logger.js';
import { createReloadMetrics } from '../../lib/metrics/reload.js';
import { ManifestSource } from '../../lib/reload/manifest-source.js';
import type { ReloadEvent } from '../../lib/reload/manifest-source.js';
import { docs, makeTempDir, policyAndBinding, reloadsTotal, testAPIServerIDHash, valueOf } from './helpers.js';

const VAP = 'ValidatingAdmissionPolicy';

/** `files` files of `perFile` policies each; `tag` makes every expression new (a cold compile). */
function writePolicies(dir: string, files: number, perFile: number, tag: string): void {
  for (let f = 0; f < files; f++) {
    const parts: string[] = [];
    for (let i = 0; i < perFile; i++) {
      const stem = `p-${f}-${i}`;
      parts.push(policyAndBinding(stem, `object.metadata.name != '${tag}-${stem}' && (!has(object.data) || size(object.data) < ${f * perFile + i + 1})`));
    }
    writeFileSync(join(dir, `f-${String(f).padStart(3, '0')}.yaml`), docs(...parts));
  }
}

/** Runs `work` while counting the event loop's turns, and checks `during` at each one. */
async function turnsDuring<T>(work: Promise<T>, during: () => void): Promise<{ value: T; turns: number }> {
  let done = false;
  let turns = 0;
  const counting = (async () => {
    while (!done) {
      await nextTurn();
      if (done) break;
      during();
      turns++;
    }
  })();
  const value = await work.finally(() => {
    done = true;
  });
  await counting;
  return { value, turns };
}

describe('runSync and runSliced', () => {
  function* counting(n: number, spinMs: number): Steps<number> {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const until = performance.now() + spinMs;
      while (performance.now() < until);
      sum += i;
      yield;
    }
    return sum;
  }

  test('give the same result; sliced lets the event loop run between slices', async () => {
    assert.equal(runSync(counting(20, 0)), 190);
    // 20 steps of 3 ms in slices of 8 ms: the event loop gets several turns
    const { value, turns } = await turnsDuring(runSliced(counting(20, 3), 8), () => {});
    assert.equal(value, 190);
    assert.ok(turns >= 3, `${turns} turns`);
  });

  test('an error thrown by a step rejects', async () => {
    function* failing(): Steps<void> {
      yield;
      throw new ManifestError('boom');
    }
    await assert.rejects(runSliced(failing()), /boom/);
  });
});

describe('a sliced load is the synchronous load', () => {
  test('same manifests, same compiled expressions, same error for a bad set', async (t) => {
    const { path: dir, cleanup } = await makeTempDir();
    t.after(cleanup);
    writePolicies(dir, 3, 4, 'a');
    const files = readManifestFilesSync(dir);
    const sync = loadManifests(VAP, files);
    const sliced = await loadManifestsSliced(VAP, files);
    assert.deepEqual(sliced, sync);
    const compiledSync = compileManifests(VAP, sync);
    const compiledSliced = await compileManifestsSliced(VAP, sliced);
    assert.ok(compiledSync.family === 'policy' && compiledSliced.family === 'policy');
    assert.deepEqual(compiledSliced.hooks.map((h) => h.expressions.map((e) => [e.path, e.compiled.expression])), compiledSync.hooks.map((h) => h.expressions.map((e) => [e.path, e.compiled.expression])));

    writeFileSync(join(dir, 'f-001.yaml'), policyAndBinding('bad', 'object.metadata.name ==='));
    const bad = readManifestFilesSync(dir);
    const syncError = (() => {
      try {
        compileManifests(VAP, loadManifests(VAP, bad));
      } catch (err) {
        return err as Error;
      }
      return undefined;
    })();
    assert.ok(syncError instanceof ManifestError);
    await assert.rejects(async () => compileManifestsSliced(VAP, await loadManifestsSliced(VAP, bad)), (err: unknown) => err instanceof ManifestError && err.message === syncError.message);
  });
});

describe('ManifestSource reloads in slices', () => {
  test('serving turns run during a large reload, which swaps in at once and counts once', async (t) => {
    const { path: dir, cleanup } = await makeTempDir();
    t.after(cleanup);
    writePolicies(dir, 30, 10, 'first');
    const registry = new Registry();
    const source = new ManifestSource({ plugin: VAP, dir, watch: false, metrics: createReloadMetrics(registry, testAPIServerIDHash), logger: createLogger({ write: () => {} }) });
    const initial = source.loadInitial();
    const events: ReloadEvent[] = [];
    source.on('reload', (e) => events.push(e));

    // 300 policies, every expression new: far more than one slice of work
    writePolicies(dir, 30, 10, 'second');
    clearCompileCache();
    const { turns } = await turnsDuring(source.checkAndReload(), () => {
      // between slices, requests see the previous snapshot, whole
      assert.equal(source.current(), initial);
    });
    assert.ok(turns >= 2, `the event loop ran ${turns} times during the reload`);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.outcome, 'reloaded');
    const reloaded = source.current()!;
    assert.notEqual(reloaded, initial);
    assert.equal(reloaded.counts.ValidatingAdmissionPolicy, 300);
    const text = await registry.metrics();
    assert.equal(valueOf(text, reloadsTotal, { status: 'success', plugin: VAP, apiserver_id_hash: testAPIServerIDHash }), 2);

    // a bad set, found at the end of a sliced load, replaces nothing
    writePolicies(dir, 30, 10, 'third');
    writeFileSync(join(dir, 'f-029.yaml'), policyAndBinding('bad', 'object.metadata.name ==='));
    clearCompileCache();
    await turnsDuring(source.checkAndReload(), () => assert.equal(source.current(), reloaded));
    assert.equal(events.at(-1)!.outcome, 'load-failed');
    assert.equal(source.current(), reloaded);
    assert.equal(valueOf(await registry.metrics(), reloadsTotal, { status: 'failure', plugin: VAP, apiserver_id_hash: testAPIServerIDHash }), 1);
  });
});
