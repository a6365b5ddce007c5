// The CEL layer's public surface: compile at manifest load time, evaluate the compiled programs per request.
// Kubernetes CEL libraries (quantity, url, ip, semver, lists, regex find…) are not here yet.

export type {
  CelEnvironment,
  CompileErrorType,
  CompiledExpression,
  CompileRequest,
  CompileResult,
  Construction,
  ExpectedResult,
} from './types.js';
export {
  clearCompileCache,
  compileCacheSize,
  compileExpression,
  COMPILE_CACHE_LIMIT,
  EXPRESSION_NOT_SPECIFIED,
  prepareActivation,
} from './compile.js';
export { CEL_EVALUATION_ERROR, CelEvaluationError } from './errors.js';
export { constructionTypeOf } from './objects.js';
export { celValueToJson, toCelValue } from './values.js';
