// The CEL layer's public surface: compile at manifest load time, evaluate the compiled programs per request.
// Evaluation is lib/cel's own (runtime/), with the Kubernetes CEL libraries; the engine parses and type-checks.

export type {
  CostMeter,
  EvaluationOptions,
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
  compileStandalone,
  COMPILE_CACHE_LIMIT,
  EXPRESSION_NOT_SPECIFIED,
  prepareActivation,
} from './compile.js';
export type { StandaloneCompileRequest } from './compile.js';
export { CelActivation } from './activation.js';
export type { AuthorizerBinding } from './activation.js';
export { AUTHORIZATION_CHECK_COST, AuthorizationPending, authorizationError } from './authorization.js';
export type { AuthorizationAttributes, AuthorizationChecker, AuthorizationDecision, AuthorizationUser, ParsedSelector, SelectorRequirement } from './authorization.js';
export { authorizerValue, requestResourceValue } from './runtime/k8s/authz.js';
export type { RequestResource } from './runtime/k8s/authz.js';
export { CEL_EVALUATION_ERROR, CelEvaluationError } from './errors.js';
export { compositedVariableError } from './composition.js';
export { constructionTypeOf } from './objects.js';
export { celValueToJson, jsonToCelValueAfter, toCelValue } from './values.js';
export type { ConvertedVersion } from './values.js';
export {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelType,
  CelUint,
  COST_LIMIT_EXCEEDED,
  OPERATION_INTERRUPTED,
  PER_CALL_COST_LIMIT,
} from './runtime/index.js';
export { typeCheckExpression } from './type-check.js';
export type { TypeCheckResult } from './type-check.js';
export { kindObjectTypes } from './checker/schema-types.js';
export type { ObjectTypes } from './checker/schema-types.js';
export { BUILTIN_SCHEMAS, combineSources, groupVersion, gvkString } from './schemas/kinds.js';
export type { GroupVersionKind, KindSchema, ObjectSchema, SchemaSource, SchemaType } from './schemas/kinds.js';
