// Errors of lib/cel. Compile problems are not thrown (compileExpression returns them); evaluation problems
// are thrown as CelEvaluationError, whose message is the engine's one-line reason in cel-go's lower-case style
// (`no such key: foo`, `division by zero`), without the engine's source highlight.

import { CelInterruption, CelRuntimeError } from './runtime/values.js';

export const CEL_EVALUATION_ERROR = 'SAD_ERR_CEL_EVALUATION';

export class CelEvaluationError extends Error {
  readonly code = CEL_EVALUATION_ERROR;
  /** the expression that failed */
  readonly expression: string;
  constructor(expression: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CelEvaluationError';
    this.expression = expression;
  }
}

/** Wraps whatever evaluation threw; the engine's own error stays available as `cause`. */
export function toEvaluationError(expression: string, error: unknown): CelEvaluationError {
  if (error instanceof CelEvaluationError) return error;
  // lib/cel's own runtime errors are worded as cel-go's already (and may start with a capital, as `IP Address …`).
  if (error instanceof CelRuntimeError || error instanceof CelInterruption) return new CelEvaluationError(expression, error.message, { cause: error });
  let reason: string;
  if (error instanceof Error) {
    const summary = (error as Error & { summary?: unknown }).summary;
    reason = typeof summary === 'string' ? summary : error.message;
  } else {
    reason = String(error);
  }
  return new CelEvaluationError(expression, reason.charAt(0).toLowerCase() + reason.slice(1), { cause: error });
}
