// The listener's request deadlines on one timer (lib/server/deadlines.ts): each fires at its time, in deadline order
// whatever the order they were added in, and a cancelled one never fires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Deadlines } from '../../lib/server/deadlines.js';
import { timeoutParameter } from '../../lib/server/request-checks.js';

test('deadlines fire in time order, not before their time, and cancelled ones not at all', async () => {
  const deadlines = new Deadlines();
  const fired: Array<{ readonly name: string; readonly late: number }> = [];
  const start = Date.now();
  let last!: () => void;
  const done = new Promise<void>((resolve) => { last = resolve; });
  const at = (name: string, ms: number, then?: () => void) => deadlines.add(start + ms, () => {
    fired.push({ name, late: Date.now() - (start + ms) });
    then?.();
  });
  at('d', 120, last);
  at('b', 40);
  const cancelled = at('c', 60);
  at('a', 20);
  at('b2', 40);
  cancelled.cancel();
  await done;
  assert.deepEqual(fired.map((f) => f.name), ['a', 'b', 'b2', 'd'], 'earliest first; equal ones in the order added; the cancelled one never');
  for (const f of fired) assert.ok(f.late >= 0, `${f.name} fired ${-f.late} ms early`);
});

test('a deadline added while others were all cancelled still fires', async () => {
  const deadlines = new Deadlines();
  deadlines.add(Date.now() + 5, () => assert.fail('cancelled')).cancel();
  await new Promise<void>((resolve) => deadlines.add(Date.now() + 10, resolve));
});

test('the timeout query parameter is read as URLSearchParams reads it', () => {
  for (const query of ['', 'timeout=10s', 'timeout=500ms', 'timeout=', 'x=1&timeout=5s', 'timeout=5s&timeout=7s', 'timeout=1%30s', 'timeout=1+s', 'timeout=10s;x', 'timeouts=1s', 'TIMEOUT=1s']) {
    assert.equal(timeoutParameter(query), query === '' ? null : new URLSearchParams(query).get('timeout'), query);
  }
});
