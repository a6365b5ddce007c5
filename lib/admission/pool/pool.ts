// The policy worker pool: Piscina threads running workers/policy-worker.ts, each holding the compiled programs of the
// current (and previous) snapshot of each policy plugin. Two kinds of task:
//   - review(): a whole request (ReviewTask: the body bytes, endpoint, deadline, snapshot hash), the daemon's hot
//     path. The worker decodes, matches, evaluates, records the check metrics and encodes the answer; the main thread
//     only writes the bytes that come back. One buffer per batch each way (review-codec.ts), the tasks' transferred.
//   - evaluate(): the matched policies of a request the main thread has parsed and matched (PolicyTask), for the
//     handlers of parsed reviews (the paths that call static webhooks); the main thread applies the bindings' actions
//     to what comes back.
// Check metrics observed on the workers reach the main thread's registry when a scrape asks (collectMetrics).
//
// Settings, from bench/hop.ts on a 2-core VM (and reference/hot-path-measurements.md):
//   - batching (batches.ts): the requests that become ready in one turn of the event loop go to a worker in one
//     Piscina task. Waking a sleeping thread is what a hand-off costs (a plain worker_threads round trip: ~190 µs CPU
//     one at a time, ~35 µs pipelined).
//   - concurrentTasksPerWorker 16: a worker takes the next batch without waiting for the main thread to see the
//     previous answer (Piscina's default of 1 measured ~640 µs CPU per request).
//   - atomics 'disabled': sync/async/disabled measured within this machine's noise of each other; with Atomics.wait
//     an idle worker's event loop is blocked, so it would neither receive a reload until its next request nor show
//     its idle time in the utilization gauge.
//   - threads fixed (minThreads = maxThreads, no idle timeout): a thread started on demand would compile every
//     snapshot before its first task; maxQueue unbounded (the request deadline bounds how long anything waits).
//
// Tasks are never given an AbortSignal: Piscina runs an abortable task only on an otherwise idle worker (and
// aborting one terminates its worker), which would undo the pipelining. The request deadline is enforced instead
// by the caller's timeout answer plus a watchdog: each worker publishes the deadline of the request it is evaluating
// in a shared table, and when a request is abandoned the pool terminates any worker still busy past its request's
// deadline. Piscina replaces dead workers; a new worker says hello on the channel and gets the current snapshot.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Logger } from '../../log/logger.js';
import type { PluginName } from '../../manifest/plugins.js';
import { createMutatingPolicyMetrics } from '../../metrics/mutating-policy.js';
import { createValidatingPolicyMetrics } from '../../metrics/policy.js';
import type { Snapshot } from '../../reload/snapshot.js';
import type { PendingValidation } from '../validate.js';
import { failedEvaluations } from '../validating/dispatcher.js';
import { Lane } from './batches.js';
import { decodeBatchResults, encodeTask } from './codec.js';
import type { TaskOutcome } from './codec.js';
import { CompiledSnapshots } from './compiled.js';
import { createPoolMetrics, workerFailureReason } from './metrics.js';
import type { PoolMetrics, WorkerFailureReason } from './metrics.js';
import { defaultHeldAfterMs, HeldWorkers } from './held.js';
import { createWatchdogBuffer, snapshotKey, watchdogLayout } from './protocol.js';
import type { ChannelMessage, PolicyWorkerData, SnapshotData } from './protocol.js';
import { decodeReviewAnswers, encodeReviewTasks, endpointCode } from './review-codec.js';
import type { ReviewTask, WorkerAnswer } from './review-codec.js';
import { WorkerUtilization } from './utilization.js';
import { overruns } from './watchdog.js';
import { WorkerMetrics } from './worker-metrics.js';
import { defaultBatchesInFlight, defaultConcurrentTasksPerWorker, defaultMaxBatch, defaultReserveThreads, defaultWorkerMaxOldSpaceMb } from './options.js';
import type { EvaluationContext, PolicyPoolOptions, PoolEvaluation, PoolReview } from './options.js';

export {
  defaultBatchesInFlight,
  defaultConcurrentTasksPerWorker,
  defaultMaxBatch,
  defaultPoolThreads,
  defaultReserveThreads,
  defaultWorkerMaxOldSpaceMb,
  minWorkerMaxOldSpaceMb,
} from './options.js';
export type { EvaluationContext, PolicyPoolOptions, PoolEvaluation, PoolReview } from './options.js';

/** The file Piscina loads in each worker: a CommonJS entry that imports the worker (workers/policy-worker-entry.cts says why). */
export const workerFile = fileURLToPath(new URL('../../../workers/policy-worker-entry.cjs', import.meta.url));

function snapshotData(snapshot: Snapshot): SnapshotData {
  return { plugin: snapshot.plugin, hash: snapshot.hash, manifests: snapshot.manifests };
}

export class PolicyPool {
  readonly #piscina: Piscina;
  readonly #channel: BroadcastChannel;
  readonly #watchdog: ReturnType<typeof watchdogLayout>;
  readonly #held: HeldWorkers;
  readonly #log: Logger | undefined;
  readonly #metrics: PoolMetrics | undefined;
  readonly #snapshots: CompiledSnapshots;
  readonly #readyWaiters = new Set<() => void>();
  readonly #utilization = new WorkerUtilization();
  readonly #policyTasks: Lane<TaskOutcome>;
  readonly #reviews: Lane<WorkerAnswer, ReviewTask>;
  /** the workers' check observations, brought into the registry's families at scrapes (when there is a registry) */
  readonly #workerMetrics: WorkerMetrics | undefined;
  #inFlight = 0;
  /** when the last request in the pool was answered (performance.now(), ms; -Infinity: never) */
  #emptySince = -Infinity;
  #tasksSent = 0;
  #ids: readonly number[] | undefined;
  #closed = false;

  constructor(options: PolicyPoolOptions) {
    const regular = Math.max(1, Math.floor(options.threads));
    const threads = regular + Math.max(0, Math.floor(options.reserveThreads ?? defaultReserveThreads));
    this.#log = options.logger;
    const maxBatch = Math.max(1, Math.floor(options.maxBatch ?? defaultMaxBatch));
    const depth = Math.max(1, Math.floor(options.batchesInFlight ?? defaultBatchesInFlight));
    const heldWorkers = (): number => this.heldWorkers();
    const placing = (bytes: number): void => { this.#held.placing = bytes; };
    const workers = (): number => this.#threadIds().length;
    const initial = [...(options.snapshot ? [options.snapshot] : []), ...(options.snapshots ?? [])].map(snapshotData);
    this.#snapshots = new CompiledSnapshots(initial);
    const channelName = `static-admissiond-policy-pool-${randomUUID()}`;
    this.#channel = new BroadcastChannel(channelName);
    this.#channel.onmessage = (event: unknown) => this.#onChannelMessage((event as { data: ChannelMessage }).data);
    this.#channel.unref();
    const watchdog = createWatchdogBuffer(threads * 4 + 16);
    this.#watchdog = watchdogLayout(watchdog);
    this.#held = new HeldWorkers(this.#watchdog, options.heldAfterMs ?? defaultHeldAfterMs);
    const concurrentTasksPerWorker = options.concurrentTasksPerWorker ?? defaultConcurrentTasksPerWorker;
    const workerData: PolicyWorkerData = {
      channel: channelName,
      snapshots: this.#snapshots.current(),
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
      concurrentTasksPerWorker,
      // no new work for a worker held by a long evaluation: it would wait behind it (held.ts, docs/adr/0004)
      loadBalancer: this.#held.balancer(regular, concurrentTasksPerWorker),
      atomics: options.atomics ?? 'disabled',
      maxQueue: Infinity,
      // Piscina's own timing histogram feeds only its `utilization`, which is not used (see utilization())
      recordTiming: false,
      resourceLimits: { maxOldGenerationSizeMb: defaultWorkerMaxOldSpaceMb, ...options.resourceLimits },
      workerData,
    });
    this.#policyTasks = new Lane(this.#piscina, maxBatch, {
      // PolicyTask buffers are copied: for a few KB a copy is cheaper than detaching an ArrayBuffer (bench/hop.ts)
      name: undefined, transfer: false, regular, threads: workers, decode: decodeBatchResults, missing: { error: 'the worker answered fewer requests than it was given' }, depth, heldWorkers,
    });
    this.#reviews = new Lane<WorkerAnswer, ReviewTask>(this.#piscina, maxBatch, {
      name: 'review', transfer: true, regular, threads: workers, decode: decodeReviewAnswers, missing: { error: 'the worker answered fewer requests than it was given' }, depth, heldWorkers, placing,
      // a batch's tasks written into one buffer as it goes, transferred: one allocation and one transfer per batch
      pack: (tasks) => {
        const buffer = encodeReviewTasks(tasks);
        return { payload: buffer, transferList: [buffer.buffer as ArrayBuffer] };
      },
      size: (task) => task.body.byteLength,
    });
    // A worker error with no task in flight is reported here; without a listener it would crash the daemon.
    this.#piscina.on('error', (err: unknown) => this.#log?.error(err, 'Policy worker failed'));
    // a new worker has compiled nothing yet
    this.#piscina.on('workerCreate', () => {
      this.#snapshots.workerStarted();
      this.#ids = undefined;
    });
    this.#piscina.on('workerDestroy', () => {
      this.#ids = undefined;
    });
    if (options.registry) {
      this.#metrics = createPoolMetrics(options.registry, {
        queueSize: () => this.#piscina.queueSize,
        utilization: () => this.utilization(),
        threads: () => this.#piscina.threads.length,
        inFlight: () => this.#inFlight,
      });
      const sinks = { validating: createValidatingPolicyMetrics(options.registry).family, mutating: createMutatingPolicyMetrics(options.registry).family };
      this.#workerMetrics = new WorkerMetrics(sinks, (id) => this.#post({ type: 'collect', id }), () => this.#threadIds());
      sinks.validating.pullBeforeScrape(() => this.collectMetrics());
      sinks.mutating.pullBeforeScrape(() => this.collectMetrics());
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

  /** requests in the pool now (queued or being evaluated) */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** When the pool last became empty (performance.now(), ms; -Infinity when it never held a request). */
  get emptySince(): number {
    return this.#emptySince;
  }

  /**
   * When every worker is held by one long evaluation (a runaway, held.ts): the smallest body among the requests
   * holding them, bytes; 0 when some worker is not held. A request handed over now would wait for one to finish.
   */
  heldBy(): number {
    return this.#inFlight === 0 ? 0 : this.#held.heldBy(this.#threadIds());
  }

  /** Workers held by one long evaluation now (held.ts). */
  heldWorkers(): number {
    const now = Date.now();
    return this.#threadIds().filter((id) => this.#held.isHeld(id, now)).length;
  }

  /** the underlying Piscina (tests and benchmarks: thread list, queue size) */
  get piscina(): Piscina {
    return this.#piscina;
  }

  /** How busy the workers were since the previous call, 0 to 1 (utilization.ts). */
  utilization(): number {
    return this.#utilization.since(this.#piscina.threads);
  }

  /** A new snapshot (a reload): every worker compiles it; tasks matched against it wait for it on their worker. */
  publish(snapshot: Snapshot): void {
    if (this.#closed) return;
    const data = snapshotData(snapshot);
    if (this.#snapshots.publish(data)) this.#post({ type: 'snapshot', ...data });
  }

  /** Every worker thread has compiled the current snapshot of every plugin. */
  isReady(): boolean {
    return this.#snapshots.isReady(() => this.#threadIds());
  }

  /**
   * Every worker thread has compiled the snapshot `hash` of `plugin`: a task naming it waits for no compile. Until
   * then (a reload being compiled on the workers, a replaced worker catching up) requests are evaluated on the main
   * thread.
   */
  hasCompiled(hash: string, plugin: PluginName = 'ValidatingAdmissionPolicy'): boolean {
    return this.#snapshots.hasCompiled(plugin, hash, () => this.#threadIds());
  }

  /**
   * The worker threads' ids, in Piscina's order, read per request (heldBy): Piscina's `threads` builds a new array
   * on every read, so the ids are kept until a worker is created or destroyed.
   */
  #threadIds(): readonly number[] {
    this.#ids ??= this.#piscina.threads.map((w) => w.threadId);
    return this.#ids;
  }

  /** Resolves once every worker has compiled the current snapshots (startup, after a reload); rejects after timeoutMs. */
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
        reject(new Error(`policy workers did not compile snapshot ${this.#snapshots.current().map((s) => s.hash).join(', ')} within ${timeoutMs}ms`));
      }, timeoutMs);
      this.#readyWaiters.add(check);
    });
  }

  /**
   * Hands a whole request to a worker (the thin main thread: a fixed header and the body bytes, transferred). Never
   * rejects: a worker that dies or fails yields `failure`, which the caller answers by the failure policy. `then`
   * turns what came back into the caller's answer in the same step (one promise per request, not two).
   */
  review(task: ReviewTask): Promise<PoolReview>;
  review<T>(task: ReviewTask, then: (review: PoolReview) => T): Promise<T>;
  review<T>(task: ReviewTask, then?: (review: PoolReview) => T): Promise<T | PoolReview> {
    endpointCode(task.endpoint);
    const started = this.#started();
    return new Promise<T | PoolReview>((resolve, reject) => {
      this.#reviews.submit(task, (outcome) => {
        this.#done();
        let review: PoolReview;
        if ('status' in outcome) {
          this.#metrics?.taskDone((performance.now() - started) / 1e3);
          review = { answer: outcome };
        } else review = this.#failed('failed' in outcome ? outcome.failed : new Error(outcome.error), 'failed' in outcome);
        // a `then` that throws rejects this request alone, not its batch-mates
        try {
          resolve(then === undefined ? review : then(review));
        } catch (err) {
          reject(err);
        }
      });
    });
  }

  /** Counts a request handed over; when it was (performance.now(), ms: a double, where hrtime.bigint() allocates). */
  #started(): number {
    this.#inFlight++;
    this.#tasksSent++;
    this.#metrics?.taskStarted();
    return performance.now();
  }

  /** A request handed over is done (answered or failed). */
  #done(): void {
    if (--this.#inFlight === 0) this.#emptySince = performance.now();
  }

  /** A task that did not come back: counted and logged, with the reason (`crashed`: Piscina rejected it). */
  #failed(err: unknown, rejected: boolean, counted = true): { readonly failure: WorkerFailureReason; readonly message: string } {
    const message = err instanceof Error ? err.message : String(err);
    const reason = workerFailureReason(err, message, rejected);
    if (counted) {
      this.#metrics?.failure(reason);
      this.#log?.error(err, 'Policy evaluation failed on a worker; answering by the failure policy', { reason });
    }
    return { failure: reason, message };
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
    const started = this.#started();
    return new Promise<PoolEvaluation>((resolve) => {
      let settled = false;
      const signal = ctx.signal;
      const finish = (result: PoolEvaluation): void => {
        if (settled) return;
        settled = true;
        this.#done();
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
      this.#policyTasks.submit(task, (outcome) => {
        if ('evaluations' in outcome) {
          this.#metrics?.taskDone((performance.now() - started) / 1e3);
          finish({ evaluations: [...outcome.evaluations] });
          return;
        }
        const { failure, message } = this.#failed('failed' in outcome ? outcome.failed : new Error(outcome.error), 'failed' in outcome, !settled);
        finish({ evaluations: failedEvaluations(plan, `policy worker failed while evaluating the request: ${message}`), failure });
      });
    });
  }

  /** Brings the check metrics observed on the workers into the registry's families (worker-metrics.ts). */
  collectMetrics(): Promise<void> {
    return this.#closed || this.#workerMetrics === undefined ? Promise.resolve() : this.#workerMetrics.collect();
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
    const found = overruns(this.#watchdog, this.#piscina.threads, now);
    for (const { worker, overrunMs } of found) {
      this.#metrics?.failure('overrun');
      this.#log?.info('Terminating a policy worker still evaluating past its task deadline', { threadId: worker.threadId, overrunMs });
      void worker.terminate();
    }
    return found.length;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#workerMetrics?.close();
    this.#channel.close();
    await this.#piscina.destroy();
  }

  #post(message: ChannelMessage): void {
    if (!this.#closed) this.#channel.postMessage(message);
  }

  #onChannelMessage(message: ChannelMessage): void {
    switch (message.type) {
      case 'hello':
        for (const s of this.#snapshots.current()) {
          if (!message.keys.includes(snapshotKey(s.plugin, s.hash))) this.#post({ type: 'snapshot', to: message.threadId, ...s });
        }
        break;
      case 'need': {
        const snapshot = this.#snapshots.find(message.plugin, message.hash);
        if (snapshot) this.#post({ type: 'snapshot', to: message.threadId, ...snapshot });
        break;
      }
      case 'compiled':
        if (message.error !== undefined) {
          this.#log?.error(new Error(message.error), 'A policy worker failed to compile a snapshot', { plugin: message.plugin, hash: message.hash, threadId: message.threadId });
          break;
        }
        if (!this.#snapshots.compiled(message.plugin, message.hash, message.threadId)) break;
        for (const check of [...this.#readyWaiters]) check();
        break;
      case 'metrics':
        this.#workerMetrics?.received(message);
        break;
      default:
        break;
    }
  }
}
