// The executable's V8 settings. Its interrupt budget (cmd/engine.ts): a function reaches V8's optimizing tier after
// about a quarter of the work Node's default interrupt budget asks, unless the command line names a budget of its own.
// Observed the way V8's own tests do, with `%GetOptimizationStatus` (--allow-natives-syntax) in a child process,
// compilation synchronous so that the count is the work V8 waited for and not how long a background compile took.
// Its memory reducer: below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executableArgv, shebangNodeFlags } from '../../bench/util.js';
import { env } from '../packaging/helpers.js';

const entry = fileURLToPath(new URL('../../cmd/static-admissiond.js', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

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

// The #! line of cmd/static-admissiond.ts and cmd/engine.ts: V8 decides whether a heap has a memory reducer when it
// creates it, so the main thread's can only be switched off on node's command line, and the workers' is switched back
// on before they start (ADR 0003, "Eighth pass").

// Run as the command exits (its flags set by then): the main thread and a new worker each grow their heap, collect,
// and sit idle; V8's memory reducer collects again ~8 s later, marked "all external memory" (Node's GC entry flag 32).
const reducerProbe = `
import { Worker } from 'node:worker_threads';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
function idleAfterGrowth(PerformanceObserver, flag, gc, onReduced) {
  const obs = new PerformanceObserver((list) => { if (list.getEntries().some((e) => e.detail.flags & flag)) onReduced(); });
  obs.observe({ entryTypes: ['gc'] });
  let keep = Array.from({ length: 300000 }, (_, i) => ({ i, s: 'x' + i }));
  gc();
  keep = null;
  return obs;
}
const exit = process.exit;
process.exit = (code) => {
  setFlagsFromString('--expose-gc');
  let main = 0;
  idleAfterGrowth(PerformanceObserver, constants.NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY, runInNewContext('gc'), () => main++);
  const worker = new Worker(\`const { parentPort } = require('node:worker_threads'); const { PerformanceObserver, constants } = require('node:perf_hooks');
    (\${idleAfterGrowth})(PerformanceObserver, constants.NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY, gc, () => parentPort.postMessage('reduced'));
    setTimeout(() => parentPort.postMessage('none'), 30000);\`, { eval: true });
  worker.once('message', (seen) => setTimeout(() => {
    process.stderr.write('memory reducer: main thread ' + main + ', worker ' + seen + '\\n');
    worker.terminate().then(() => exit.call(process, code));
  }, 1500));
};
`;

test('run as a command, the executable gives its workers V8\'s memory reducer and not its main thread', async () => {
  chmodSync(entry, 0o755); // as npm's prepare leaves it (scripts/prepare.mjs): a build with tsc alone writes 0644
  // the #! line's `env` finds the node running these tests first (the packaging tests' env); NODE_OPTIONS reaches it
  const child = spawn(entry, ['version'], { env: { ...env, NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(reducerProbe)}` } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [status] = await once(child, 'close') as [number | null];
  assert.equal(status, 0, stderr);
  assert.match(stderr, /memory reducer: main thread 0, worker reduced/);
});

test('run as a command, the executable starts node with its #! line\'s flags; npm start and the benches start it with the same', () => {
  const probe = `process.on('exit', () => process.stderr.write('execArgv: ' + JSON.stringify(process.execArgv) + '\\n'));`;
  const r = spawnSync(entry, ['version'], { encoding: 'utf8', env: { ...env, NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(probe)}` } });
  assert.equal(r.status, 0, r.stderr);
  const flags = shebangNodeFlags(readFileSync(entry, 'utf8'));
  assert.deepEqual(flags, ['--no-memory-reducer']);
  assert.deepEqual(JSON.parse(/execArgv: (.*)/.exec(r.stderr)?.[1] ?? 'null'), flags);
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  assert.equal(start, `node ${flags.join(' ')} dist/cmd/static-admissiond.js serve --dev`);
  assert.deepEqual(executableArgv(root), [...flags, join(root, 'dist', 'cmd', 'static-admissiond.js')]);
});
