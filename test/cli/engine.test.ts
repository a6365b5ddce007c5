// The executable's V8 setting (cmd/engine.ts): a function reaches V8's optimizing tier after about a quarter of the
// work Node's default interrupt budget asks, unless the command line names a budget of its own. Observed the way V8's
// own tests do, with `%GetOptimizationStatus` (--allow-natives-syntax) in a child process, compilation synchronous so
// that the count is the work V8 waited for and not how long a background compile took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../../cmd/static-admissiond.js', import.meta.url));

// Calls a small function until V8 has optimized it (TurboFan: status bit 6), at exit, after whatever the process ran.
const countCalls = `
function probe(o) { let s = 0; for (const k in o) { const v = o[k]; if (typeof v === 'string') s += v.length; else if (Array.isArray(v)) s += v.length * 2; else s += 1; } return s; }
process.on('exit', () => {
  const o = { a: 'x', b: [1, 2], c: 'zzz', d: 4 };
  let calls = 0;
  while (calls < 1e6) { probe(o); calls++; if (%GetOptimizationStatus(probe) & 64) break; }
  process.stderr.write('calls to optimize: ' + calls + '\\n');
});`;

/** Runs `static-admissiond version` with `nodeFlags`; how many calls the probe took to be optimized. */
function callsToOptimize(...nodeFlags: string[]): number {
  const r = spawnSync(process.execPath, [
    '--allow-natives-syntax', '--no-concurrent-recompilation', ...nodeFlags,
    '--import', `data:text/javascript,${encodeURIComponent(countCalls)}`, entry, 'version',
  ], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const m = /calls to optimize: (\d+)/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const calls = Number(m[1]);
  assert.ok(calls < 1e6, 'the probe was never optimized');
  return calls;
}

test('the executable lowers V8\'s interrupt budget: functions reach the optimizing tier after less work', () => {
  const tuned = callsToOptimize();
  // 67,584 is Node 20's default budget: named on the command line, it is the operator's and stays
  const untuned = callsToOptimize('--interrupt-budget=67584');
  assert.ok(tuned * 3 <= untuned, `optimized after ${tuned} calls with the executable's budget, ${untuned} with V8's default`);
});

test('a budget named on the command line is left as it is, in either spelling', () => {
  const named = callsToOptimize('--interrupt-budget=200000');
  assert.ok(named > callsToOptimize('--interrupt-budget=67584'), 'a larger budget named: later than the default');
  assert.equal(callsToOptimize('--interrupt_budget=200000'), named);
});
