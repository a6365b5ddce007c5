// The policy pool's options and what its calls answer (pool.ts), with the defaults: the pool's interface apart from
// its implementation.
import { availableParallelism } from 'node:os';
import type { ResourceLimits } from 'node:worker_threads';
import type { Registry } from 'prom-client';
import type { Logger } from '../../log/logger.js';
import type { Snapshot } from '../../reload/snapshot.js';
import type { PolicyEvaluation } from '../validating/dispatcher.js';
import type { WorkerFailureReason } from './metrics.js';

/** `--workers` default: every core but one for the main thread, at least one (os.cpus() is empty under ProcSubset=pid). */
export function defaultPoolThreads(): number {
  return Math.max(1, availableParallelism() - 1);
}

export const defaultConcurrentTasksPerWorker = 16;
/**
 * `--worker-max-old-space-size` default, MiB: the old generation of each worker's heap. The largest request a worker
 * evaluates (a 7 MiB review of many small objects, object and oldObject) peaks near 200 MiB of heap (bench/hostile.ts,
 * systemd/README.md "Memory"); without a limit V8 sizes each worker's heap from the machine's memory (gigabytes) and
 * keeps what it grew to.
 */
export const defaultWorkerMaxOldSpaceMb = 512;
/** The least `--worker-max-old-space-size` accepted, MiB: below it a worker cannot even compile a small policy set. */
export const minWorkerMaxOldSpaceMb = 32;
export const defaultReserveThreads = 1;
export const defaultMaxBatch = 32;
export const defaultBatchesInFlight = 2;

export interface PolicyPoolOptions {
  /** worker threads (--workers), at least 1 */
  readonly threads: number;
  /** the ValidatingAdmissionPolicy snapshot current at start (the workers compile it before their first task) */
  readonly snapshot?: Snapshot;
  /** further snapshots current at start, of other policy plugins (MutatingAdmissionPolicy) */
  readonly snapshots?: readonly Snapshot[];
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
  /**
   * Batches of one task kind in flight per regular worker (and per held one) before further requests wait on the
   * main thread for an answer to come back, to go in one larger batch (batches.ts). Default 2.
   */
  readonly batchesInFlight?: number;
  /** the pool's metrics, and the policy check metrics the workers observe, are registered here */
  readonly registry?: Registry;
  readonly logger?: Logger;
  /** compiled snapshots per plugin and worker; default 2 */
  readonly maxSnapshots?: number;
  /** how long a task waits on a worker for a snapshot it has not compiled; default 5s (and never past the deadline) */
  readonly snapshotWaitMs?: number;
  /** a worker evaluating one request for longer than this (ms) takes no new work (held.ts); default 5 */
  readonly heldAfterMs?: number;
  /**
   * Reserve workers besides `threads`, started with them: they take work only while every regular worker is held
   * by a long evaluation or full (held.ts), so that a runaway holds its own thread and not the requests behind it.
   * Default 1.
   */
  readonly reserveThreads?: number;
  /**
   * Each worker's heap limits (Piscina's resourceLimits): a worker reaching them is terminated, its requests are
   * answered by their failure policy (reason "memory" in the failures metric) and Piscina starts another. Default:
   * old generation defaultWorkerMaxOldSpaceMb, the rest V8's.
   */
  readonly resourceLimits?: ResourceLimits;
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

/** What came back for a whole request: the answer's bytes, or why the worker gave none. */
export type PoolReview =
  | { readonly answer: { readonly status: number; readonly body: Uint8Array; readonly reason: string; readonly message: string } }
  | { readonly failure: WorkerFailureReason; readonly message: string };
