// The replay pipeline: the reading thread streams the logs (events.ts), drops what cannot be replayed from the text
// alone (filter.ts), and routes each write to a shard by the object it writes, in batches; the shards rebuild and
// decide on worker threads, one per core (or here, with no workers); their results are handed on in input order.
//
// Memory is bounded: each shard has at most `maxInFlight` batches outstanding and the results not yet delivered (held
// for an earlier one, or by a slow stdout) at most as many as all shards' batches — reading waits for both — and each
// shard tracks at most maxObjects stored objects.
import { Worker } from 'node:worker_threads';
import type { ChainSpec } from './chains.js';
import { readAuditRecords } from './events.js';
import type { MalformedRecord } from './events.js';
import { classifyRecord, shardOf } from './filter.js';
import type { SkipReason } from './filter.js';
import type { StoredObject } from './objects.js';
import type { ScopeSpec } from './scope.js';
import type { EventResult, ReplayShard, ShardRecord } from './shard.js';

/** What a replay worker is started with (workers/replay-worker.ts). */
export interface ReplayWorkerData {
  readonly candidate: ChainSpec;
  readonly baseline?: ChainSpec;
  /** the registration's scope, derived from the candidate set or read from a file */
  readonly scope?: ScopeSpec;
  readonly maxObjects: number;
  readonly seed: ReadonlyArray<readonly [string, StoredObject]>;
}

export type WorkerRequest = { readonly id: number; readonly records: readonly ShardRecord[] };
export type WorkerReply =
  | { readonly ready: true }
  | { readonly fatal: string }
  | { readonly id: number; readonly results: readonly EventResult[] }
  | { readonly id: number; readonly error: string };

export interface Progress {
  readonly read: number;
  readonly decided: number;
}

export interface ReplayRunOptions {
  readonly files: readonly string[];
  /** worker threads; 0 decides on this thread with `inline` */
  readonly workers: number;
  readonly inline?: ReplayShard;
  readonly workerData?: ReplayWorkerData;
  /** each event's result, in input order */
  readonly onResult: (result: EventResult) => void | Promise<void>;
  readonly onMalformed?: (record: MalformedRecord) => void;
  readonly onProgress?: (progress: Progress) => void;
  readonly batchSize?: number;
  readonly maxInFlight?: number;
  /** stops reading: what was handed to the shards is still decided and delivered */
  readonly signal?: AbortSignal;
}

export interface ReplayTotals {
  /** events read */
  readonly read: number;
  /** skipped before a shard saw them, by reason (the shards' skips come as results) */
  readonly skipped: Readonly<Partial<Record<SkipReason, number>>>;
  /** reading stopped early (the signal) */
  readonly interrupted: boolean;
}

interface Shard {
  send(records: readonly ShardRecord[]): Promise<readonly EventResult[]>;
  close(): Promise<void>;
  /** batches outstanding */
  readonly inFlight: number;
}

function inlineShard(shard: ReplayShard): Shard {
  let inFlight = 0;
  return {
    async send(records) {
      inFlight++;
      try {
        return await shard.process(records);
      } finally {
        inFlight--;
      }
    },
    close: async () => {},
    get inFlight() {
      return inFlight;
    },
  };
}

const workerFile = new URL('../../workers/replay-worker.js', import.meta.url);

async function workerShard(data: ReplayWorkerData): Promise<Shard> {
  const worker = new Worker(workerFile, { workerData: data });
  const waiting = new Map<number, { resolve: (r: readonly EventResult[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  const failAll = (err: Error): void => {
    failure ??= err;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  // only the listeners added here are removed: Worker keeps its own (newListener) to start its message port
  let onError: (err: Error) => void = () => {};
  let onExit: (code: number) => void = () => {};
  let onMessage: (m: WorkerReply) => void = () => {};
  await new Promise<void>((resolve, reject) => {
    onError = reject;
    onExit = (code) => reject(new Error(`replay worker exited with code ${code} before it was ready`));
    onMessage = (m) => ('fatal' in m ? reject(new Error(m.fatal)) : resolve());
    worker.once('error', onError).once('exit', onExit).once('message', onMessage);
  }).catch(async (err: Error) => {
    await worker.terminate();
    throw err;
  });
  worker.off('error', onError).off('exit', onExit).off('message', onMessage);
  worker.on('error', (err) => failAll(err));
  worker.on('exit', (code) => failAll(new Error(`replay worker exited with code ${code}`)));
  worker.on('message', (m: WorkerReply) => {
    if (!('id' in m)) return;
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if ('error' in m) w?.reject(new Error(m.error));
    else w?.resolve(m.results);
  });
  return {
    send(records) {
      if (failure !== undefined) return Promise.reject(failure);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, records } satisfies WorkerRequest);
      });
    },
    async close() {
      failure ??= new Error('replay worker closed');
      await worker.terminate();
    },
    get inFlight() {
      return waiting.size;
    },
  };
}

/** Runs the replay; rejects when a file cannot be read or a worker fails. */
export async function runReplay(options: ReplayRunOptions): Promise<ReplayTotals> {
  const batchSize = options.batchSize ?? 256;
  const maxInFlight = options.maxInFlight ?? 4;
  const shards: Shard[] = [];
  if (options.workers <= 0) {
    if (options.inline === undefined) throw new Error('runReplay: no workers and no inline shard');
    shards.push(inlineShard(options.inline));
  } else {
    if (options.workerData === undefined) throw new Error('runReplay: workers need workerData');
    try {
      for (let i = 0; i < options.workers; i++) shards.push(await workerShard(options.workerData));
    } catch (err) {
      await Promise.all(shards.map((s) => s.close()));
      throw err;
    }
  }
  const skipped: Partial<Record<SkipReason, number>> = {};
  let read = 0;
  let decided = 0;
  let nextSeq = 0;
  let seq = 0;
  const ready = new Map<number, EventResult>();
  const batches: ShardRecord[][] = shards.map(() => []);
  const sends = new Set<Promise<void>>();
  let failure: unknown;
  // delivery runs one at a time, in input order
  let delivering: Promise<void> = Promise.resolve();

  let deliveryActive = false;
  const deliver = (): void => {
    delivering = delivering.then(async () => {
      deliveryActive = true;
      try {
        while (ready.has(nextSeq)) {
          const r = ready.get(nextSeq)!;
          ready.delete(nextSeq);
          nextSeq++;
          decided++;
          await options.onResult(r);
        }
      } finally {
        deliveryActive = false;
      }
    });
  };
  const flush = (i: number): void => {
    const records = batches[i]!;
    if (records.length === 0) return;
    batches[i] = [];
    const p: Promise<void> = shards[i]!.send(records).then(
      (results) => {
        for (const r of results) ready.set(r.seq, r);
        deliver();
      },
      (err: unknown) => {
        failure ??= err;
      },
    ).finally(() => sends.delete(p));
    sends.add(p);
  };
  // results waiting to be delivered (for an earlier one, or for a slow stdout) hold reading back too
  const backlogLimit = shards.length * maxInFlight * batchSize;
  const waitForRoom = async (i: number): Promise<void> => {
    while (failure === undefined) {
      const full = ready.size >= backlogLimit;
      if (!full && shards[i]!.inFlight < maxInFlight) return;
      // the result delivery waits for may sit in another shard's unsent batch
      if (full) for (let j = 0; j < shards.length; j++) flush(j);
      const waits: Array<Promise<unknown>> = [...sends];
      if (full && deliveryActive) waits.push(delivering);
      // nothing in flight can change it: go on rather than wait forever
      if (waits.length === 0) return;
      await Promise.race(waits);
    }
  };

  let lastProgress = 0;
  try {
    for await (const record of readAuditRecords(options.files)) {
      if (failure !== undefined || options.signal?.aborted === true) break;
      read++;
      if ('malformed' in record) {
        skipped.malformed = (skipped.malformed ?? 0) + 1;
        options.onMalformed?.(record);
        continue;
      }
      const classified = classifyRecord(record);
      if ('malformed' in classified) {
        skipped.malformed = (skipped.malformed ?? 0) + 1;
        options.onMalformed?.({ file: record.file, line: record.line, malformed: classified.malformed });
        continue;
      }
      if ('skip' in classified) {
        skipped[classified.skip] = (skipped[classified.skip] ?? 0) + 1;
        continue;
      }
      const i = shards.length === 1 ? 0 : shardOf(classified.key, shards.length);
      const event = record.event ?? classified.event;
      batches[i]!.push(event !== undefined ? { seq: seq++, event } : { seq: seq++, text: record.text! });
      if (batches[i]!.length >= batchSize) {
        await waitForRoom(i);
        flush(i);
      }
      if (options.onProgress !== undefined && read - lastProgress >= 10_000) {
        lastProgress = read;
        options.onProgress({ read, decided });
      }
    }
    for (let i = 0; i < shards.length; i++) flush(i);
    while (sends.size > 0) await Promise.race(sends);
    await delivering;
    if (failure !== undefined) throw failure;
    options.onProgress?.({ read, decided });
  } finally {
    await Promise.all(shards.map((s) => s.close()));
  }
  return { read, skipped, interrupted: options.signal?.aborted === true };
}
