// Where a request's evaluation runs: inline on the main thread, or whole on a policy worker (docs/adr/0003). A
// control plane mostly sends requests one at a time, and then a hand-off to a sleeping thread costs more than the
// work; under load the main thread must do no more than a bare server does.
//
// The rule (InlineRule): a request is evaluated inline when nothing has been in the pool for `quietMs` and the main
// thread was not busy lately (its event-loop utilization over the last window below `busyAbove`; once requests go to the pool they come
// back only when the pool is empty and the utilization fell below `idleBelow`, so the mode does not flap). A busy
// window that brought one request is not load: the thread was busy with its own work (a GC, a compile, a reload), and
// the request is as lone as any other. What may
// run inline is bounded: a body above `maxInlineBytes`, or a snapshot whose inline evaluations have taken more than
// `maxInlineMs` on average, goes to the pool whatever the load; such a snapshot is tried inline again, when idle, once
// every `reprobeMs`, so that one slow spell (a GC, a busy host) does not keep it off the main thread for its lifetime.
// A reloaded snapshot is served once every worker has compiled it; until then the previous one is (inline or in the
// pool, by the same rule). A snapshot the workers have not compiled and no previous one to serve (the first, or a
// second reload before the first was compiled) is evaluated inline, as is everything without a pool (--workers 0).
//
// Isolation (docs/adr/0004; the pool's side is pool/held.ts): while every worker is held by a long evaluation, a
// request less than half the size of each request holding them is evaluated inline (inlineWhileHeld). An inline
// evaluation slower than `runawayMs` (a request near the CEL cost limit) is not averaged in: it keeps requests of at
// least half its body size off the main thread for `runawayMemoryMs` (CEL's cost grows with the object: one of half
// the size of a request that ran away may run away too), so each further runaway on the main thread must be at most
// half the size of the previous one: a handful per period at most, whatever an attacker sends. A wrong guess only
// sends a request to the pool.
import { performance } from 'node:perf_hooks';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { PolicyPool } from '../admission/pool/pool.js';
import type { Snapshot } from '../reload/snapshot.js';
import { mutateOnThisThread, mutationExpiredAnswer, mutationFailedAnswer, validateOnThisThread, validationFailedAnswer } from './evaluate.js';
import type { ThreadContext } from './evaluate.js';
import { summaryOfBytes } from './parsed.js';
import type { Answer, Delivery, Review, Reviewer } from './receive.js';

export interface InlineRuleOptions {
  /** main-thread busy share (0–1) above which requests go to the pool; default 0.5 */
  readonly busyAbove?: number;
  /** busy share below which, with the pool empty, they come back inline; default 0.25 */
  readonly idleBelow?: number;
  /** the window the busy share is measured over, ms; default 10 */
  readonly windowMs?: number;
  /**
   * requests a busy window must have brought for its busy share to count as load; default 2 (at one request a
   * window, 100 req/s or fewer, the main thread is busy with its own work, not with requests)
   */
  readonly loadArrivals?: number;
  /**
   * how long (ms) the pool must have been empty before a request is evaluated inline again; default 1. Under load the
   * pool empties for the moment between its last answer and the clients' next requests, and the request arriving
   * then would be evaluated inline while the next ones queue behind it; a control plane's lone requests come far
   * more than 1 ms apart.
   */
  readonly quietMs?: number;
  /** a snapshot whose inline evaluation takes longer than this on average (ms) is not evaluated inline; default 5 */
  readonly maxInlineMs?: number;
  /** how often (ms) a snapshot found too slow is tried inline again, when idle; default 1,000 */
  readonly reprobeMs?: number;
  /** a body larger than this is not evaluated inline; default 64 KiB */
  readonly maxInlineBytes?: number;
  /** an inline evaluation slower than this (ms) is a runaway: bodies of half its size or more stay off the main thread; default 10 */
  readonly runawayMs?: number;
  /** for how long (ms) after the last runaway on the main thread; default 10,000 */
  readonly runawayMemoryMs?: number;
}

export const defaultInlineRule = {
  busyAbove: 0.5, idleBelow: 0.25, windowMs: 10, loadArrivals: 2, quietMs: 1, maxInlineMs: 5, reprobeMs: 1_000, maxInlineBytes: 64 * 1024, runawayMs: 10, runawayMemoryMs: 10_000,
} as const;

/** Inline evaluations of a snapshot ignored while the code warms up, then averaged (exponential, weight 1/8). */
const warmUpSamples = 8;
const sampleWeight = 1 / 8;

interface SnapshotCost {
  samples: number;
  averageMs: number;
  /** when it was last found too slow, or last tried inline again since */
  probedAt: number;
  /** the smallest body of an inline runaway (0: none), and when the last one was seen */
  runawayBytes: number;
  runawayAt: number;
}

export class InlineRule {
  readonly #options: Required<InlineRuleOptions>;
  readonly #costs = new WeakMap<object, SnapshotCost>();
  #pooling = false;
  #mark: EventLoopUtilization = performance.eventLoopUtilization();
  #markAt = performance.now();
  #busy = 0;
  /** requests asked about since the window began, and in the window measured last */
  #arrivals = 0;
  #windowArrivals = 0;

  constructor(options: InlineRuleOptions = {}) {
    this.#options = { ...defaultInlineRule, ...options };
  }

  /** The main thread's busy share over the last window (measured at most once per window, so nearly free). */
  busyShare(now = performance.now()): number {
    if (now - this.#markAt >= this.#options.windowMs) {
      const current = performance.eventLoopUtilization();
      this.#busy = performance.eventLoopUtilization(current, this.#mark).utilization;
      this.#mark = current;
      this.#markAt = now;
      this.#windowArrivals = this.#arrivals;
      this.#arrivals = 0;
    }
    return this.#busy;
  }

  /**
   * Whether a request of `bodyBytes` for `snapshot` is evaluated on this thread, with `inPool` requests in the pool,
   * which last became empty at `poolEmptySince` (performance.now(), ms).
   */
  inline(inPool: number, bodyBytes: number, snapshot: object, poolEmptySince = -Infinity): boolean {
    this.#arrivals++;
    if (bodyBytes > this.#options.maxInlineBytes) return false;
    const now = performance.now();
    const busy = this.busyShare(now);
    if (!this.#pooling && busy > this.#options.busyAbove && this.#windowArrivals >= this.#options.loadArrivals) this.#pooling = true;
    else if (this.#pooling && inPool === 0 && busy < this.#options.idleBelow) this.#pooling = false;
    if (this.#pooling || inPool !== 0 || now - poolEmptySince < this.#options.quietMs) return false;
    return this.#bounded(bodyBytes, snapshot);
  }

  /**
   * Whether a request of `bodyBytes` for `snapshot` is evaluated on this thread because every worker is held by
   * requests of at least `heldBy` bytes (pool/held.ts): it is less than half their size, within maxInlineBytes, and
   * not of a size that ran away here lately. Not the average bound: waiting would cost it at least the rest of a
   * runaway, more than a slow snapshot's evaluation.
   */
  inlineWhileHeld(heldBy: number, bodyBytes: number, snapshot: object): boolean {
    return bodyBytes * 2 < heldBy && bodyBytes <= this.#options.maxInlineBytes && !this.mayRunAway(snapshot, bodyBytes);
  }

  #bounded(bodyBytes: number, snapshot: object): boolean {
    if (this.mayRunAway(snapshot, bodyBytes)) return false;
    return !this.expensive(snapshot) || this.#reprobe(snapshot);
  }

  /** A request of `bodyBytes` is at least half the size of one whose inline evaluation of `snapshot` ran away lately. */
  mayRunAway(snapshot: object, bodyBytes: number, now = performance.now()): boolean {
    const cost = this.#costs.get(snapshot);
    return cost !== undefined && cost.runawayBytes > 0 && now - cost.runawayAt < this.#options.runawayMemoryMs && bodyBytes * 2 >= cost.runawayBytes;
  }

  /** The snapshot's inline evaluations take too long to run on the event loop. */
  expensive(snapshot: object): boolean {
    const cost = this.#costs.get(snapshot);
    return cost !== undefined && cost.samples > warmUpSamples && cost.averageMs > this.#options.maxInlineMs;
  }

  /**
   * One inline evaluation of `snapshot`, of a body of `bodyBytes`, took `ms`, of which the process spent `cpuMs` on
   * CPU (all threads; at most `ms` counts). Longer than runawayMs with less CPU than that is a slow spell of the host
   * (the thread was descheduled), not a runaway: it is neither remembered as one nor averaged.
   */
  measured(snapshot: object, ms: number, bodyBytes: number, cpuMs = ms): void {
    let cost = this.#costs.get(snapshot);
    if (cost === undefined) this.#costs.set(snapshot, (cost = { samples: 0, averageMs: 0, probedAt: 0, runawayBytes: 0, runawayAt: 0 }));
    cost.samples++;
    if (cost.samples <= warmUpSamples) return;
    if (ms > this.#options.runawayMs && cpuMs <= this.#options.runawayMs) {
      cost.samples--;
      return;
    }
    if (ms > this.#options.runawayMs) {
      // a runaway says nothing of the snapshot's usual cost: it keeps requests of its size off this thread instead
      const now = performance.now();
      const remembered = cost.runawayBytes > 0 && now - cost.runawayAt < this.#options.runawayMemoryMs;
      cost.runawayBytes = remembered ? Math.min(cost.runawayBytes, bodyBytes) : bodyBytes;
      cost.runawayAt = now;
      cost.samples--;
      return;
    }
    const wasExpensive = this.expensive(snapshot);
    cost.averageMs = cost.samples === warmUpSamples + 1 ? ms : cost.averageMs + sampleWeight * (ms - cost.averageMs);
    if (!wasExpensive && this.expensive(snapshot)) cost.probedAt = performance.now();
  }

  /** Whether a snapshot found too slow is due to be tried inline again (at most once a reprobe period). */
  #reprobe(snapshot: object): boolean {
    const cost = this.#costs.get(snapshot)!;
    const now = performance.now();
    if (now - cost.probedAt < this.#options.reprobeMs) return false;
    cost.probedAt = now;
    return true;
  }
}

export interface PolicyPathOptions {
  readonly endpoint: '/validate' | '/mutate';
  /** the endpoint's policy snapshot (ValidatingAdmissionPolicy or MutatingAdmissionPolicy), read per request */
  readonly snapshot: () => Snapshot | undefined;
  /** undefined: everything on the main thread (--workers 0) */
  readonly pool: PolicyPool | undefined;
  readonly rule: InlineRule;
  /** the main thread's SubjectAccessReview client and metrics */
  readonly thread: ThreadContext;
  /** the path of parsed reviews, taken while the endpoint has static webhooks to call (their fan-out runs here) */
  readonly webhooks?: { readonly active: () => boolean; readonly reviewer: Reviewer };
}

/** The request path of /validate or /mutate: inline or in the pool, as the rule decides. */
export function policyPath(options: PolicyPathOptions): Reviewer {
  const { endpoint, pool, rule, thread } = options;
  const mutate = endpoint === '/mutate';
  const onThisThread = mutate ? mutateOnThisThread : validateOnThisThread;

  const pooled = (d: Delivery, snapshot: Snapshot, pool: PolicyPool): Review => {
    const hooks = snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
    return {
      answer: pool.review({ endpoint, body: d.body, deadline: d.deadline, snapshotHash: snapshot.hash }, (r): Answer => {
        if ('answer' in r) {
          const { status, body, reason, message } = r.answer;
          return status === 200 ? { status, body, summary: () => summaryOfBytes(d.body, body) } : { status, body, fault: { reason, message } };
        }
        const why = `policy worker failed while evaluating the request: ${r.message}`;
        return mutate ? mutationFailedAnswer(d.body, why) : validationFailedAnswer(d.body, hooks, why, thread);
      }),
      expire: () => {
        pool.recordTimeout();
        return mutate
          ? mutationExpiredAnswer(d.body, d.timeoutMs)
          : validationFailedAnswer(d.body, hooks, `policy evaluation did not finish within the ${d.timeoutMs}ms request deadline`, thread);
      },
    };
  };

  // The newest snapshot every worker has compiled. A reload takes effect here once the pool holds it compiled, as
  // upstream swaps a reloaded snapshot in only once it is compiled: until then requests keep the previous one (kept
  // compiled in the workers), instead of evaluating a cold snapshot on this thread while the workers compile.
  let serving: Snapshot | undefined;
  /** whether the snapshot servingSnapshot last returned is compiled on every worker (no object per request) */
  let compiled = false;
  const servingSnapshot = (): Snapshot | undefined => {
    const newest = options.snapshot();
    compiled = false;
    if (pool === undefined || newest === undefined) return newest;
    if (pool.hasCompiled(newest.hash, newest.plugin)) {
      compiled = true;
      return (serving = newest);
    }
    compiled = serving !== undefined && serving.plugin === newest.plugin && pool.hasCompiled(serving.hash, serving.plugin);
    return compiled ? serving : newest;
  };

  return (d) => {
    if (options.webhooks?.active()) return options.webhooks.reviewer(d);
    const snapshot = servingSnapshot();
    if (pool !== undefined && snapshot !== undefined && compiled && !rule.inline(pool.inFlight, d.body.length, snapshot, pool.emptySince)
      && !rule.inlineWhileHeld(pool.heldBy(), d.body.length, snapshot)) {
      return pooled(d, snapshot, pool);
    }
    const hooks = snapshot?.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
    if (snapshot === undefined || pool === undefined) return onThisThread(d, hooks, thread);
    const started = performance.now();
    // process CPU (getrusage): at the rates that evaluate inline the workers are idle, so it is this thread's
    const cpu = process.cpuUsage();
    const measure = (): void => {
      const used = process.cpuUsage(cpu);
      rule.measured(snapshot, performance.now() - started, d.body.length, (used.user + used.system) / 1_000);
    };
    const review = onThisThread(d, hooks, thread);
    // the mutating chain is a promise throughout: its cost is the time to its answer
    if (!mutate) measure();
    else if (review.answer instanceof Promise) void review.answer.then(measure, () => undefined);
    return review;
  };
}
