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
import { waitFor } from './helpers.js';

const hour = 3_600_000;

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
    try {
      // the same turn of the event loop: chokidar has not set its fs watch yet
      writeFileSync(`${file}.tmp`, `after ${round}\n`);
      renameSync(`${file}.tmp`, file);
      await waitFor(`round ${round}: the change (the poll is an hour away)`, () => changes > 0, 3_000);
    } finally {
      stop.abort();
      await watching;
    }
    // the check once the watch is live and the rename's own event both read the file: one change, one call
    assert.equal(changes, 1, `round ${round}`);
  }
  assert.deepEqual(errors, []);
});
