// When an expression's evaluations move from the planner's closures to its generated function (codegen.ts).
import type { Eval } from './plan-support.js';

/** When evaluations run the generated function (see TieredEvaluation and PlanOptions.generate). */
export type Generation = 'whenHot' | 'always' | 'never';

let defaultGeneration: Generation = 'whenHot';

/**
 * The generation of plans whose options name none, for this thread from now on: a harness comparing the daemon with
 * upstream (test/upstream) sets `always`, so that its few evaluations per expression judge the generated code.
 */
export function setDefaultGeneration(mode: Generation): void {
  defaultGeneration = mode;
}

export function currentDefaultGeneration(): Generation {
  return defaultGeneration;
}

/**
 * Evaluations are counted in runs of HOT_RUN: a run within HOT_RUN_MS moves an expression to its generated function,
 * a run longer than COLD_RUN_MS moves it back to the closures (between the two it stays where it is).
 */
const HOT_RUN = 256;
const HOT_RUN_MS = 1000;
const COLD_RUN_MS = 2000;

/**
 * An expression's evaluation on the planner's closures or on its generated function, whichever suits how often it
 * runs on this thread.
 *
 * It starts on the closures. V8 optimizes a function after it has run enough of its own bytecode, and a generated
 * function runs once per evaluation, where the closures are shared by every expression and run hot from the start:
 * at a few evaluations a second a generated function stays unoptimized for minutes, slower than the closures; at
 * hundreds a second it is optimized within seconds and then takes about half the closures' CPU. When the rate falls
 * again it goes back: an evaluation after idle time runs from cold caches, where forty expressions' own machine code
 * costs more to fetch than the closures they share (at 50 req/s after a busy spell, `--workers 0` answered 0.2–0.4 ms
 * slower on generated code than on closures: docs/adr/0001-cel-engine.md, "generated evaluation").
 *
 * `build` makes the function (the expression parsed again, planned and generated: a few hundred µs, once per
 * expression and thread); it runs in its own turn of the event loop, not inside the request that found the
 * expression hot, and nothing is kept for the expressions that never get hot. A build that fails leaves the closures.
 */
export class TieredEvaluation {
  readonly #closures: Eval;
  #run: Eval;
  #left = HOT_RUN;
  #since = -1;
  #build: (() => Eval | undefined) | undefined;
  #generated: Eval | undefined;

  constructor(closures: Eval, build: () => Eval | undefined) {
    this.#closures = closures;
    this.#run = closures;
    this.#build = build;
  }

  readonly evaluate: Eval = (s) => {
    if (--this.#left <= 0) this.#count();
    return this.#run(s);
  };

  /** whether evaluations run the generated function now */
  get generated(): boolean {
    return this.#run !== this.#closures;
  }

  #count(): void {
    const now = performance.now();
    const elapsed = this.#since < 0 ? Infinity : now - this.#since;
    this.#since = now;
    this.#left = HOT_RUN;
    if (elapsed <= HOT_RUN_MS && this.#run === this.#closures) {
      if (this.#generated !== undefined) this.#run = this.#generated;
      else if (this.#build !== undefined) {
        const build = this.#build;
        this.#build = undefined;
        setImmediate(() => this.#switch(build)).unref();
      }
    } else if (elapsed > COLD_RUN_MS) this.#run = this.#closures;
  }

  #switch(build: () => Eval | undefined): void {
    try {
      this.#generated = build();
    } catch {
      // a generator fault: the closures, which decide the same, stay (test/cel/codegen.test.ts finds such faults)
    }
    if (this.#generated !== undefined) this.#run = this.#generated;
  }
}
