// The policy worker pool: Piscina threads running workers/policy-worker.ts. The main thread matches, encodes each
// request once (one PolicyTask buffer) and applies the bindings' actions to what comes back; the workers only
// evaluate, with programs compiled once per snapshot.
//
// Settings, from bench/hop.ts on a 2-core VM (and reference/hot-path-measurements.md):
//   - batching: the requests that become ready in one turn of the event loop go to a worker in one Piscina task.
//     Waking a sleeping thread is what a hand-off costs (a plain worker_threads round trip: ~190 µs CPU one at a
//     time, ~35 µs pipelined); one task per request cost ~400–600 µs CPU per request under load, batches ~250–300
//     (main-thread evaluation: ~180–230).
//   - concurrentTasksPerWorker 16: a worker takes the next batch without waiting for the main thread to see the
//     previous answer (Piscina's default of 1 measured ~640 µs CPU per request).
//   - atomics 'disabled': sync/async/disabled measured within this machine's noise of each other; with Atomics.wait
//     an idle worker's event loop is blocked, so it would neither receive a reload until its next request nor show
//     its idle time in the utilization gauge.
//   - buffers copied, not transferred; threads fixed (minThreads = maxThreads, no idle timeout).
//
// Tasks are never given an AbortSignal: Piscina runs an abortable task only on an otherwise idle worker (and
// aborting one terminates its worker), which would undo the pipelining. The request deadline is enforced instead
// by the caller's timeout answer plus a watchdog: each worker publishes the deadline of the request it is evaluating
// in a shared table, and when a request is abandoned the pool terminates any worker still busy past its request's
// deadline. Piscina replaces dead workers; a new worker says hello on the channel and gets the current snapshot.
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import type { Worker } from 'node:worker_threads';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Piscina } from 'piscina';
import type { Registry } from 'prom-client';
import type { Logger } from '../../log/logger.js';
import type { PluginName } from '../../manifest/plugins.js';
import type { Snapshot } from '../../reload/snapshot.js';
import type { PendingValidation } from '../validate.js';
import { failedEvaluations } from '../validating/dispatcher.js';
import type { PolicyEvaluation } from '../validating/dispatcher.js';
import { decodeBatchResults, encodeTask } from './codec.js';
import type { TaskOutcome } from './codec.js';
import { createPoolMetrics } from './metrics.js';
import type { PoolMetrics, WorkerFailureReason } from './metrics.js';
import { createWatchdogBuffer, watchdogLayout } from './protocol.js';
import type { ChannelMessage, PolicyWorkerData, SnapshotData } from './protocol.js';

/** `--workers` default: every core but one for the main thread, at least one (os.cpus() is empty under ProcSubset=pid). */
export function defaultPoolThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export const defaultConcurrentTasksPerWorker = 16;
export const defaultMaxBatch = 32;

export interface PolicyPoolOptions {
  /** worker threads (--workers), at least 1 */
  readonly threads: number;
  /** the snapshot current at start (the workers compile it before their first task) */
  readonly snapshot?: Snapshot;
  readonly plugin?: PluginName;
  /** tasks a worker holds at once; default 16 */
  readonly concurrentTasksPerWorker?: number;
  /** Piscina's atomics mode; default 'disabled' */
  readonly atomics?: 'sync' | 'async' | 'disabled';
  /**
   * Requests handed to a worker in one Piscina task at most (those that became ready in the same turn of the event
   * loop go together, so one thread hand-off and wake-up serves them all); 1 sends every request on its own.
   * Default 32.
   */
  readonly maxBatch?: number;
  readonly registry?: Registry;
  readonly logger?: Logger;
  /** compiled snapshots per worker; default 2 */
  readonly maxSnapshots?: number;
  /** how long a task waits on a worker for a snapshot it has not compiled; default 5s (and never past the deadline) */
  readonly snapshotWaitMs?: number;
  /** test-only: request uids that make a worker exit or hang (protocol.ts) */
  readonly testHooks?: boolean;
  /** --authorization-kubeconfig: each worker sends the SubjectAccessReviews of its `authorizer` checks with it */
  readonly authorizationKubeconfig?: string;
}

export interface EvaluationContext {
  /** epoch ms when the answer is due */
  readonly deadline: number;
  /**
   * aborted at the deadline or when the client goes away: the evaluation is then answered as abandoned at once.
   * Optional: without it the answer comes when the worker's does, and recordTimeout() handles overrunning workers.
   */
  readonly signal?: AbortSignal;
}

export interface PoolEvaluation {
  /** one per `plan.evaluate` entry; failed ones carry the failure as an evaluation error */
  readonly evaluations: PolicyEvaluation[];
  /** set when the pool did not deliver: the failure policy decided */
  readonly failure?: WorkerFailureReason;
  /** the request was abandoned (deadline or client gone) before the pool answered: nobody reads this answer */
  readonly abandoned?: boolean;
}

const workerFile = fileURLToPath(new URL('../../../workers/policy-worker.js', import.meta.url));

function snapshotData(snapshot: Snapshot): SnapshotData {
  return { plugin: snapshot.plugin, hash: snapshot.hash, manifests: snapshot.manifests };
}

export class PolicyPool {
  readonly #piscina: Piscina;
  readonly #channel: BroadcastChannel;
  readonly #watchdog: ReturnType<typeof watchdogLayout>;
  readonly #log: Logger | undefined;
  readonly #metrics: PoolMetrics | undefined;
  readonly #compiledBy = new Map<string, Set<number>>();
  readonly #readyWaiters = new Set<() => void>();
  readonly #lastELU = new WeakMap<Worker, EventLoopUtilization>();
  #current: SnapshotData | undefined;
  /** the hash hasCompiled() last found on every worker (forgotten when a worker starts) */
  #compiledEverywhere: string | undefined;
  #previous: SnapshotData | undefined;
  readonly #maxBatch: number;
  #queue: Array<{ readonly task: Uint8Array; readonly settle: (outcome: TaskOutcome | { readonly failed: unknown }) => void }> = [];
  #flushScheduled = false;
  #inFlight = 0;
  #tasksSent = 0;
  #closed = false;

  constructor(options: PolicyPoolOptions) {
    const threads = Math.max(1, Math.floor(options.threads));
    this.#log = options.logger;
    this.#maxBatch = Math.max(1, Math.floor(options.maxBatch ?? defaultMaxBatch));
    this.#current = options.snapshot ? snapshotData(options.snapshot) : undefined;
    const channelName = `static-admissiond-policy-pool-${randomUUID()}`;
    this.#channel = new BroadcastChannel(channelName);
    this.#channel.onmessage = (event: unknown) => this.#onChannelMessage((event as { data: ChannelMessage }).data);
    this.#channel.unref();
    const watchdog = createWatchdogBuffer(threads * 4 + 16);
    this.#watchdog = watchdogLayout(watchdog);
    const workerData: PolicyWorkerData = {
      channel: channelName,
      snapshot: this.#current,
      maxSnapshots: options.maxSnapshots ?? 2,
      snapshotWaitMs: options.snapshotWaitMs ?? 5_000,
      watchdog,
      testHooks: options.testHooks === true,
      authorizationKubeconfig: options.authorizationKubeconfig ?? '',
    };
    this.#piscina = new Piscina({
      filename: workerFile,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: options.concurrentTasksPerWorker ?? defaultConcurrentTasksPerWorker,
      atomics: options.atomics ?? 'disabled',
      maxQueue: Infinity,
      // Piscina's own timing histogram feeds only its `utilization`, which is not used (see utilization())
      recordTiming: false,
      workerData,
    });
    // A worker error with no task in flight is reported here; without a listener it would crash the daemon.
    this.#piscina.on('error', (err: unknown) => this.#log?.error(err, 'Policy worker failed'));
    // a new worker has compiled nothing yet
    this.#piscina.on('workerCreate', () => {
      this.#compiledEverywhere = undefined;
    });
    if (options.registry) {
      this.#metrics = createPoolMetrics(options.registry, {
        queueSize: () => this.#piscina.queueSize,
        utilization: () => this.utilization(),
        threads: () => this.#piscina.threads.length,
        inFlight: () => this.#inFlight,
      });
    }
  }

  /** worker threads now */
  get threads(): number {
    return this.#piscina.threads.length;
  }

  /** requests handed to the pool so far */
  get tasksSent(): number {
    return this.#tasksSent;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** the underlying Piscina (tests and benchmarks: thread list, queue size) */
  get piscina(): Piscina {
    return this.#piscina;
  }

  /**
   * How busy the workers were since the previous call (the first call: since they started), 0 to 1: the mean of
   * the worker threads' event-loop utilization. Piscina's own `utilization` is not used: in 5.3 it divides seconds
   * by milliseconds (1000× too small) and adds up task run times that overlap when a worker holds several tasks.
   */
  utilization(): number {
    const threads = this.#piscina.threads;
    if (threads.length === 0) return 0;
    let sum = 0;
    for (const worker of threads) {
      const now = worker.performance.eventLoopUtilization();
      const last = this.#lastELU.get(worker);
      this.#lastELU.set(worker, now);
      const u = last ? worker.performance.eventLoopUtilization(now, last).utilization : now.utilization;
      // a worker's first readings, before its event loop has run, can be off by a little either way
      sum += Number.isFinite(u) ? Math.min(1, Math.max(0, u)) : 0;
    }
    return sum / threads.length;
  }

  /** A new snapshot (a reload): every worker compiles it; tasks matched against it wait for it on their worker. */
  publish(snapshot: Snapshot): void {
    if (this.#closed || snapshot.hash === this.#current?.hash) return;
    this.#previous = this.#current;
    this.#current = snapshotData(snapshot);
    for (const hash of this.#compiledBy.keys()) if (hash !== this.#current.hash && hash !== this.#previous?.hash) this.#compiledBy.delete(hash);
    this.#post({ type: 'snapshot', ...this.#current });
  }

  /** Every worker thread has compiled the current snapshot. */
  isReady(): boolean {
    if (this.#current === undefined) return true;
    return this.hasCompiled(this.#current.hash);
  }

  /**
   * Every worker thread has compiled the snapshot `hash`: a task naming it waits for no compile. Until then (a reload
   * being compiled on the workers, a replaced worker catching up) the validate handler evaluates on the main thread.
   */
  hasCompiled(hash: string): boolean {
    if (hash === this.#compiledEverywhere) return true;
    const have = this.#compiledBy.get(hash);
    const threads = this.#piscina.threads;
    const all = have !== undefined && threads.length > 0 && threads.every((w) => have.has(w.threadId));
    if (all) this.#compiledEverywhere = hash;
    return all;
  }

  /** Resolves once every worker has compiled the current snapshot (startup, after a reload); rejects after timeoutMs. */
  ready(timeoutMs = 30_000): Promise<void> {
    if (this.isReady()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (!this.isReady()) return;
        clearTimeout(timer);
        this.#readyWaiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#readyWaiters.delete(check);
        reject(new Error(`policy workers did not compile snapshot ${this.#current?.hash ?? ''} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.#readyWaiters.add(check);
    });
  }

  /**
   * Evaluates a pending validation on a worker. Never rejects: a worker that dies, fails or is too late yields
   * evaluation errors, which each policy's failurePolicy turns into a denial (Fail) or an admission (Ignore).
   */
  evaluate(pending: PendingValidation, snapshotHash: string, review: Uint8Array, ctx: EvaluationContext): Promise<PoolEvaluation> {
    const { plan } = pending;
    if (ctx.signal?.aborted) {
      return Promise.resolve({ evaluations: failedEvaluations(plan, 'the admission request was abandoned before its policies were evaluated'), abandoned: true });
    }
    const task = encodeTask({
      snapshotHash,
      review,
      deadline: ctx.deadline,
      matches: plan.evaluate.map((i) => {
        const p = plan.policies[i]!;
        const t = p.target!;
        return { hook: p.hook, kind: t.kind, resource: t.resource, subResource: t.subResource };
      }),
    });
    const started = process.hrtime.bigint();
    this.#inFlight++;
    this.#tasksSent++;
    this.#metrics?.taskStarted();
    return new Promise<PoolEvaluation>((resolve) => {
      let settled = false;
      const signal = ctx.signal;
      const finish = (result: PoolEvaluation): void => {
        if (settled) return;
        settled = true;
        this.#inFlight--;
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = (): void => {
        // The answer has been given (by the timeout handler) or nobody waits for it; a worker still busy past
        // its task's deadline is stuck and is replaced.
        this.checkOverruns();
        finish({ evaluations: failedEvaluations(plan, 'the admission request was abandoned before its policies were evaluated'), abandoned: true });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#submit(task, (outcome) => {
        if ('evaluations' in outcome) {
          this.#metrics?.taskDone(Number(process.hrtime.bigint() - started) / 1e9);
          finish({ evaluations: [...outcome.evaluations] });
          return;
        }
        const err = 'failed' in outcome ? outcome.failed : new Error(outcome.error);
        const message = err instanceof Error ? err.message : String(err);
        // Piscina rejects every task of a worker that exits with "worker exited with code: N"
        const reason: WorkerFailureReason = 'failed' in outcome && /worker exited/i.test(message) ? 'crash' : 'error';
        if (!settled) {
          this.#metrics?.failure(reason);
          this.#log?.error(err, 'Policy evaluation failed on a worker; answering by the failure policy', { reason });
        }
        finish({ evaluations: failedEvaluations(plan, `policy worker failed while evaluating the request: ${message}`), failure: reason });
      });
    });
  }

  /** Queues one request's task; the queue goes to the workers once this turn of the event loop is over. */
  #submit(task: Uint8Array, settle: (outcome: TaskOutcome | { readonly failed: unknown }) => void): void {
    this.#queue.push({ task, settle });
    if (this.#queue.length >= this.#maxBatch * Math.max(1, this.#piscina.threads.length)) this.#flush();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    // as many batches as workers (Piscina gives each to the least busy worker), each at most maxBatch requests
    const threads = Math.max(1, this.#piscina.threads.length);
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, Math.min(this.#maxBatch, Math.ceil(this.#queue.length / threads)));
      // The task buffers are copied, not transferred: for a few KB a copy is cheaper than detaching and adopting an
      // ArrayBuffer (bench/hop.ts); encodeTask returns buffers of exactly the task's size.
      this.#piscina.run(batch.map((b) => b.task)).then(
        (result: Uint8Array) => {
          let outcomes: TaskOutcome[];
          try {
            outcomes = decodeBatchResults(result);
          } catch (err) {
            for (const b of batch) b.settle({ failed: err });
            return;
          }
          batch.forEach((b, i) => b.settle(outcomes[i] ?? { error: 'the worker answered fewer requests than it was given' }));
        },
        (err: unknown) => {
          for (const b of batch) b.settle({ failed: err });
        },
      );
    }
  }

  /**
   * Counts a request answered by its timeout handler (the deadline passed with its task in the pool), and replaces
   * any worker still busy past its task's deadline: callers that pass no AbortSignal rely on this.
   */
  recordTimeout(): void {
    this.#metrics?.failure('timeout');
    this.checkOverruns();
  }

  /** Terminates every worker still evaluating a task past that task's deadline; returns how many. */
  checkOverruns(now = Date.now()): number {
    const { owners, busyUntil, slots } = this.#watchdog;
    const live = new Map(this.#piscina.threads.map((w) => [w.threadId, w]));
    let terminated = 0;
    for (let i = 0; i < slots; i++) {
      const owner = Atomics.load(owners, i);
      if (owner === 0) continue;
      const worker = live.get(owner);
      if (worker === undefined) {
        // the worker is gone: free its slot for a replacement
        busyUntil[i] = 0;
        Atomics.compareExchange(owners, i, owner, 0);
        continue;
      }
      const until = busyUntil[i]!;
      if (until > 0 && until <= now) {
        busyUntil[i] = 0;
        terminated++;
        this.#metrics?.failure('overrun');
        this.#log?.info('Terminating a policy worker still evaluating past its task deadline', { threadId: owner, overrunMs: now - until });
        void worker.terminate();
      }
    }
    return terminated;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#channel.close();
    await this.#piscina.destroy();
  }

  #post(message: ChannelMessage): void {
    if (!this.#closed) this.#channel.postMessage(message);
  }

  #onChannelMessage(message: ChannelMessage): void {
    switch (message.type) {
      case 'hello':
        if (this.#current && !message.hashes.includes(this.#current.hash)) this.#post({ type: 'snapshot', to: message.threadId, ...this.#current });
        break;
      case 'need': {
        const snapshot = [this.#current, this.#previous].find((s) => s?.hash === message.hash);
        if (snapshot) this.#post({ type: 'snapshot', to: message.threadId, ...snapshot });
        break;
      }
      case 'compiled':
        if (message.error !== undefined) {
          this.#log?.error(new Error(message.error), 'A policy worker failed to compile a snapshot', { hash: message.hash, threadId: message.threadId });
          break;
        }
        if (message.hash !== this.#current?.hash && message.hash !== this.#previous?.hash) break;
        {
          let set = this.#compiledBy.get(message.hash);
          if (set === undefined) this.#compiledBy.set(message.hash, (set = new Set()));
          set.add(message.threadId);
        }
        for (const check of [...this.#readyWaiters]) check();
        break;
      default:
        break;
    }
  }
}
