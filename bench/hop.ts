// The thread hand-off, measured in-process (no HTTP, no TLS): what drove the policy pool's settings in
// lib/admission/pool/pool.ts. Run: npm run build && node dist/bench/hop.js [--seconds 1.5]
//
// 64 requests kept in flight for a few seconds per configuration; the main thread does what the daemon's main
// thread does per request (parse the body, match, encode the task once, hand it over, decode the answer). Reported:
// requests/s and process CPU (all threads) per request.
//   1. task input: copied buffer / transferred buffer / SharedArrayBuffer slot × answer: protobuf copied /
//      protobuf transferred / plain structured clone — no-op worker (decode only), one request per Piscina task
//   2. concurrentTasksPerWorker × atomics — no-op worker, one request per Piscina task
//   3. the real thing: lib/admission/pool's PolicyPool and validate handler, 20 policies on the 4 KB pod, one
//      request per Piscina task (maxBatch 1) or the requests of one event-loop turn together (maxBatch 32),
//      against evaluation on the main thread
//   4. the same at a fixed rate of 1,000 requests/s (open loop: requests arrive one at a time, the worker sleeps
//      between them), and what waking a sleeping thread costs on this machine (plain worker_threads ping-pong: at
//      that rate, all at once, and in closed loops of 1, 2 and 8 messages in flight)
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { AdmissionRequest } from '../lib/api/admission.js';
import { decodeBatchResults, encodeTask } from '../lib/admission/pool/codec.js';
import type { PolicyTask } from '../lib/admission/pool/codec.js';
import { PolicyPool } from '../lib/admission/pool/pool.js';
import type { PolicyPoolOptions } from '../lib/admission/pool/pool.js';
import { createValidateHandler } from '../lib/review/validate-handler.js';
import { planValidatingPolicies } from '../lib/admission/validating/dispatcher.js';
import type { ValidatingPlan } from '../lib/admission/validating/dispatcher.js';
import { loadSnapshotSync } from '../lib/reload/pipeline.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 1.5;
const snapshot = loadSnapshotSync('ValidatingAdmissionPolicy', join(root, 'testdata', 'bench', 'policies'));
const hooks = snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
const body = readFileSync(join(root, 'testdata', 'bench', 'pod-review.json'));
const parse = (): AdmissionRequest => (JSON.parse(body.toString('utf8')) as { request: AdmissionRequest }).request;

type Input = 'transfer' | 'copy' | 'sab';
type Output = 'proto-transfer' | 'proto-copy' | 'clone';
interface HopConfig {
  readonly input: Input;
  readonly output: Output;
  readonly concurrentTasksPerWorker: number;
  readonly atomics: 'sync' | 'async' | 'disabled';
}

const slotSize = 16 * 1024;
const slots = 128;

function taskOf(plan: ValidatingPlan): PolicyTask {
  return {
    snapshotHash: snapshot.hash,
    review: body,
    deadline: Date.now() + 10_000,
    matches: plan.evaluate.map((i) => {
      const p = plan.policies[i]!;
      return { hook: p.hook, kind: p.target!.kind, resource: p.target!.resource, subResource: p.target!.subResource };
    }),
  };
}

/** 64 requests in flight for `seconds`: requests/s and process CPU µs per request. */
async function drive(one: () => Promise<unknown>): Promise<{ rate: number; cpu: number }> {
  const loop = async (ms: number): Promise<number> => {
    let n = 0;
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (performance.now() < end) {
        await one();
        n++;
      }
    }));
    return n;
  };
  await loop(500);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const n = await loop(seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { rate: n / elapsed, cpu: (c.user + c.system) / n };
}

async function hop(config: HopConfig): Promise<{ rate: number; cpu: number }> {
  const sab = config.input === 'sab' ? new SharedArrayBuffer(slotSize * slots) : undefined;
  const sabView = sab ? new Uint8Array(sab) : undefined;
  const free: number[] = Array.from({ length: slots }, (_, i) => i);
  const pool = new Piscina({
    filename: fileURLToPath(new URL('./hop-worker.js', import.meta.url)),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Infinity,
    concurrentTasksPerWorker: config.concurrentTasksPerWorker,
    atomics: config.atomics,
    workerData: { snapshot: { plugin: snapshot.plugin, hash: snapshot.hash, manifests: snapshot.manifests }, sab, work: 'noop', output: config.output },
  });
  try {
    return await drive(async () => {
      const encoded = encodeTask(taskOf(planValidatingPolicies(hooks, parse())));
      let result: unknown;
      if (config.input === 'sab') {
        const slot = free.pop()!;
        sabView!.set(encoded, slot * slotSize);
        try {
          result = await pool.run([slot * slotSize, encoded.length]);
        } finally {
          free.push(slot);
        }
      } else {
        result = await pool.run([encoded], config.input === 'transfer' ? { transferList: [encoded.buffer as ArrayBuffer] } : {});
      }
      if (result instanceof Uint8Array) decodeBatchResults(result);
    });
  } finally {
    await pool.destroy();
  }
}

async function real(options: Partial<PolicyPoolOptions> | 'main-thread'): Promise<{ rate: number; cpu: number }> {
  const pool = options === 'main-thread' ? undefined : new PolicyPool({ threads: 1, snapshot, ...options });
  await pool?.ready();
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });
  try {
    return await drive(() => handler.handle({ request: parse(), body }, { deadline: Date.now() + 10_000, signal: new AbortController().signal }));
  } finally {
    await pool?.close();
  }
}

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? process.argv[onlyArg + 1] : undefined;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** Runs every configuration of a section once per round, alternating (drifting machine load hits all alike). */
async function section(title: string, configs: Array<[string, () => Promise<{ rate: number; cpu: number }>]>): Promise<void> {
  console.log(title);
  const results = configs.map(() => [] as Array<{ rate: number; cpu: number }>);
  for (let r = 0; r < rounds; r++) for (let i = 0; i < configs.length; i++) results[i]!.push(await configs[i]![1]());
  configs.forEach(([label], i) => {
    const rs = results[i]!;
    console.log(`  ${label.padEnd(66)}${median(rs.map((x) => x.rate)).toFixed(0).padStart(7)} req/s${median(rs.map((x) => x.cpu)).toFixed(0).padStart(7)} µs CPU/req   (CPU ${rs.map((x) => x.cpu.toFixed(0)).join('/')})`);
  });
}

const base: HopConfig = { input: 'copy', output: 'proto-copy', concurrentTasksPerWorker: 16, atomics: 'disabled' };
console.log(`Piscina hand-off, 1 worker, 64 requests in flight, ${seconds} s per configuration and round, median of ${rounds} rounds (body ${body.length} B, 20 policies matched)`);
if (!only || only === '1') await section('1. task input × answer (no-op worker, concurrentTasksPerWorker 16, atomics disabled, one request per task)', [
  ['input copy, answer proto-copy', () => hop(base)],
  ['input transfer, answer proto-copy', () => hop({ ...base, input: 'transfer' })],
  ['input SharedArrayBuffer slot, answer proto-copy', () => hop({ ...base, input: 'sab' })],
  ['input copy, answer proto-transfer', () => hop({ ...base, output: 'proto-transfer' })],
  ['input copy, answer structured clone', () => hop({ ...base, output: 'clone' })],
]);
if (!only || only === '2') await section('2. concurrentTasksPerWorker × atomics (no-op worker, copy / proto-copy, one request per task)', (['sync', 'async', 'disabled'] as const).flatMap((atomics) =>
  [1, 16, 64].map((c): [string, () => Promise<{ rate: number; cpu: number }>] => [`concurrentTasksPerWorker ${c}, atomics ${atomics}`, () => hop({ ...base, atomics, concurrentTasksPerWorker: c })])));
if (!only || only === '3') await section('3. the policy pool (lib/admission/pool) evaluating 20 policies on the 4 KB pod', [
  ['main thread, no pool', () => real('main-thread')],
  ['Piscina defaults: 1 task per worker, atomics sync, maxBatch 1', () => real({ concurrentTasksPerWorker: 1, atomics: 'sync', maxBatch: 1 })],
  ['concurrentTasksPerWorker 16, atomics sync, maxBatch 1', () => real({ atomics: 'sync', maxBatch: 1 })],
  ['concurrentTasksPerWorker 16, atomics disabled, maxBatch 1', () => real({ maxBatch: 1 })],
  ['concurrentTasksPerWorker 16, atomics sync, maxBatch 32', () => real({ atomics: 'sync' })],
  ['concurrentTasksPerWorker 16, atomics async, maxBatch 32', () => real({ atomics: 'async' })],
  ['concurrentTasksPerWorker 16, atomics disabled, maxBatch 32', () => real({ atomics: 'disabled' })],
]);

/** Requests at a fixed rate, each timed from when it was due: CPU µs per request, p50 and p99 ms. */
async function atRate(options: Partial<PolicyPoolOptions> | 'main-thread', rate: number): Promise<string> {
  const pool = options === 'main-thread' ? undefined : new PolicyPool({ threads: 1, snapshot, ...options });
  await pool?.ready();
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });
  const one = (): Promise<unknown> => handler.handle({ request: parse(), body }, { deadline: Date.now() + 10_000, signal: new AbortController().signal });
  try {
    for (let i = 0; i < 300; i++) await one();
    const total = Math.round(rate * seconds * 2);
    const latencies: number[] = [];
    const pending: Array<Promise<unknown>> = [];
    const start = performance.now();
    const c0 = process.cpuUsage();
    let sent = 0;
    await new Promise<void>((done) => {
      const tick = (): void => {
        while (sent < total && start + (sent * 1000) / rate <= performance.now()) {
          const due = start + (sent * 1000) / rate;
          sent++;
          pending.push(one().then(() => latencies.push(performance.now() - due)));
        }
        if (sent >= total) return done();
        setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
      };
      tick();
    });
    await Promise.all(pending);
    const c = process.cpuUsage(c0);
    latencies.sort((a, b) => a - b);
    const p = (q: number): string => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
    return `${((c.user + c.system) / total).toFixed(0).padStart(5)} µs CPU/req   p50 ${p(0.5)} ms   p99 ${p(0.99)} ms`;
  } finally {
    await pool?.close();
  }
}

/**
 * CPU per round trip of a 4 KB message to a plain worker thread that echoes it: one at a time at `rate`/s, all at once,
 * or a closed loop of `inFlight` messages (each echo sends the next, as the pool's batches in flight do: with one or
 * two both threads sleep between them, with eight neither does).
 */
async function pingPong(rate: number | 'burst' | { readonly inFlight: number }): Promise<string> {
  const worker = new Worker("require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));", { eval: true });
  await new Promise((r) => worker.once('online', r));
  try {
    const total = typeof rate === 'number' ? Math.round(rate * seconds) : 20_000;
    const inFlight = typeof rate === 'object' ? rate.inFlight : 0;
    let received = 0;
    const done = new Promise<void>((r) => worker.on('message', () => {
      if (++received === total) r();
      else if (received + inFlight <= total) worker.postMessage(new Uint8Array(4096));
    }));
    const c0 = process.cpuUsage();
    if (rate === 'burst') for (let i = 0; i < total; i++) worker.postMessage(new Uint8Array(4096));
    else if (typeof rate === 'object') for (let i = 0; i < inFlight; i++) worker.postMessage(new Uint8Array(4096));
    else {
      const start = performance.now();
      let sent = 0;
      await new Promise<void>((r) => {
        const tick = (): void => {
          while (sent < total && start + (sent * 1000) / rate <= performance.now()) {
            sent++;
            worker.postMessage(new Uint8Array(4096));
          }
          if (sent >= total) return r();
          setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
        };
        tick();
      });
    }
    await done;
    const c = process.cpuUsage(c0);
    return `${((c.user + c.system) / total).toFixed(0).padStart(5)} µs CPU per round trip`;
  } finally {
    await worker.terminate();
  }
}

if (!only || only === '4') {
  console.log(`4. one request at a time: 1,000 requests/s for ${seconds * 2} s, each timed from when it was due (the driver's timer adds up to ~1 ms)`);
  for (const [label, options] of [
    ['main thread, no pool', 'main-thread'],
    ['pool, the daemon\'s settings', {}],
    ['pool, atomics sync', { atomics: 'sync' }],
  ] as const) console.log(`  ${label.padEnd(66)}${await atRate(options, 1000)}`);
  console.log('   plain worker_threads, 4 KB echo:');
  for (const rate of [1000, 'burst'] as const) console.log(`  ${(rate === 'burst' ? '20,000 messages at once (pipelined)' : `one at a time, ${rate}/s (the worker sleeps in between)`).padEnd(66)}${await pingPong(rate)}`);
  for (const inFlight of [1, 2, 8]) console.log(`  ${`closed loop, ${inFlight} in flight (20,000 round trips)`.padEnd(66)}${await pingPong({ inFlight })}`);
}
