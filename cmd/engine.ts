// V8 settings for the daemon's process, applied by static-admissiond.ts before anything else is loaded (workers share
// them: V8's flags are per process).
//
// The interrupt budget is how much bytecode a function runs between V8's checks of whether to optimize it; a function
// is optimized after a few checks. At control-plane rates (tens of requests a second) the functions a request runs
// once (decode, matching, the inline rule, the answer) take about a minute of traffic to get there with Node's
// default, and they start over on the main thread whenever the workers took the load meanwhile: until then each lone
// request runs them in V8's baseline tier. A quarter of Node 20's default brings them there four times sooner, at a cost
// within the closed-loop bench's noise (docs/adr/0003-thin-main-thread.md, "Fifth pass").
import { setFlagsFromString } from 'node:v8';

/** Bytecode bytes between optimization checks: a quarter of Node 20's default (67,584; other Node versions' differ). */
export const interruptBudget = 16_384;

/**
 * Sets V8's interrupt budget, unless the command line already names one (`node --interrupt-budget=N`: the operator's
 * choice wins). Returns whether it set it.
 */
export function tuneEngine(execArgv: readonly string[]): boolean {
  if (execArgv.some((arg) => /^--interrupt[-_]budget(=|$)/.test(arg))) return false;
  setFlagsFromString(`--interrupt-budget=${interruptBudget}`);
  return true;
}
