// Isolation from runaway evaluations (docs/adr/0004, lib/admission/pool/held.ts): a worker held by one long
// evaluation gets no new work, a reserve worker takes it instead, a batch is evaluated smallest request first, the
// request path evaluates inline a small request while every worker is held, and a held worker's priority is lowered.
// A worker hung by the test hook stands in for a runaway: it holds its thread for as long as the test runs.
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PolicyPool } from '../../../lib/admission/pool/pool.js';
import type { PolicyPoolOptions, PoolReview } from '../../../lib/admission/pool/pool.js';
import { HeldWorkers } from '../../../lib/admission/pool/held.js';
import type { LoadBalancer } from '../../../lib/admission/pool/held.js';
import { heldNiceFor, mayRestorePriority, processNice } from '../../../lib/admission/pool/priority.js';
import { createWatchdogBuffer, testHookHang, watchdogLayout } from '../../../lib/admission/pool/protocol.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { InlineRule, policyPath } from '../../../lib/review/dispatch.js';
import { packageRoot } from './helpers.js';

const validating = loadSnapshotSync('ValidatingAdmissionPolicy', join(packageRoot, 'testdata/bench/policies'));
const pod = readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'));

/** The bench pod as the hook's hanging request, padded to `bytes` (an annotation) so that it is the larger one. */
function hanging(bytes: number): Buffer {
  const review = JSON.parse(pod.toString('utf8')) as { request: { uid: string; object: { metadata: { annotations?: Record<string, string> } } } };
  review.request.uid = testHookHang;
  review.request.object.metadata.annotations = { pad: 'x'.repeat(Math.max(0, bytes - pod.length)) };
  return Buffer.from(JSON.stringify(review));
}

async function startPool(t: TestContext, options: Partial<PolicyPoolOptions>): Promise<PolicyPool> {
  const pool = new PolicyPool({ threads: 1, snapshots: [validating], testHooks: true, ...options });
  // the hung worker is terminated first (as past its deadline): a pool closes once its workers have stopped
  t.after(async () => {
    pool.checkOverruns(Number.MAX_SAFE_INTEGER);
    await pool.close();
  });
  await pool.ready();
  return pool;
}

const task = (body: Buffer, timeoutMs = 60_000) => ({ endpoint: '/validate', body: Uint8Array.from(body), deadline: Date.now() + timeoutMs, snapshotHash: validating.hash });

async function untilHeld(pool: PolicyPool, n: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (pool.heldWorkers() < n) {
    assert.ok(Date.now() < deadline, `${n} worker(s) held`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function allowed(r: PoolReview): boolean {
  return 'answer' in r && r.answer.status === 200 && Buffer.from(r.answer.body).toString('utf8').includes('"allowed":true');
}

test('a request is not queued behind a held worker: the reserve worker answers it', async (t) => {
  const pool = await startPool(t, { reserveThreads: 1 });
  assert.equal(pool.threads, 2, 'one regular worker and one reserve');
  void pool.review(task(hanging(8_192)));
  await untilHeld(pool, 1);
  // Piscina's own balancer would give this to the held worker (as much room as the idle one): it would never come back
  assert.ok(allowed(await pool.review(task(pod))));
  assert.ok(allowed(await pool.review(task(pod))), 'and the next');
  assert.equal(pool.heldWorkers(), 1, 'the runaway still runs');
});

test('the balancer: an idle regular worker, else the least busy regular one not held, else a reserve, else none', () => {
  const table = watchdogLayout(createWatchdogBuffer(4));
  const now = Date.now();
  // threads 11 and 12 regular, 13 a reserve; 11 has been evaluating one request for 50 ms, 12 for 1 ms
  [11, 12, 13].forEach((id, i) => { table.owners[i] = id; });
  table.busySince[0] = now - 50;
  table.busySince[1] = now - 1;
  const held = new HeldWorkers(table, 5, false);
  const balance = held.balancer(2, 16);
  type Worker = Parameters<LoadBalancer>[1][number];
  const worker = (id: number, currentUsage: number): Worker => ({ id, currentUsage }) as unknown as Worker;
  const pick = (...workers: Worker[]): number | undefined => balance({} as Parameters<LoadBalancer>[0], workers)?.id;
  assert.equal(pick(worker(11, 1), worker(12, 0), worker(13, 0)), 12, 'an idle regular worker');
  assert.equal(pick(worker(11, 1), worker(12, 2), worker(13, 0)), 12, 'a regular worker not held before a reserve: under load the reserve sleeps');
  // Piscina's LeastBusyBalancer would pick 11: the fewest tasks, but behind a runaway
  assert.equal(pick(worker(11, 1), worker(12, 2), worker(13, 1)), 12, 'the regular worker that is not held');
  table.busySince[1] = now - 50;
  assert.equal(pick(worker(11, 1), worker(12, 2), worker(13, 3)), 13, 'every regular one held: the reserve');
  assert.equal(pick(worker(11, 1), worker(12, 2), worker(13, 0)), 13, 'an idle reserve');
  table.busySince[2] = now - 50;
  assert.equal(pick(worker(11, 1), worker(12, 2), worker(13, 3)), undefined, 'every worker held: none, the task waits in the queue');
  assert.equal(held.heldBy([11, 12, 13]), 0, 'no sizes written: 0');
  table.busyBytes[0] = 30_000;
  table.busyBytes[1] = 20_000;
  table.busyBytes[2] = 40_000;
  assert.equal(held.heldBy([11, 12, 13]), 20_000, 'the smallest request holding a worker');
  table.busySince[2] = 0;
  assert.equal(held.heldBy([11, 12, 13]), 0, 'one worker not held: 0');
});

test('the balancer: a regular worker busy for over a millisecond with a request more than twice the largest being placed is passed over too', () => {
  const table = watchdogLayout(createWatchdogBuffer(4));
  const now = Date.now();
  // thread 11 regular, 12 a reserve; 11 has been evaluating a 24 KB request for 2 ms: not held yet (5 ms)
  [11, 12].forEach((id, i) => { table.owners[i] = id; });
  table.busySince[0] = now - 2;
  table.busyBytes[0] = 24_000;
  const held = new HeldWorkers(table, 5, false);
  const balance = held.balancer(1, 16);
  type Worker = Parameters<LoadBalancer>[1][number];
  const worker = (id: number, currentUsage: number): Worker => ({ id, currentUsage }) as unknown as Worker;
  const pick = (): number | undefined => balance({} as Parameters<LoadBalancer>[0], [worker(11, 1), worker(12, 0)])?.id;
  assert.equal(pick(), 11, 'the batch\'s size unknown: the regular worker, as before');
  held.placing = 4_000;
  assert.equal(pick(), 12, 'a 4 KB batch: the reserve, not behind what may be a runaway');
  held.placing = 12_000;
  assert.equal(pick(), 11, 'a batch of half its size or more: the regular worker (it may cost as much)');
  held.placing = 4_000;
  const patient = held.balancer(1, 16, 60_000);
  assert.equal(patient({} as Parameters<LoadBalancer>[0], [worker(11, 1), worker(12, 0)])?.id, 11, 'busy for less than the threshold: the regular worker (a normal evaluation of a large object is short)');
});

test('requests of one turn are batched by size, smallest first: a small request does not wait behind a large one', async (t) => {
  const pool = await startPool(t, { reserveThreads: 0 });
  // submitted in one turn of the event loop: one batch for the one worker, the large hanging request first
  const hung = pool.review(task(hanging(16_384)));
  const small = pool.review(task(pod));
  assert.ok(allowed(await small));
  void hung;
});

test('while every worker is held, the request path evaluates a request of less than half their size inline', async (t) => {
  const pool = await startPool(t, { reserveThreads: 0 });
  void pool.review(task(hanging(16_384)));
  await untilHeld(pool, 1);
  const sent = pool.tasksSent;
  // the rule alone would send everything to the pool (always busy)
  const rule = new InlineRule({ busyAbove: -1, idleBelow: -1, loadArrivals: 0 });
  const validate = policyPath({ endpoint: '/validate', snapshot: () => validating, pool, rule, thread: {} });
  const d = { endpoint: '/validate', body: pod, deadline: Date.now() + 10_000, timeoutMs: 10_000, signal: new AbortController().signal };
  const answer = await validate(d).answer;
  assert.match(Buffer.from(answer.body).toString('utf8'), /"allowed":true/);
  assert.equal(pool.tasksSent, sent, 'answered on this thread, not handed to the held worker');
  // a request as large as the one holding the worker is not: it may be another runaway
  assert.equal(rule.inlineWhileHeld(pool.heldBy(), 9_000, validating), false);
  assert.equal(rule.inlineWhileHeld(pool.heldBy(), pod.length, validating), true);
});

/** The nice values of this process's threads (/proc/self/task/N/stat, field 19). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
}

test('a held worker runs at a lower priority (where the process may raise it back)', { skip: process.platform !== 'linux' || !mayRestorePriority() ? 'needs Linux and CAP_SYS_NICE or RLIMIT_NICE' : false }, async (t) => {
  // relative to the process's own nice value (a unit's Nice=, or this test run under `nice -n 10`)
  const base = processNice();
  const pool = await startPool(t, { reserveThreads: 1 });
  assert.equal(threadNices().filter((n) => n !== base).length, 0);
  void pool.review(task(hanging(8_192)));
  await untilHeld(pool, 1);
  assert.deepEqual(threadNices().filter((n) => n !== base), [heldNiceFor(base)], 'the held worker alone, 10 steps down');
  assert.ok(allowed(await pool.review(task(pod))), 'the reserve answers, at normal priority');
});

test('the held priority is 10 steps below the process\'s, and never below 19', () => {
  assert.deepEqual([0, 5, 9, 12, 19].map(heldNiceFor), [10, 15, 19, 19, 19]);
});
