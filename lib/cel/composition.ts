// The errors of composition variables (`variables.<name>`), as k8s.io/apiserver plugin/cel/composition.go's
// variableAccessor words them. The lazily evaluated variable itself lives with its caller (lib/admission).

import { CelEvaluationError } from './errors.js';
import { CelInterruption, CelRuntimeError, OPERATION_INTERRUPTED } from './runtime/index.js';

/**
 * The error a read of `variables.<name>` raises when the variable's expression failed to evaluate:
 * `composited variable "<name>" fails to evaluate: <error>` (types.NewErr in variableAccessor.Callback). It is a
 * CEL error value upstream, so `&&`, `||` and the macros absorb it like any other, the variable's own per-call
 * cost limit included; only a deadline or cancellation keeps stopping the evaluation that reads it.
 */
export function compositedVariableError(name: string, error: unknown): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const message = `composited variable ${JSON.stringify(name)} fails to evaluate: ${reason}`;
  const cause = error instanceof CelEvaluationError ? error.cause : error;
  if (cause instanceof CelInterruption && cause.message === OPERATION_INTERRUPTED) return new CelInterruption(message);
  return new CelRuntimeError(message);
}
