// Isolation from runaway evaluations (docs/adr/0004): a worker that has been evaluating one request for longer than
// `heldAfterMs` is "held" (a request near the CEL cost limit, a huge object). Work already posted to a worker cannot
// be taken back, so the pool keeps new work away from held workers, and keeps reserve workers that take work only
// when every regular worker is held (or full): Piscina's load balancer, below. While every worker is held, a task
// waits in Piscina's queue for the first one to come free rather than behind a runaway. The workers write when they
// started their current evaluation, and its size, into the shared watchdog table (protocol.ts); reading it is a few
// array loads per decision. While every worker is held, the request path evaluates inline a request less than half
// the size of every request holding them (lib/review/dispatch.ts): CEL's cost grows with the object, so that one is
// unlikely to be another runaway, and waiting would cost it at least the rest of one.
import type { Piscina } from 'piscina';
import { heldNiceFor, mayRestorePriority, processNice, setThreadNice } from './priority.js';
import type { WatchdogTable } from './protocol.js';

type PiscinaOptions = NonNullable<ConstructorParameters<typeof Piscina>[0]>;
export type LoadBalancer = NonNullable<PiscinaOptions['loadBalancer']>;
type BalancedWorker = Parameters<LoadBalancer>[1][number];

/** Evaluating one request for longer than this (ms) makes a worker held. */
export const defaultHeldAfterMs = 5;

/**
 * A worker evaluating a request more than twice the size of the largest in the batch being placed, for longer than
 * this (ms), gets no share of that batch either (see balancer()).
 */
export const defaultLargerAfterMs = 1;

export class HeldWorkers {
  /** threadId → its slot in the table (claimed by the worker at start; re-read when missing or stale) */
  readonly #slots = new Map<number, number>();

  /** lower the priority of held workers (only where they can raise it back: priority.ts) */
  readonly #lowerHeld: boolean;

  /** the nice value a held worker gets: 10 steps below the process's */
  readonly #heldNice = heldNiceFor(processNice());

  /**
   * The largest request (bytes) of the batch the pool is placing right now (0: not known, e.g. a batch placed later
   * from Piscina's queue). Set by the pool around each Piscina run(), read by the balancer it calls synchronously.
   */
  placing = 0;

  constructor(
    private readonly table: WatchdogTable,
    private readonly heldAfterMs: number,
    lowerHeld = true,
  ) {
    this.#lowerHeld = lowerHeld && mayRestorePriority();
  }

  #slot(threadId: number): number {
    const cached = this.#slots.get(threadId);
    if (cached !== undefined && Atomics.load(this.table.owners, cached) === threadId) return cached;
    this.#slots.delete(threadId);
    for (let i = 0; i < this.table.slots; i++) {
      if (Atomics.load(this.table.owners, i) === threadId) {
        this.#slots.set(threadId, i);
        return i;
      }
    }
    return -1;
  }

  /** Whether thread `threadId` has been evaluating one request for longer than heldAfterMs at `now` (epoch ms). */
  isHeld(threadId: number, now = Date.now()): boolean {
    return this.#slotHeld(this.#slot(threadId), now);
  }

  /** Whether the worker in table slot `slot` (-1: none) is held at `now`; a held one's priority is lowered. */
  #slotHeld(slot: number, now: number): boolean {
    if (slot < 0) return false;
    const since = this.table.busySince[slot]!;
    if (since === 0 || now - since <= this.heldAfterMs) return false;
    this.#lower(slot);
    return true;
  }

  /** Lowers a held worker's priority once; the worker raises it back when its evaluation is over (priority.ts). */
  #lower(slot: number): void {
    const { tid, lowered } = this.table;
    if (!this.#lowerHeld || lowered[slot] === 1 || tid[slot] === 0) return;
    if (setThreadNice(tid[slot]!, this.#heldNice)) lowered[slot] = 1;
  }

  /**
   * When every one of `threadIds` is held: the smallest body among the requests holding them (bytes); else 0.
   * A request much smaller than every runaway in progress is the one the request path may evaluate inline.
   */
  heldBy(threadIds: Iterable<number>, now = Date.now()): number {
    let smallest = Infinity;
    for (const id of threadIds) {
      const slot = this.#slot(id);
      if (!this.#slotHeld(slot, now)) return 0;
      smallest = Math.min(smallest, this.table.busyBytes[slot]!);
    }
    return Number.isFinite(smallest) ? smallest : 0;
  }

  /**
   * Piscina's load balancer. The first `regular` workers (Piscina's list is in order of creation; a replacement
   * comes last, so roles follow position) take the work: an idle one, else the least busy one that is not held and
   * has room (`maximumUsage` tasks, as Piscina's own LeastBusyBalancer). The reserve workers after them take work
   * only when no regular one can, idle first, never a held one: under normal load they sleep, and waking a second
   * thread per turn would cost the main thread (bench: +40% CPU per request with an idle reserve preferred). None at
   * all: the task waits in Piscina's queue for the first worker to come free, not behind a runaway. Abortable tasks
   * are not used by the pool (pool.ts), so Piscina's rule for them is not needed.
   */
  balancer(regular: number, maximumUsage: number, largerAfterMs = defaultLargerAfterMs): LoadBalancer {
    return (_task, workers) => {
      const now = Date.now();
      const placing = this.placing;
      let candidate: BalancedWorker | null = null;
      let least = maximumUsage;
      for (let i = 0; i < workers.length; i++) {
        // every regular worker looked at and one found: the reserves are not needed
        if (i === regular && candidate !== null) return candidate;
        const worker = workers[i]!;
        if (worker.currentUsage === 0) return worker;
        if (worker.currentUsage < least && !this.isHeld(worker.id, now) && !this.#busyWithLarger(worker.id, placing, now, largerAfterMs)) {
          candidate = worker;
          least = worker.currentUsage;
        }
      }
      return candidate;
    };
  }

  /**
   * Whether thread `threadId` has been evaluating, for longer than `afterMs`, a request more than twice the size of
   * the largest one being placed (`placing` bytes; 0: unknown, never). CEL's cost grows with the object: such a
   * request may be the start of a runaway, and a batch of small ones would wait for all of it before the worker
   * looks held (heldAfterMs); an idle reserve answers them instead.
   */
  #busyWithLarger(threadId: number, placing: number, now: number, afterMs: number): boolean {
    if (placing === 0) return false;
    const slot = this.#slot(threadId);
    if (slot < 0) return false;
    const since = this.table.busySince[slot]!;
    return since !== 0 && now - since > afterMs && this.table.busyBytes[slot]! > 2 * placing;
  }
}
