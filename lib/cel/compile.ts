// compileExpression: what Kubernetes' plugin/cel compiler does at load time (compile.go CompileCELExpression),
// on @marcbachmann/cel-js. Steps: parse; check declarations (references.ts); type-check with the engine;
// check aggregate literals; check the result type the field requires. Errors read like upstream's. Results are
// cached by (environment, expected type, variable names when used, expression), so identical expressions
// share one compiled program.
//
// Known differences from upstream (cel-go) that this layer cannot close:
// - a syntax error reports the engine parser's first error only (cel-go/ANTLR may list several), phrased like
//   ANTLR for the common cases (`mismatched input '<EOF>' expecting {…}`, `extraneous input 'x' expecting
//   <EOF>`, `token recognition error at: '@'`) and as `Syntax error: <engine text>` otherwise;
// - after declaration errors (all reported, as cel-go does) type errors are not looked for, and of type errors
//   only the engine's first is reported; uncommon ones keep the engine's wording;
// - `variables.<name>` and the leaf fields of request/namespaceObject are dyn here (upstream types variables by
//   their expressions' output type and request fields by BuildRequestType), so fewer type errors are found;
// - a dyn result passes the `expect` check (upstream compares exactly, so `object.spec.paused` is rejected as
//   `must evaluate to bool but got dyn` there), by this module's contract;
// - `variables['x']` / `request['name']` index forms are not checked against the declared fields;
// - message construction (`Object{…}` for ApplyConfiguration, `JSONPatch{…}` for JSONPatch mutations) and
//   two-variable comprehensions (`all(k, v, …)`, `transformMap`) do not parse in the engine: the first is a
//   syntax error here, the second a clear "not supported yet" error;
// - engine faults (e.g. `[].all(e, e > 0)`) come back as InternalError `unexpected compilation error: …`.

import { isDyn, parseEngineType, typeString } from './cel-types.js';
import type { CelType } from './cel-types.js';
import { DECLARATIONS } from './declarations.js';
import { asEngineError, engineFor, parseProgram } from './engine.js';
import type { EngineProgram } from './engine.js';
import { toEvaluationError } from './errors.js';
import { compilationFailed } from './issues.js';
import { checkAggregateLiterals } from './literals.js';
import { checkReferences } from './references.js';
import { translateParseError, translateTypeError } from './translate.js';
import type { CelEnvironment, CompiledExpression, CompileRequest, CompileResult, ExpectedResult } from './types.js';
import { toCelValue } from './values.js';

/** Upstream validation.go's text for a blank expression (reported as `Required value`). */
export const EXPRESSION_NOT_SPECIFIED = 'expression is not specified';

/** Upper bound of cached compile results; the least recently used are dropped beyond it. */
export const COMPILE_CACHE_LIMIT = 10_000;

const cache = new Map<string, CompileResult>();

/** cel-go `Type.String()` spellings of what each expected result accepts (compile.go ReturnTypes). */
const ACCEPTED: Readonly<Record<ExpectedResult, readonly string[]>> = {
  bool: ['bool'],
  string: ['string'],
  stringOrNull: ['string', 'null_type'],
  any: [],
};

const EMPTY_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

function invalid(message: string): CompileResult {
  return { ok: false, message, errorType: 'Invalid' };
}

function internal(error: unknown): CompileResult {
  const reason = error instanceof Error ? error.message : String(error);
  return { ok: false, message: `unexpected compilation error: ${reason}`, errorType: 'InternalError' };
}

/** compile.go: `must evaluate to <type> but got <type>` / `must evaluate to one of [<types>] but got <type>`. */
function resultTypeError(type: CelType, expect: ExpectedResult): string | undefined {
  const accepted = ACCEPTED[expect];
  if (accepted.length === 0 || isDyn(type)) return undefined;
  const got = typeString(type);
  if (accepted.includes(got)) return undefined;
  return accepted.length === 1
    ? `must evaluate to ${accepted[0]} but got ${got}`
    : `must evaluate to one of [${accepted.join(' ')}] but got ${got}`;
}

function createCompiled(expression: string, environment: CelEnvironment, program: EngineProgram, outputType: string): CompiledExpression {
  const names = DECLARATIONS[environment].variables;
  const evaluate = (activation: Record<string, unknown>): unknown => {
    // Declared variables the caller leaves out are null, as upstream binds them (oldObject on CREATE…);
    // `variables` is passed through untouched so that lazily computed entries stay lazy.
    const context: Record<string, unknown> = {};
    for (const name of names) {
      const value = activation[name];
      context[name] = name === 'variables' ? (value ?? EMPTY_VARIABLES) : toCelValue(value ?? null);
    }
    try {
      return program(context);
    } catch (error) {
      throw toEvaluationError(expression, error);
    }
  };
  return Object.freeze({ expression, outputType, evaluate });
}

function compileUncached(request: CompileRequest): CompileResult {
  const { expression, environment, variableNames } = request;
  if (expression.trim().length === 0) return { ok: false, message: EXPRESSION_NOT_SPECIFIED, errorType: 'Required' };

  let program: EngineProgram;
  try {
    program = parseProgram(environment, expression);
  } catch (error) {
    const engineError = asEngineError(error);
    if (engineError === undefined) return internal(error);
    return invalid(compilationFailed(expression, [translateParseError(expression, engineError)]));
  }

  const references = checkReferences(program.ast, expression, environment, variableNames);
  if (references.issues.length > 0) return invalid(compilationFailed(expression, references.issues));

  let checked: ReturnType<EngineProgram['check']>;
  try {
    checked = program.check();
  } catch (error) {
    return internal(error);
  }
  if (!checked.valid) {
    const engineError = asEngineError(checked.error);
    if (engineError === undefined) return internal(checked.error);
    const issue = translateTypeError(expression, engineError, engineFor(environment).functions);
    return invalid(compilationFailed(expression, [issue]));
  }

  const literalIssues = references.hasAggregateLiterals ? checkAggregateLiterals(program.ast, expression) : [];
  if (literalIssues.length > 0) return invalid(compilationFailed(expression, literalIssues));

  const outputType = parseEngineType(program.ast.checkedType?.name ?? 'dyn');
  const typeError = resultTypeError(outputType, request.expect ?? 'any');
  if (typeError !== undefined) return invalid(typeError);

  return { ok: true, compiled: createCompiled(expression, environment, program, typeString(outputType)) };
}

function cacheKey(request: CompileRequest): string {
  // Variable names only matter to expressions that mention them; leaving them out otherwise lets policies with
  // different variables share programs.
  const names = request.expression.includes('variables') ? (request.variableNames ?? []).join('\u0001') : '';
  return `${request.environment}\u0000${request.expect ?? 'any'}\u0000${names}\u0000${request.expression}`;
}

/**
 * Compiles one CEL expression for the given environment, as kube-apiserver does when it loads a policy or a
 * webhook configuration. Never throws for a bad expression: the failure and its upstream-style message are in
 * the result. Identical requests return the identical result (and compiled program).
 */
export function compileExpression(request: CompileRequest): CompileResult {
  const key = cacheKey(request);
  const cached = cache.get(key);
  if (cached !== undefined) {
    // Re-insert to mark as recently used: Map iteration order is insertion order.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const result = compileUncached(request);
  cache.set(key, result);
  if (cache.size > COMPILE_CACHE_LIMIT) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  return result;
}

/** Empties the compile cache (tests, or after a reload that dropped most expressions). */
export function clearCompileCache(): void {
  cache.clear();
}

/** How many compile results are cached. */
export function compileCacheSize(): number {
  return cache.size;
}

const JSON_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject'] as const;

/**
 * Converts an activation's JSON values (object, oldObject, request, params, namespaceObject) to CEL values once,
 * so that evaluating many expressions against it does not convert them again. `variables` and other keys are
 * passed through. Treat the result as immutable.
 */
export function prepareActivation(activation: Record<string, unknown>): Record<string, unknown> {
  const prepared: Record<string, unknown> = { ...activation };
  for (const name of JSON_VARIABLES) if (name in activation) prepared[name] = toCelValue(activation[name] ?? null);
  return prepared;
}
