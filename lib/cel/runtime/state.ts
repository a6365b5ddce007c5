// Per-evaluation state: the activation, the slots of comprehension and cel.bind variables, and the runtime cost
// budget with its periodic deadline / abort check (Kubernetes' per-call cost limit and request deadline).

import { CelInterruption } from './values.js';

/** Kubernetes' per-expression runtime cost limit (celconfig.PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;

/** upstream's wording (cel-go interpreter) when the budget runs out */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
/** cel-go's wording when evaluation is interrupted (context deadline or cancellation) */
export const OPERATION_INTERRUPTED = 'operation interrupted';

/** How much cost may accrue between two deadline / abort checks. */
const CHECK_INTERVAL = 1000;

export interface EvalOptions {
  /** cost budget; defaults to PER_CALL_COST_LIMIT */
  readonly costLimit?: number;
  /** epoch milliseconds after which evaluation is stopped with an error */
  readonly deadline?: number;
  /** stops evaluation with an error once aborted */
  readonly signal?: AbortSignal;
  /** called periodically; return true to stop evaluation with an error */
  readonly interrupted?: () => boolean;
}

export class EvalState {
  /** accumulated cost */
  cost = 0;
  /** next cost at which to run checkpoint() */
  next = 0;
  slots: unknown[];
  limit = PER_CALL_COST_LIMIT;
  vars: Readonly<Record<string, unknown>> = NO_VARS;
  private deadline = Infinity;
  private signal: AbortSignal | undefined = undefined;
  private interrupted: (() => boolean) | undefined = undefined;

  constructor(vars: Readonly<Record<string, unknown>>, slotCount: number, options: EvalOptions | undefined) {
    this.slots = slotCount === 0 ? EMPTY_SLOTS : new Array<unknown>(slotCount);
    this.begin(vars, options);
  }

  /**
   * Starts an evaluation: cost at zero, the budget and checks of `options`. A compiled expression keeps one state
   * and begins it again for each evaluation (reused, not allocated per request; see release).
   */
  begin(vars: Readonly<Record<string, unknown>>, options: EvalOptions | undefined): void {
    this.vars = vars;
    this.cost = 0;
    this.limit = options?.costLimit ?? PER_CALL_COST_LIMIT;
    this.deadline = options?.deadline ?? Infinity;
    this.signal = options?.signal;
    this.interrupted = options?.interrupted;
    this.next = Math.min(this.limit, CHECK_INTERVAL);
    if (this.signal?.aborted === true || this.interrupted?.() === true || (this.deadline !== Infinity && Date.now() > this.deadline)) {
      throw new CelInterruption(OPERATION_INTERRUPTED);
    }
  }

  /**
   * Makes room for `count` slots, at the start of an evaluation: a generated function built after this state was
   * (tiering.ts) numbers its own.
   */
  reserveSlots(count: number): void {
    if (this.slots.length < count) this.slots = new Array<unknown>(count);
  }

  /** Drops what the evaluation referenced (the request's values), so that a kept state retains nothing. */
  release(): void {
    this.vars = NO_VARS;
    this.signal = undefined;
    this.interrupted = undefined;
    this.slots.fill(undefined);
  }

  /** Adds cost; checks the budget and, every CHECK_INTERVAL, the deadline. */
  tick(cost: number): void {
    this.cost += cost;
    if (this.cost > this.next) this.checkpoint();
  }

  checkpoint(): void {
    if (this.cost > this.limit) throw new CelInterruption(COST_LIMIT_EXCEEDED);
    if (this.signal?.aborted === true || (this.deadline !== Infinity && Date.now() > this.deadline) || this.interrupted?.() === true) {
      throw new CelInterruption(OPERATION_INTERRUPTED);
    }
    this.next = Math.min(this.limit, this.cost + CHECK_INTERVAL);
  }
}

const EMPTY_SLOTS: unknown[] = [];
const NO_VARS: Readonly<Record<string, unknown>> = Object.freeze({});
