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

/** Evaluations counted per run; a run this long within HOT_RUN_MS switches an expression to its generated function. */
const HOT_RUN = 256;
const HOT_RUN_MS = 1000;

/**
 * An expression's evaluation that starts on the planner's closures and moves to its generated function once the
 * expression runs often on this thread. Why not at once: V8 optimizes a function after it has run enough of its own
 * bytecode, and a generated function runs once per evaluation, where the closures are shared by every expression and
 * run hot from the start. At a few evaluations a second (a lone request now and then) a generated function stays
 * unoptimized for minutes, slower than the closures; at hundreds a second it is optimized within seconds and then
 * takes about half the closures' time (docs/adr/0001-cel-engine.md, "generated evaluation").
 *
 * `build` makes the function (the expression parsed again, planned and generated: a few hundred µs, once per hot
 * expression and thread); it runs in its own turn of the event loop, not inside the request that found the
 * expression hot, and nothing is kept for the expressions that never get hot. A build that fails leaves the closures.
 */
export class TieredEvaluation {
  #run: Eval;
  #left = HOT_RUN;
  #since = -1;
  #build: (() => Eval | undefined) | undefined;
  #generated = false;

  constructor(closures: Eval, build: () => Eval | undefined) {
    this.#run = closures;
    this.#build = build;
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
    const build = this.#build;
    const now = performance.now();
    if (build === undefined || (this.#since >= 0 && now - this.#since <= HOT_RUN_MS)) {
      this.#build = undefined;
      this.#left = Number.MAX_SAFE_INTEGER;
      if (build !== undefined) setImmediate(() => this.#switch(build)).unref();
      return;
    }
    this.#since = now;
    this.#left = HOT_RUN;
  }

  #switch(build: () => Eval | undefined): void {
    let generated: Eval | undefined;
    try {
      generated = build();
    } catch {
      // a generator fault: the closures, which decide the same, stay (test/cel/codegen.test.ts finds such faults)
    }
    if (generated === undefined) return;
    this.#run = generated;
    this.#generated = true;
  }
}
