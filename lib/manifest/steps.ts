// Long loads written once, run two ways: a generator yields wherever the work may pause (between documents, list
// items, policies, expressions), `runSync` runs it through (the initial load, `validate`, `review`), and `runSliced`
// gives the event loop back whenever a slice of time is used up (a reload in the serving daemon, a policy worker
// compiling a new snapshot), so that requests keep being answered while a large directory is loaded.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work that yields (nothing) where it may be paused, and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs the work to its end without pausing. */
export function runSync<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (step.done !== true) step = steps.next();
  return step.value;
}

/** How long a slice runs before the event loop gets a turn: well under the 50 ms a request may be held. */
export const DEFAULT_SLICE_MS = 3;

/** Runs the work in slices of about `sliceMs`, letting the event loop run between them. Rejects as the work throws. */
export async function runSliced<T>(steps: Steps<T>, sliceMs = DEFAULT_SLICE_MS): Promise<T> {
  let started = performance.now();
  let step = steps.next();
  while (step.done !== true) {
    if (performance.now() - started >= sliceMs) {
      await nextTurn();
      started = performance.now();
    }
    step = steps.next();
  }
  return step.value;
}
