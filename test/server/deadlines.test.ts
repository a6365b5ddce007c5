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

test('with every deadline cancelled the timer stays armed but holds the process no longer; a later deadline holds it again', async () => {
  const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const before = timers();
  const deadlines = new Deadlines();
  const first = deadlines.add(Date.now() + 60_000, () => assert.fail('cancelled'));
  assert.equal(timers(), before + 1);
  first.cancel();
  assert.equal(timers(), before, 'an idle listener keeps no timer alive (shutdown does not wait for it)');
  // later than the armed time: no new timer, the armed one is held again, and fires it when due by re-arming
  let fired = false;
  const second = deadlines.add(Date.now() + 60_001, () => { fired = true; });
  assert.equal(timers(), before + 1);
  second.cancel();
  assert.equal(timers(), before);
  assert.equal(fired, false);
  await new Promise<void>((resolve) => deadlines.add(Date.now() + 10, resolve));
});

test('a queue that empties and refills, as under load, does not arm a timer each time', (t) => {
  let armed = 0;
  const setTimeoutBefore = globalThis.setTimeout;
  t.after(() => { globalThis.setTimeout = setTimeoutBefore; });
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    armed++;
    return setTimeoutBefore(...args);
  }) as typeof setTimeout;
  const deadlines = new Deadlines();
  const start = Date.now() + 60_000;
  for (let i = 0; i < 100; i++) deadlines.add(start + i, () => assert.fail('cancelled')).cancel();
  assert.equal(armed, 1);
  // a shorter deadline than the armed one still arms for its own time
  deadlines.add(start - 1, () => assert.fail('cancelled')).cancel();
  assert.equal(armed, 2);
});

test('the timeout query parameter is read as URLSearchParams reads it', () => {
  for (const query of ['', 'timeout=10s', 'timeout=500ms', 'timeout=', 'x=1&timeout=5s', 'timeout=5s&timeout=7s', 'timeout=1%30s', 'timeout=1+s', 'timeout=10s;x', 'timeouts=1s', 'TIMEOUT=1s']) {
    assert.equal(timeoutParameter(query), query === '' ? null : new URLSearchParams(query).get('timeout'), query);
  }
});
