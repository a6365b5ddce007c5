// What the main thread and the policy workers tell each other outside the tasks themselves: the worker's startup
// data, the snapshot messages on the pool's BroadcastChannel, and the shared watchdog table.
//
// Snapshots travel on a BroadcastChannel (one per pool, named in workerData), not on `pool.threads[i].postMessage`:
// Piscina 5's worker treats every message on its parentPort as its startup handshake, so a message posted there
// kills the worker. The channel reaches every worker, including ones Piscina starts later to replace a dead one.
import type { LoadedManifests } from '../../manifest/load.js';
import type { PluginName } from '../../manifest/plugins.js';
import type { HistogramDelta } from '../../metrics/aggregated.js';

/** One snapshot as the workers receive it: the loaded manifests (JSON), compiled by each worker once. */
export interface SnapshotData {
  readonly plugin: PluginName;
  readonly hash: string;
  readonly manifests: LoadedManifests;
}

export interface PolicyWorkerData {
  /** the BroadcastChannel name of this pool */
  readonly channel: string;
  /** the snapshots current when the pool started, one per plugin (a worker started later may get newer ones on the channel) */
  readonly snapshots: readonly SnapshotData[];
  /** compiled snapshots of each plugin a worker keeps (current plus the previous, for requests matched just before a reload) */
  readonly maxSnapshots: number;
  /** how long a task waits for a snapshot its worker has not compiled yet (further bounded by the task's deadline) */
  readonly snapshotWaitMs: number;
  /** the watchdog table (see watchdogLayout) */
  readonly watchdog: SharedArrayBuffer;
  /** test-only request uids that make the worker exit or hang (see workers/policy-worker.ts) */
  readonly testHooks: boolean;
  /** --authorization-kubeconfig ('' when unset): the worker's own SubjectAccessReview client reads it */
  readonly authorizationKubeconfig: string;
}

/** Main → workers. `to` set: only that worker (by threadId) installs it; unset: every worker does. */
export interface SnapshotMessage extends SnapshotData {
  readonly type: 'snapshot';
  readonly to?: number;
}

/** Worker → main: a task names a snapshot this worker does not have. */
export interface NeedMessage {
  readonly type: 'need';
  readonly plugin: PluginName;
  readonly hash: string;
  readonly threadId: number;
}

/** Worker → main: a worker started, holding these snapshots (snapshotKey). */
export interface HelloMessage {
  readonly type: 'hello';
  readonly threadId: number;
  readonly keys: readonly string[];
}

/** Worker → main: a snapshot is compiled and ready on this worker (or failed to compile there). */
export interface CompiledMessage {
  readonly type: 'compiled';
  readonly plugin: PluginName;
  readonly hash: string;
  readonly threadId: number;
  readonly error?: string;
}

/** Main → workers: hand over the policy check observations made since the last time (a scrape is waiting). */
export interface CollectMessage {
  readonly type: 'collect';
  readonly id: number;
}

/** Worker → main: the policy check observations made on this worker since it last sent them (`id` 0: unasked). */
export interface MetricsMessage {
  readonly type: 'metrics';
  readonly id: number;
  readonly threadId: number;
  readonly validating: readonly HistogramDelta[];
  readonly mutating: readonly HistogramDelta[];
}

export type ChannelMessage = SnapshotMessage | NeedMessage | HelloMessage | CompiledMessage | CollectMessage | MetricsMessage;

/** A snapshot's name on both sides: plugin and content hash (two plugins' empty directories share the hash ""). */
export function snapshotKey(plugin: PluginName, hash: string): string {
  return `${plugin} ${hash}`;
}

/**
 * The watchdog table, one slot per worker: Int32 owner threadId (claimed with compareExchange), then Float64 columns:
 * the deadline (epoch ms) of the request the worker is evaluating right now (0 when idle), when (epoch ms) it started
 * evaluating it, the size of that request's body, the worker's kernel thread id (0 where unknown), and 1 while the
 * main thread has lowered that thread's priority. The main thread terminates a worker still busy past that deadline,
 * and gives no new work to a worker held by one evaluation for long (pool/held.ts).
 */
export interface WatchdogTable {
  readonly owners: Int32Array;
  readonly busyUntil: Float64Array;
  readonly busySince: Float64Array;
  readonly busyBytes: Float64Array;
  readonly tid: Float64Array;
  readonly lowered: Float64Array;
  readonly slots: number;
}

const float64Columns = 5;
const slotBytes = 4 + 8 * float64Columns;

export function watchdogLayout(buffer: SharedArrayBuffer): WatchdogTable {
  const slots = Math.floor(buffer.byteLength / slotBytes);
  const ownersBytes = Math.ceil((slots * 4) / 8) * 8;
  const column = (i: number): Float64Array => new Float64Array(buffer, ownersBytes + i * slots * 8, slots);
  return { owners: new Int32Array(buffer, 0, slots), busyUntil: column(0), busySince: column(1), busyBytes: column(2), tid: column(3), lowered: column(4), slots };
}

export function createWatchdogBuffer(slots: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.ceil((slots * 4) / 8) * 8 + slots * 8 * float64Columns);
}

/** Request uids the worker reacts to when testHooks is set. */
export const testHookExit = 'static-admissiond-test:exit-worker';
export const testHookHang = 'static-admissiond-test:hang-worker';
