// The check metrics the policy workers observe, brought into the main thread's registry when a scrape asks: every
// worker is asked on the pool's channel and the answers awaited (at most `waitMs`: a worker busy that long sends
// its observations with the next scrape, nothing is lost). Workers also send them every few seconds unasked, so a
// worker that dies loses at most that much. Concurrent callers (the families of one scrape) share one round.
import type { CheckFamily } from '../../metrics/checks.js';
import type { MetricsMessage } from './protocol.js';

export class WorkerMetrics {
  #round: { readonly id: number; readonly waiting: Set<number>; readonly done: () => void } | undefined;
  #collected: Promise<void> | undefined;
  #lastId = 0;

  constructor(
    private readonly sinks: { readonly validating: CheckFamily; readonly mutating: CheckFamily },
    /** asks every worker for its observations (posts a collect message) */
    private readonly ask: (id: number) => void,
    private readonly threadIds: () => readonly number[],
    private readonly waitMs = 500,
  ) {}

  /** Resolves once every live worker has sent its observations, or after waitMs. */
  collect(): Promise<void> {
    this.#collected ??= new Promise<void>((resolve) => {
      const id = ++this.#lastId;
      const timer = setTimeout(() => done(), this.waitMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#round = undefined;
        this.#collected = undefined;
        resolve();
      };
      this.#round = { id, waiting: new Set(this.threadIds()), done };
      if (this.#round.waiting.size === 0) return done();
      this.ask(id);
    });
    return this.#collected;
  }

  /** A worker's observations arrived (asked for or not). */
  received(message: MetricsMessage): void {
    this.sinks.validating.merge(message.validating);
    this.sinks.mutating.merge(message.mutating);
    const round = this.#round;
    if (round === undefined || message.id !== round.id) return;
    round.waiting.delete(message.threadId);
    // a worker that died meanwhile will not answer
    const live = new Set(this.threadIds());
    if ([...round.waiting].every((id) => !live.has(id))) round.done();
  }

  close(): void {
    this.#round?.done();
  }
}
