// The daemon's request paths (lib/review/dispatch.ts): a request handed whole to a policy worker is answered with the
// very bytes the main thread would have written (the same 400 for a malformed review, the same denial, the same
// patch), a worker that dies is answered by the failure policy, the workers' check metrics are in the registry at
// scrape time, and the inline rule sends a lone request inline, busy periods and expensive snapshots to the pool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { PolicyPool } from '../../lib/admission/pool/pool.js';
import { testHookExit, testHookHang } from '../../lib/admission/pool/protocol.js';
import { createMutatingPolicyMetrics } from '../../lib/metrics/mutating-policy.js';
import { createValidatingPolicyMetrics } from '../../lib/metrics/policy.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import type { Snapshot } from '../../lib/reload/snapshot.js';
import { InlineRule, policyPath } from '../../lib/review/dispatch.js';
import type { Answer, Delivery, Reviewer } from '../../lib/review/receive.js';
import { packageRoot } from '../admission/pool/helpers.js';
import { sampleValue } from '../server/helpers.js';

const validating = loadSnapshotSync('ValidatingAdmissionPolicy', join(packageRoot, 'testdata/bench/policies'));
const devValidating = loadSnapshotSync('ValidatingAdmissionPolicy', join(packageRoot, 'testdata/dev/policies'));
const mutating = loadSnapshotSync('MutatingAdmissionPolicy', join(packageRoot, 'testdata/bench/mutating-policies'));

function delivery(endpoint: string, body: Buffer, timeoutMs = 10_000): Delivery {
  return { endpoint, body, deadline: Date.now() + timeoutMs, timeoutMs, signal: new AbortController().signal };
}

/** The bodies compared: real apiserver captures, the benchmark's pod (allowed and privileged), malformed reviews. */
function corpus(): Buffer[] {
  const dir = join(packageRoot, 'testdata/admission/apiserver-captures');
  const captures = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => readFileSync(join(dir, f)));
  const pod = readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'));
  const privileged = JSON.parse(pod.toString()) as { request: { uid: string; object: { spec: { containers: Array<{ securityContext: Record<string, unknown> }> } } } };
  privileged.request.object.spec.containers[0]!.securityContext.privileged = true;
  return [
    ...captures, pod, Buffer.from(JSON.stringify(privileged)),
    readFileSync(join(packageRoot, 'testdata/dev/requests/privileged-pod.json')), readFileSync(join(packageRoot, 'testdata/dev/requests/configmap.json')),
    Buffer.from('{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":7}}'),
    Buffer.from('{"kind":"AdmissionReview",'), Buffer.from(''), Buffer.from('[]'),
  ];
}

async function answer(path: Reviewer, d: Delivery): Promise<Answer> {
  return path(d).answer;
}

const text = (a: Answer): string => `${a.status} ${Buffer.from(a.body).toString('utf8')}`;

/** Every request to the pool: the rule is always busy. */
const alwaysPool = (): InlineRule => new InlineRule({ busyAbove: -1, idleBelow: -1, loadArrivals: 0 });

async function startPool(t: { after: (fn: () => Promise<void>) => void }, snapshots: Snapshot[], registry = new Registry(), testHooks = false): Promise<PolicyPool> {
  // no reserve worker: the tests address the one worker they start (the reserve: admission/pool/isolation.test.ts)
  const pool = new PolicyPool({ threads: 1, reserveThreads: 0, snapshots, registry, testHooks });
  t.after(() => pool.close());
  await pool.ready();
  return pool;
}

test('a request answered on a worker is byte for byte the answer inline: /validate and /mutate', async (t) => {
  const pool = await startPool(t, [validating, mutating]);
  const devPool = await startPool(t, [devValidating]);
  const thread = {};
  for (const [endpoint, snapshot, p] of [['/validate', validating, pool], ['/validate', devValidating, devPool], ['/mutate', mutating, pool]] as const) {
    const inline = policyPath({ endpoint, snapshot: () => snapshot, pool: undefined, rule: new InlineRule(), thread });
    const pooled = policyPath({ endpoint, snapshot: () => snapshot, pool: p, rule: alwaysPool(), thread });
    const sent = p.tasksSent;
    const bodies = corpus();
    for (const body of bodies) {
      const here = await answer(inline, delivery(endpoint, body));
      const there = await answer(pooled, delivery(endpoint, body));
      assert.equal(text(there), text(here), `${endpoint} ${body.toString().slice(0, 80)}`);
      if (here.status !== 200) assert.deepEqual(there.fault, here.fault);
    }
    assert.equal(p.tasksSent - sent, bodies.length, 'every request went to the worker');
  }
  // the corpus covers denials, 400s and patches
  const inline = policyPath({ endpoint: '/mutate', snapshot: () => mutating, pool: undefined, rule: new InlineRule(), thread });
  assert.match(text(await answer(inline, delivery('/mutate', corpus()[8]!))), /"patchType":"JSONPatch"/);
});

test('a worker that dies: /validate answers by the failure policy, /mutate fails closed; the pool serves on', async (t) => {
  const pool = await startPool(t, [validating, mutating], new Registry(), true);
  const review = JSON.parse(readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'), 'utf8')) as { request: { uid: string } };
  review.request.uid = testHookExit;
  const body = Buffer.from(JSON.stringify(review));
  const validate = policyPath({ endpoint: '/validate', snapshot: () => validating, pool, rule: alwaysPool(), thread: {} });
  const denied = JSON.parse(Buffer.from((await answer(validate, delivery('/validate', body))).body).toString()) as { response: { allowed: boolean; status: { message: string } } };
  assert.equal(denied.response.allowed, false);
  assert.match(denied.response.status.message, /denied request: policy worker failed while evaluating the request: worker exited with code: 3$/);
  await pool.ready();
  const mutate = policyPath({ endpoint: '/mutate', snapshot: () => mutating, pool, rule: alwaysPool(), thread: {} });
  const failed = JSON.parse(Buffer.from((await answer(mutate, delivery('/mutate', body))).body).toString()) as { response: { allowed: boolean; status: { code: number; message: string } } };
  assert.equal(failed.response.allowed, false);
  assert.equal(failed.response.status.code, 500);
  assert.match(failed.response.status.message, /^Internal error occurred: policy worker failed while evaluating the request: worker exited/);
  await pool.ready();
  const fine = await answer(validate, delivery('/validate', readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'))));
  assert.match(text(fine), /"allowed":true/);
});

test('a worker stuck past the deadline: the answer at the deadline applies the failure policy, the worker is replaced', async (t) => {
  const pool = await startPool(t, [validating], new Registry(), true);
  const stuck = pool.piscina.threads[0]!.threadId;
  const review = JSON.parse(readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'), 'utf8')) as { request: { uid: string } };
  review.request.uid = testHookHang;
  const validate = policyPath({ endpoint: '/validate', snapshot: () => validating, pool, rule: alwaysPool(), thread: {} });
  const d = delivery('/validate', Buffer.from(JSON.stringify(review)), 300);
  const pending = validate(d);
  await new Promise((r) => setTimeout(r, Math.max(0, d.deadline - Date.now()) + 20));
  const expired = JSON.parse(Buffer.from(pending.expire().body).toString()) as { response: { uid: string; allowed: boolean; status: { message: string } } };
  assert.equal(expired.response.uid, testHookHang);
  assert.equal(expired.response.allowed, false);
  assert.match(expired.response.status.message, /denied request: policy evaluation did not finish within the 300ms request deadline$/);
  const deadline = Date.now() + 10_000;
  while (pool.threads !== 1 || pool.piscina.threads[0]!.threadId === stuck) {
    assert.ok(Date.now() < deadline, 'the stuck worker was replaced');
    await new Promise((r) => setTimeout(r, 10));
  }
  await pool.ready();
  assert.match(text(await answer(validate, delivery('/validate', readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'))))), /"allowed":true/);
});

test('the checks observed on a worker are in the registry when it is scraped', async (t) => {
  const registry = new Registry();
  const pool = await startPool(t, [validating, mutating], registry);
  const thread = { validatingMetrics: createValidatingPolicyMetrics(registry), mutatingMetrics: createMutatingPolicyMetrics(registry) };
  const validate = policyPath({ endpoint: '/validate', snapshot: () => validating, pool, rule: alwaysPool(), thread });
  const mutate = policyPath({ endpoint: '/mutate', snapshot: () => mutating, pool, rule: alwaysPool(), thread });
  const pod = readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'));
  for (let i = 0; i < 3; i++) {
    await answer(validate, delivery('/validate', pod));
    await answer(mutate, delivery('/mutate', pod));
  }
  const scraped = await registry.metrics();
  const binding = validating.compiled.family === 'policy' ? validating.compiled.hooks[0]!.bindings[0]!.metadata!.name! : '';
  assert.equal(sampleValue(scraped, 'apiserver_validating_admission_policy_check_total', { policy_binding: binding }), 3);
  assert.ok((sampleValue(scraped, 'apiserver_mutating_admission_policy_check_total') ?? 0) >= 3, 'mutations counted');
  // and once only: the next scrape has nothing new to add
  assert.equal(sampleValue(await registry.metrics(), 'apiserver_validating_admission_policy_check_total', { policy_binding: binding }), 3);
});

test('the inline rule: a lone request inline, a busy main thread or a full pool to the pool, back when idle', async () => {
  const rule = new InlineRule({ windowMs: 5 });
  const snapshot = {};
  assert.equal(rule.inline(0, 4096, snapshot), true, 'idle: inline');
  assert.equal(rule.inline(1, 4096, snapshot), false, 'something in the pool: the pool');
  assert.equal(rule.inline(0, 65 * 1024, snapshot), false, 'a large body: the pool');
  // a busy event loop for two windows
  const until = performance.now() + 12;
  while (performance.now() < until) { /* busy */ }
  assert.equal(rule.inline(0, 4096, snapshot), false, 'busy: the pool');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(rule.inline(1, 4096, snapshot), false, 'idle, but the pool still has a request: the pool');
  // back inline once a window passes idle (polled: on a loaded machine a window may still count as busy)
  const deadline = Date.now() + 5_000;
  while (!rule.inline(0, 4096, snapshot)) {
    assert.ok(Date.now() < deadline, 'idle again, pool empty: inline');
    await new Promise((r) => setTimeout(r, 10));
  }
});

test('the inline rule: a busy window that brought one request is the thread\'s own work, not load: that request is inline', async () => {
  const rule = new InlineRule({ windowMs: 5 });
  const snapshot = {};
  const busyFor = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until) { /* busy: a GC, a compile, a reload */ }
  };
  // polled: on a loaded machine the first windows may count as busy and pool (the rule leaves pooling when idle)
  const deadline = Date.now() + 5_000;
  while (!rule.inline(0, 4096, snapshot)) {
    assert.ok(Date.now() < deadline, 'idle: inline');
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 10));
  rule.busyShare(); // a window begins, with no request in it yet
  busyFor(30);
  assert.equal(rule.inline(0, 4096, snapshot), true, 'one request after 30 ms of other work: inline');
  assert.ok(rule.busyShare() > 0.5, 'the window was busy');
  // the same busy spell with requests arriving through it is load
  busyFor(30);
  for (let i = 0; i < 3; i++) {
    rule.inline(0, 4096, snapshot);
    busyFor(2);
  }
  busyFor(10);
  assert.equal(rule.inline(0, 4096, snapshot), false, 'three requests in a busy window: the pool');
});

test('the inline rule: a pool that emptied less than quietMs ago is not idle (under load the next request would block the ones behind it)', async () => {
  const rule = new InlineRule({ quietMs: 50 });
  const snapshot = {};
  // polled: on a loaded machine a window may count as busy
  const idle = async (emptySince: number): Promise<void> => {
    const deadline = Date.now() + 5_000;
    while (!rule.inline(0, 4096, snapshot, emptySince)) {
      assert.ok(Date.now() < deadline, 'idle, pool empty long enough: inline');
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await idle(-Infinity);
  assert.equal(rule.inline(0, 4096, snapshot, performance.now()), false, 'the pool emptied just now: the pool');
  assert.equal(rule.inline(0, 4096, snapshot, performance.now() - 20), false, 'emptied 20 ms ago, within quietMs: the pool');
  await idle(performance.now() - 60);
});

test('the pool says when it last became empty', async (t) => {
  const pool = await startPool(t, [validating]);
  assert.equal(pool.emptySince, -Infinity, 'never held a request');
  const body = readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'));
  const before = performance.now();
  await pool.review({ endpoint: '/validate', body, deadline: Date.now() + 10_000, snapshotHash: validating.hash });
  assert.ok(pool.emptySince >= before && pool.emptySince <= performance.now(), `emptySince ${pool.emptySince} when the answer came, after ${before}`);
});

test('a snapshot whose inline evaluations are slow goes to the pool; a fast one stays', () => {
  const rule = new InlineRule({ maxInlineMs: 1 });
  const slow = {};
  const fast = {};
  for (let i = 0; i < 20; i++) {
    rule.measured(slow, i < 8 ? 0.1 : 3, 4096);
    rule.measured(fast, i < 8 ? 50 : 0.05, 4096);
  }
  assert.equal(rule.expensive(slow), true);
  assert.equal(rule.inline(0, 100, slow), false);
  assert.equal(rule.expensive(fast), false, 'the warm-up evaluations do not count');
});

test('a snapshot found slow is tried inline again once a reprobe period, when idle, and stays inline once it is fast', async () => {
  const rule = new InlineRule({ maxInlineMs: 1, reprobeMs: 40 });
  const snapshot = {};
  for (let i = 0; i < 9; i++) rule.measured(snapshot, 3, 4096);
  assert.equal(rule.expensive(snapshot), true);
  assert.equal(rule.inline(0, 100, snapshot), false, 'found slow just now: the pool');
  assert.equal(rule.inline(0, 100, snapshot), false, 'still within the reprobe period');
  // one try inline once the period has passed (polled: a loaded machine may count a window as busy)
  const deadline = Date.now() + 5_000;
  while (!rule.inline(0, 100, snapshot)) {
    assert.ok(Date.now() < deadline, 'tried inline again after the reprobe period');
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(rule.inline(0, 100, snapshot), false, 'one try a period, not more');
  assert.equal(rule.inline(1, 100, snapshot), false, 'never while the pool has requests');
  // the tries find it fast again: the average comes down and it is inline for good
  for (let i = 0; i < 40 && rule.expensive(snapshot); i++) rule.measured(snapshot, 0.1, 4096);
  assert.equal(rule.expensive(snapshot), false);
  while (!rule.inline(0, 100, snapshot)) {
    assert.ok(Date.now() < deadline, 'inline again once fast');
    await new Promise((r) => setTimeout(r, 10));
  }
});

test('an inline evaluation past runawayMs keeps bodies of half its size off the main thread only when it spent that on CPU', () => {
  const rule = new InlineRule({ runawayMs: 10 });
  const snapshot = {};
  for (let i = 0; i < 9; i++) rule.measured(snapshot, 0.5, 4096, 0.5);
  // the host was busy elsewhere: 30 ms of wall time, 2 ms of CPU (the 4 KB pod went to the pool for 10 s before)
  rule.measured(snapshot, 30, 4096, 2);
  assert.equal(rule.mayRunAway(snapshot, 4096), false, 'a slow spell is not a runaway');
  assert.equal(rule.expensive(snapshot), false, 'nor averaged in');
  rule.measured(snapshot, 30, 24_000, 28);
  assert.equal(rule.mayRunAway(snapshot, 12_000), true, 'a runaway: half its size and more stay off');
  assert.equal(rule.mayRunAway(snapshot, 4096), false, 'smaller ones do not');
});

test('a reloaded snapshot is served once the pool has compiled it; until then the previous one answers', async (t) => {
  const body = readFileSync(join(packageRoot, 'testdata/dev/requests/privileged-pod.json'));
  const inlineWith = (s: Snapshot): Reviewer => policyPath({ endpoint: '/validate', snapshot: () => s, pool: undefined, rule: new InlineRule(), thread: {} });
  const before = text(await answer(inlineWith(validating), delivery('/validate', body)));
  const after = text(await answer(inlineWith(devValidating), delivery('/validate', body)));
  assert.notEqual(before, after, 'the two snapshots decide the request differently');

  // the rule sending everything to the pool, and the default one (a lone request inline)
  for (const rule of [alwaysPool(), new InlineRule()]) {
    const pool = await startPool(t, [validating]);
    let current = validating;
    const path = policyPath({ endpoint: '/validate', snapshot: () => current, pool, rule, thread: {} });
    assert.equal(text(await answer(path, delivery('/validate', body))), before);
    // reloaded, not yet compiled by the workers: the previous snapshot still answers
    current = devValidating;
    assert.equal(pool.hasCompiled(devValidating.hash), false);
    assert.equal(text(await answer(path, delivery('/validate', body))), before);
    pool.publish(devValidating);
    const deadline = Date.now() + 30_000;
    while (!pool.hasCompiled(devValidating.hash)) {
      assert.ok(Date.now() < deadline, 'the worker compiles the reloaded snapshot');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(text(await answer(path, delivery('/validate', body))), after);
  }
  // nothing compiled to fall back on: the first snapshot a path sees is evaluated on this thread
  const pool = await startPool(t, [validating]);
  const fresh = policyPath({ endpoint: '/validate', snapshot: () => devValidating, pool, rule: alwaysPool(), thread: {} });
  assert.equal(text(await answer(fresh, delivery('/validate', body))), after);
});
