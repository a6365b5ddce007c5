// lib/reload/file-watch.ts, the registration file's watch: a change is seen through the watch, not the poll, also
// when it lands before chokidar's fs watch is live. Upstream runs its handler right after a watch is registered, to
// catch what changed before it (staging/src/k8s.io/apiserver/pkg/util/filesystem/watchuntil.go, WatchUntil).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../lib/log/logger.js';
import { watchFile } from '../../lib/reload/file-watch.js';

const hour = 3_600_000;

/** Resolves true once `changed()` holds, false after `limitMs`. */
async function within(changed: () => boolean, limitMs: number): Promise<boolean> {
  const deadline = performance.now() + limitMs;
  while (!changed()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

test('a file replaced right after the watch begins, before it is live, is seen without waiting for the poll', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sad-file-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const errors: string[] = [];
  const logger = createLogger({ format: 'json', verbosity: 0, write: (line) => errors.push(line), source: 'test' });
  // several rounds: the window is a few milliseconds, and each round opens it anew
  for (let round = 0; round < 5; round++) {
    const file = join(dir, `registration-${round}.yaml`);
    writeFileSync(file, 'before\n');
    const stop = new AbortController();
    let changes = 0;
    const watching = watchFile({ file, intervalMs: hour, onChange: () => changes++, logger }, stop.signal);
    // the same turn of the event loop: chokidar has not set its fs watch yet
    writeFileSync(`${file}.tmp`, `after ${round}\n`);
    renameSync(`${file}.tmp`, file);
    const seen = await within(() => changes > 0, 3_000);
    stop.abort();
    await watching;
    assert.ok(seen, `round ${round}: the change was not seen within 3 s (the poll is an hour away)`);
    assert.equal(changes, 1, `round ${round}: one change, one call`);
  }
  assert.deepEqual(errors, []);
});

test('a rewrite with the same content is no change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sad-file-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const logger = createLogger({ format: 'json', verbosity: 0, write: () => {}, source: 'test' });
  const file = join(dir, 'registration.yaml');
  writeFileSync(file, 'same\n');
  const stop = new AbortController();
  let changes = 0;
  const watching = watchFile({ file, intervalMs: hour, onChange: () => changes++, logger }, stop.signal);
  t.after(async () => {
    stop.abort();
    await watching;
  });
  writeFileSync(file, 'same\n');
  writeFileSync(file, 'different\n');
  assert.ok(await within(() => changes > 0, 3_000), 'the different content was not seen');
  writeFileSync(file, 'different\n');
  writeFileSync(file, 'last\n');
  assert.ok(await within(() => changes > 1, 3_000), 'the last content was not seen');
  assert.equal(changes, 2);
});
