// Batching requests into Piscina tasks: the requests that become ready in one turn of the event loop go to a worker in
// one task, so one thread hand-off and wake-up serves them all (bench/hop.ts: one task per request cost ~400–600 µs
// CPU per request under load, batches ~250–300). One lane per task kind (PolicyTask, ReviewTask): a lane has its
// worker function and decodes the batch's answer into one result per request.
import type { Piscina } from 'piscina';

type Settle<R> = (outcome: R | { readonly failed: unknown }) => void;

export interface LaneOptions<R> {
  /** the worker's exported function (undefined: its default export) */
  readonly name: string | undefined;
  /** transfer the request buffers' ArrayBuffers instead of copying them */
  readonly transfer: boolean;
  /** worker threads that are not reserves (pool.ts): a turn's requests are split between these */
  readonly regular: number;
  /** one result per request of the batch, in order */
  decode(answer: Uint8Array): R[];
  /** a request the answer has no result for */
  readonly missing: R;
}

export class Lane<R> {
  #queue: Array<{ readonly task: Uint8Array; readonly settle: Settle<R> }> = [];
  #scheduled = false;

  constructor(
    private readonly piscina: Piscina,
    private readonly maxBatch: number,
    private readonly options: LaneOptions<R>,
  ) {}

  /** Queues one request's buffer; the queue goes to the workers once this turn of the event loop is over. */
  submit(task: Uint8Array, settle: Settle<R>): void {
    this.#queue.push({ task, settle });
    if (this.#queue.length >= this.maxBatch * this.#threads()) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.#scheduled = false;
    // as many batches as regular workers (Piscina's balancer gives each to the least busy), each at most maxBatch
    const threads = this.#threads();
    const queue = this.#queue;
    this.#queue = [];
    // A batch is answered when its last request is: a request more than twice the size of the smallest in its batch
    // starts a batch of its own, so that small requests do not wait for a large one that may run to the CEL cost
    // limit (CEL's cost grows with the object; docs/adr/0004). Smallest first.
    if (queue.length > 1) queue.sort((x, y) => x.task.byteLength - y.task.byteLength);
    const perBatch = Math.min(this.maxBatch, Math.ceil(queue.length / threads));
    for (let start = 0; start < queue.length;) {
      const limit = 2 * queue[start]!.task.byteLength;
      let end = start + 1;
      while (end < queue.length && end - start < perBatch && queue[end]!.task.byteLength <= limit) end++;
      this.#run(queue.slice(start, end));
      start = end;
    }
  }

  #threads(): number {
    return Math.max(1, Math.min(this.options.regular, this.piscina.threads.length));
  }

  #run(batch: ReadonlyArray<{ readonly task: Uint8Array; readonly settle: Settle<R> }>): void {
    const { name, transfer, decode, missing } = this.options;
    const tasks = batch.map((b) => b.task);
    this.piscina.run(tasks, { name: name ?? null, ...(transfer ? { transferList: tasks.map((t) => t.buffer as ArrayBuffer) } : {}) }).then(
      (answer: Uint8Array) => {
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
        for (const b of batch) b.settle({ failed: err });
      },
    );
  }
}
