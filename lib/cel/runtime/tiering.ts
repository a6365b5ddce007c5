// When an expression's evaluations move from the planner's closures to its generated function (codegen.ts).
import type { GeneratedProgram } from './codegen.js';
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

/** Evaluations counted per run; a run this long within HOT_RUN_MS switches an expression to its generated function. */
const HOT_RUN = 256;
const HOT_RUN_MS = 1000;

/**
 * An expression's evaluation that starts on the planner's closures and moves to the generated function once the
 * expression runs often on this thread. Why not at once: V8 optimizes a function after it has run enough of its own
 * bytecode, and a generated function runs once per evaluation, where the closures are shared by every expression and
 * run hot from the start. At a few evaluations a second (a lone request now and then) the generated function would
 * stay unoptimized for minutes, slower than the closures; at hundreds a second it is optimized within a second or two
 * and then takes about half the closures' time (docs/adr/0001-cel-engine.md, "Generated evaluation"). Compiling
 * only hot expressions also keeps `new Function` out of reloads.
 */
export class TieredEvaluation {
  #run: Eval;
  #left = HOT_RUN;
  #since = -1;
  #program: GeneratedProgram | undefined;
  #generated = false;

  constructor(closures: Eval, program: GeneratedProgram, hot: boolean) {
    this.#run = closures;
    this.#program = program;
    if (hot) this.#switch(true);
  }

  readonly evaluate: Eval = (s) => {
    if (--this.#left <= 0) this.#count();
    return this.#run(s);
  };

  /** whether evaluations run the generated function */
  get generated(): boolean {
    return this.#generated;
  }

  #count(): void {
    if (this.#program === undefined) {
      this.#left = Number.MAX_SAFE_INTEGER;
      return;
    }
    const now = performance.now();
    if (this.#since >= 0 && now - this.#since <= HOT_RUN_MS) this.#switch();
    else {
      this.#since = now;
      this.#left = HOT_RUN;
    }
  }

  /** Moves to the generated function; `strict` (generate: 'always'): a generator fault throws instead of staying on the closures. */
  #switch(strict = false): void {
    let generated: Eval | undefined;
    try {
      generated = this.#program?.compile();
    } catch (error) {
      if (strict) throw error;
    }
    if (generated !== undefined) {
      this.#run = generated;
      this.#generated = true;
    }
    this.#program = undefined;
    this.#left = Number.MAX_SAFE_INTEGER;
  }
}
