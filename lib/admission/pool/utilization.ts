// How busy the policy workers were between two readings (the pool's utilization gauge, read at scrapes): the mean of
// the worker threads' event-loop utilization since each one's previous reading. Piscina's own `utilization` is not
// used: in 5.3 it divides seconds by milliseconds (1000× too small) and adds up task run times that overlap when a
// worker holds several tasks.
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';

export class WorkerUtilization {
  readonly #last = new WeakMap<Worker, EventLoopUtilization>();

  /** 0 to 1: the workers' mean utilization since the previous call (the first call: since they started). */
  since(threads: readonly Worker[]): number {
    if (threads.length === 0) return 0;
    let sum = 0;
    for (const worker of threads) {
      const now = worker.performance.eventLoopUtilization();
      const last = this.#last.get(worker);
      this.#last.set(worker, now);
      const u = last ? worker.performance.eventLoopUtilization(now, last).utilization : now.utilization;
      // a worker's first readings, before its event loop has run, can be off by a little either way
      sum += Number.isFinite(u) ? Math.min(1, Math.max(0, u)) : 0;
    }
    return sum / threads.length;
  }
}
