// The main thread's side of the watchdog table (protocol.ts watchdogLayout): which worker threads are still busy
// with a task past that task's deadline. Slots of threads that are gone are freed for their replacements.
import type { Worker } from 'node:worker_threads';
import type { WatchdogTable } from './protocol.js';

export interface Overrun {
  readonly worker: Worker;
  /** how long past the deadline, ms */
  readonly overrunMs: number;
}

/** The workers busy past their task's deadline at `now`; their slots are cleared (each is reported once). */
export function overruns(table: WatchdogTable, threads: readonly Worker[], now: number): Overrun[] {
  const { owners, busyUntil, slots } = table;
  const live = new Map(threads.map((w) => [w.threadId, w]));
  const found: Overrun[] = [];
  for (let i = 0; i < slots; i++) {
    const owner = Atomics.load(owners, i);
    if (owner === 0) continue;
    const worker = live.get(owner);
    if (worker === undefined) {
      // the worker is gone: free its slot for a replacement
      busyUntil[i] = 0;
      table.busySince[i] = 0;
      table.busyBytes[i] = 0;
      table.tid[i] = 0;
      table.lowered[i] = 0;
      Atomics.compareExchange(owners, i, owner, 0);
      continue;
    }
    const until = busyUntil[i]!;
    if (until > 0 && until <= now) {
      busyUntil[i] = 0;
      found.push({ worker, overrunMs: now - until });
    }
  }
  return found;
}
