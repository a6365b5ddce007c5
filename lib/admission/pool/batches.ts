// Batching requests into Piscina tasks: the requests that become ready in one turn of the event loop go to a worker in
// one task, so one thread hand-off and wake-up serves them all (bench/hop.ts: one task per request cost ~400–600 µs
// CPU per request under load, batches ~250–300). One lane per task kind (PolicyTask, ReviewTask): a lane has its
// worker function and decodes the batch's answer into one result per request.
//
// A lane keeps at most `depth` batches in flight per regular worker (plus `depth` per worker held by a long
// evaluation, whose batch is not moving): a worker busy with one batch and holding the next would read a third only
// after both, so the requests that arrive meanwhile wait here and go together when an answer comes back. Under load
// that makes batches larger and thread hand-offs (a postMessage each way, waking a thread) fewer per request; with
// one batch in flight or none, as at low rates, nothing waits.
import type { Piscina } from 'piscina';

type Settle<R> = (outcome: R | { readonly failed: unknown }) => void;

/** What one Piscina task carries for a batch, and the ArrayBuffers moved to the worker with it. */
export interface Packed {
  readonly payload: unknown;
  readonly transferList?: ArrayBuffer[];
}

export interface LaneOptions<R, T = Uint8Array> {
  /** the worker's exported function (undefined: its default export) */
  readonly name: string | undefined;
  /** transfer the request buffers' ArrayBuffers instead of copying them (without `pack`) */
  readonly transfer: boolean;
  /**
   * A batch's requests as its Piscina task carries them, with what to transfer; default: the array of the requests'
   * buffers (T = Uint8Array), transferred when `transfer`.
   */
  pack?(tasks: readonly T[]): Packed;
  /** a request's size in bytes (batches are formed by size, see flush()); default its byteLength (T = Uint8Array) */
  size?(task: T): number;
  /** worker threads that are not reserves (pool.ts): a turn's requests are split between these */
  readonly regular: number;
  /**
   * the worker threads there are now; default Piscina's `threads.length` (which builds a new array on every read,
   * and this is read per request: the pool passes a count it keeps until a worker is created or destroyed)
   */
  readonly threads?: () => number;
  /** one result per request of the batch, in order */
  decode(answer: Uint8Array): R[];
  /** a request the answer has no result for */
  readonly missing: R;
  /** batches in flight per regular worker before further requests wait for an answer (default 2) */
  readonly depth?: number;
  /** workers held by one long evaluation now (held.ts): each gets `depth` more batches in flight */
  readonly heldWorkers?: () => number;
  /** told the largest request's size (bytes) of each batch just before it is handed to Piscina, and 0 after */
  readonly placing?: (bytes: number) => void;
}

interface Queued<R, T> {
  readonly task: T;
  readonly bytes: number;
  readonly settle: Settle<R>;
}

export class Lane<R, T = Uint8Array> {
  #queue: Array<Queued<R, T>> = [];
  #scheduled = false;
  /** batches posted to Piscina and not answered yet */
  #inFlight = 0;

  constructor(
    private readonly piscina: Piscina,
    private readonly maxBatch: number,
    private readonly options: LaneOptions<R, T>,
  ) {}

  /** Queues one request; the queue goes to the workers once this turn of the event loop is over. */
  submit(task: T, settle: Settle<R>): void {
    const bytes = this.options.size ? this.options.size(task) : (task as unknown as Uint8Array).byteLength;
    this.#queue.push({ task, bytes, settle });
    if (this.#queue.length >= this.maxBatch * this.#threads()) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0 || !this.#room()) return;
    // as many batches as regular workers (Piscina's balancer gives each to the least busy), each at most maxBatch
    const threads = this.#threads();
    const queue = this.#queue;
    this.#queue = [];
    // A batch is answered when its last request is: a request more than twice the size of the smallest in its batch
    // starts a batch of its own, so that small requests do not wait for a large one that may run to the CEL cost
    // limit (CEL's cost grows with the object; docs/adr/0004). Smallest first.
    if (queue.length > 1) queue.sort((x, y) => x.bytes - y.bytes);
    const perBatch = Math.min(this.maxBatch, Math.ceil(queue.length / threads));
    let start = 0;
    while (start < queue.length && (start === 0 || this.#room())) {
      const limit = 2 * queue[start]!.bytes;
      let end = start + 1;
      while (end < queue.length && end - start < perBatch && queue[end]!.bytes <= limit) end++;
      this.#run(queue.slice(start, end));
      start = end;
    }
    // what found no room waits for the next answer, smallest first still
    if (start < queue.length) this.#queue = start === 0 ? queue : queue.slice(start).concat(this.#queue);
  }

  /** Whether another batch may go now (see the file's comment); the held workers are counted only when it is full. */
  #room(): boolean {
    const depth = this.options.depth ?? 2;
    const limit = depth * this.#threads();
    return this.#inFlight < limit || this.#inFlight < limit + depth * (this.options.heldWorkers?.() ?? 0);
  }

  /** A batch was answered (or failed): what waited for room goes now. */
  #answered(): void {
    this.#inFlight--;
    if (this.#queue.length > 0 && !this.#scheduled) this.flush();
  }

  #threads(): number {
    return Math.max(1, Math.min(this.options.regular, this.options.threads ? this.options.threads() : this.piscina.threads.length));
  }

  #pack(tasks: readonly T[]): Packed {
    if (this.options.pack) return this.options.pack(tasks);
    const buffers = tasks as unknown as readonly Uint8Array[];
    return { payload: buffers, ...(this.options.transfer ? { transferList: buffers.map((t) => t.buffer as ArrayBuffer) } : {}) };
  }

  #run(batch: ReadonlyArray<Queued<R, T>>): void {
    const { name, decode, missing } = this.options;
    const { payload, transferList } = this.#pack(batch.map((b) => b.task));
    this.#inFlight++;
    // the balancer runs inside run() when a worker can take the batch at once: it may weigh the batch's size (held.ts):
    // the queue is sorted by size, so the batch's largest request is its last
    const placing = this.options.placing;
    placing?.(batch[batch.length - 1]!.bytes);
    const running = this.piscina.run(payload, { name: name ?? null, ...(transferList ? { transferList } : {}) });
    placing?.(0);
    running.then(
      (answer: Uint8Array) => {
        this.#answered();
        let results: R[];
        try {
          results = decode(answer);
        } catch (err) {
          for (const b of batch) b.settle({ failed: err });
          return;
        }
        batch.forEach((b, i) => b.settle(results[i] ?? missing));
      },
      (err: unknown) => {
        this.#answered();
        for (const b of batch) b.settle({ failed: err });
      },
    );
  }
}
