// V8 settings for the daemon's process, applied by static-admissiond.ts before anything else is loaded (workers share
// them: V8's flags are per process).
//
// The interrupt budget is how much bytecode a function runs between V8's checks of whether to optimize it; a function
// is optimized after a few checks. At control-plane rates (tens of requests a second) the functions a request runs
// once (decode, matching, the inline rule, the answer) take about a minute of traffic to get there with Node's
// default, and they start over on the main thread whenever the workers took the load meanwhile: until then each lone
// request runs them in V8's baseline tier. A quarter of Node 20's default brings them there four times sooner, at a cost
// within the closed-loop bench's noise (docs/adr/0003-thin-main-thread.md, "Fifth pass").
//
// V8's memory reducer is off for the main thread and on for the workers. Some seconds after the traffic drops it runs up
// to three full collections that also let go of the maps V8 otherwise keeps for optimized code, so the code that
// depends on them is thrown away ("weak objects") and compiled again over the next lone requests, beside them on the
// same cores: at 50 req/s on 2 cores that was most of what the daemon added over a bare server. The main thread's heap
// holds ~30 MiB of live data, bodies outside it; the workers' hold the parsed bodies of bursts, whose memory the
// reducer gives back (docs/adr/0003-thin-main-thread.md, "Eighth pass"). V8 decides it when it creates a thread's heap,
// so the main thread's comes from the `#!` line of static-admissiond.ts, and the workers' from here, before any starts.
import { setFlagsFromString } from 'node:v8';

/** Bytecode bytes between optimization checks: a quarter of Node 20's default (67,584; other Node versions' differ). */
export const interruptBudget = 16_384;

/**
 * Gives the heaps created from now on (the workers') V8's memory reducer, and sets V8's interrupt budget unless the
 * command line already names one (`node --interrupt-budget=N`: the operator's choice wins). Returns whether it set the
 * budget.
 */
export function tuneEngine(execArgv: readonly string[]): boolean {
  setFlagsFromString('--memory-reducer');
  if (execArgv.some((arg) => /^--interrupt[-_]budget(=|$)/.test(arg))) return false;
  setFlagsFromString(`--interrupt-budget=${interruptBudget}`);
  return true;
}
