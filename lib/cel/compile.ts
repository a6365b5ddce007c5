// compileExpression: what Kubernetes' plugin/cel compiler does at load time (compile.go CompileCELExpression).
// Steps: cel-go's parser limits, its own grammar and visitor for every parse error (syntax.ts, grammar/), and unary
// runs; rewrite what the engine cannot parse (rewrite.ts);
// parse with @marcbachmann/cel-js and adjust its AST (fixups.ts); check declarations (references.ts) and types
// (checker/: cel-go v0.26.0's checker with its declarations and Kubernetes' libraries, the request's variables
// typed as composition.go types them), reported together; cel-go's AST validators (homogeneous aggregate
// literals and literal format calls in the checker, literal arguments in validators.ts); the result type the field requires, compared
// exactly as compile.go does (`must evaluate to bool but got dyn`); plan the evaluation (runtime/planner.ts:
// lib/cel's own evaluator with cel-go's semantics, cost budget and deadline). Errors read like upstream's.
// Results are cached by (environment, expected type, declarations, variable names and types when used,
// expression), so identical expressions share one compiled program. docs/adr/0001-cel-engine.md explains the
// split between engine and lib/cel.
//
// Where the engine differs from cel-go, this layer works around it:
// - parse errors are cel-go's own (grammar/): the engine only parses what cel-go's grammar accepts, so an engine
//   parse error is this daemon's fault (an InternalError naming it), never worded as the policy's;
// - message construction (`Object{…}` for ApplyConfiguration, `JSONPatch{…}` for JSONPatch mutations) does not
//   parse in the engine; rewrite.ts turns it into a call the checker types as the message type (errors still
//   point into the original text);
// - engine faults, if any remain, come back as InternalError `unexpected compilation error: …`.

import { undeclaredConstructions } from './construction.js';
import { JSON_PATCH_TYPE, OBJECT_TYPE } from './checker/environment.js';
import { admissionEnvironment, excludedRoots, standaloneCheckEnvironment } from './checker/admission.js';
import { checkExpression } from './checker/check.js';
import { BOOL, isExactType, listOf, NULL, STRING, structType, typeString as checkedTypeString } from './checker/types.js';
import type { Type as CheckedType } from './checker/types.js';
import { AUTHORIZER_VARIABLES, DECLARATIONS, qualifiedVariables } from './declarations.js';
import { asEngineError, parseProgram, standaloneEnvironment } from './engine.js';
import { fixAst } from './fixups.js';
import { checkLiteralArguments } from './validators.js';
import { construct, CONSTRUCT_FUNCTION } from './objects.js';
import { CelActivation } from './activation.js';
import { EvalState, plan, ProgramInstantiationError } from './runtime/index.js';
import type { Plan } from './runtime/index.js';
import type { EngineProgram } from './engine.js';
import { AuthorizationPending } from './authorization.js';
import { toEvaluationError } from './errors.js';
import { compilationFailed } from './issues.js';
import type { Issue } from './issues.js';
import { checkReferences } from './references.js';
import { rewriteConstructions } from './rewrite.js';
import { afterParse, beforeParse } from './syntax.js';
import type { RewrittenExpression } from './rewrite.js';
import type { CelEnvironment, CompiledExpression, CompileRequest, CompileResult, Construction, EvaluationOptions, ExpectedResult } from './types.js';
import { toCelValue } from './values.js';

/** Upstream validation.go's text for a blank expression (reported as `Required value`). */
export const EXPRESSION_NOT_SPECIFIED = 'expression is not specified';

/** Upper bound of cached compile results; the least recently used are dropped beyond it. */
export const COMPILE_CACHE_LIMIT = 10_000;

const cache = new Map<string, CompileResult>();

/** ReturnTypes of each expected result (compile.go and the condition/mutation compilers); empty: any type. */
const RETURN_TYPES: Readonly<Record<ExpectedResult, readonly CheckedType[]>> = {
  bool: [BOOL],
  string: [STRING],
  stringOrNull: [STRING, NULL],
  any: [],
  jsonPatch: [listOf(structType(JSON_PATCH_TYPE))],
  applyConfiguration: [structType(OBJECT_TYPE)],
};

const EMPTY_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

function invalid(message: string): CompileResult {
  return { ok: false, message, errorType: 'Invalid' };
}

/** The engine's refusal of an expression cel-go's grammar parses, kept distinct from the policy's own errors. */
function engineParseFailure(error: unknown): unknown {
  const engineError = asEngineError(error);
  return engineError === undefined ? error : new Error(`the CEL engine cannot parse what cel-go's grammar accepts: ${engineError.message}`);
}

function internal(error: unknown): CompileResult {
  const reason = error instanceof Error ? error.message : String(error);
  // env.Program's failure (a constant conversion or regex that fails when the program is built) is reported as
  // compile.go words it, as an internal error like the rest.
  if (error instanceof ProgramInstantiationError) return { ok: false, message: `program instantiation failed: ${reason}`, errorType: 'InternalError' };
  return { ok: false, message: `unexpected compilation error: ${reason}`, errorType: 'InternalError' };
}

/**
 * compile.go: `ast.OutputType().IsExactType(returnType)` for one of the field's return types, else
 * `must evaluate to <type> but got <type>` / `must evaluate to one of [<types>] but got <type>`. A dyn result does
 * not pass.
 */
function resultTypeError(type: CheckedType, expect: ExpectedResult): string | undefined {
  const accepted = RETURN_TYPES[expect];
  if (accepted.length === 0 || accepted.some((t) => isExactType(type, t))) return undefined;
  const got = checkedTypeString(type);
  return accepted.length === 1
    ? `must evaluate to ${checkedTypeString(accepted[0]!)} but got ${got}`
    : `must evaluate to one of [${accepted.map(checkedTypeString).join(' ')}] but got ${got}`;
}

const NO_CONSTRUCTIONS: readonly Construction[] = Object.freeze([]);

/** Runs message constructions rewritten by rewrite.ts (the planner's only extra global). */
export const CONSTRUCT_GLOBALS: ReadonlyMap<string, (args: unknown[]) => unknown> = new Map([
  [CONSTRUCT_FUNCTION, (args: unknown[]) => construct(args[0] as string, args[1] as Record<string, unknown>, args[2] as string[])],
]);

function planProgram(program: EngineProgram, variables: readonly string[], reparse?: () => EngineProgram['ast']): Plan {
  return plan(program.ast, { variables: new Set(variables), extraGlobals: CONSTRUCT_GLOBALS, ...(reparse === undefined ? {} : { reparse }) });
}

/** The AST of an expression that compiled, parsed again (for its generated evaluation: runtime/tiering.ts). */
function reparser(expression: string, environment: CelEnvironment): () => EngineProgram['ast'] {
  return () => {
    const parsed = parseExpression({ expression, environment });
    if ('failure' in parsed) throw new Error(`${expression}: compiled once, now fails to parse`);
    return parsed.program.ast;
  };
}

/**
 * One compiled expression's evaluations: each runs its plan with the expression's one kept EvalState (begun again,
 * released after), so that an evaluation allocates no state; an evaluation nested in another of the same expression
 * (never in practice: variables form no cycles) gets a fresh one. The cost spent is added to `options.meter` even
 * when the evaluation throws.
 */
class MeteredRun {
  #kept: EvalState | undefined;

  constructor(
    private readonly expression: string,
    private readonly run: Plan['evaluate'],
    private readonly slotCount: number,
  ) {}

  evaluate(context: Readonly<Record<string, unknown>>, options: EvaluationOptions | undefined): unknown {
    let state = this.#kept;
    this.#kept = undefined;
    let begun = false;
    try {
      if (state === undefined) state = new EvalState(context, this.slotCount, options);
      else state.begin(context, options);
      begun = true;
      return this.run(state);
    } catch (error) {
      // a check nobody has answered yet: not an evaluation error, the caller answers it and evaluates again
      if (error instanceof AuthorizationPending) throw error;
      throw toEvaluationError(this.expression, error);
    } finally {
      if (state !== undefined) {
        if (begun && options?.meter !== undefined) options.meter.cost += state.cost;
        state.release();
        this.#kept = state;
      }
    }
  }
}

function createCompiled(
  expression: string,
  environment: CelEnvironment,
  planned: Plan,
  outputType: string,
  constructions: readonly Construction[],
  usesAuthorizer: boolean,
  variables: ReadonlySet<string>,
): CompiledExpression {
  const names = DECLARATIONS[environment].variables;
  const metered = new MeteredRun(expression, planned.evaluate, planned.slotCount);
  const evaluate = (activation: Record<string, unknown> | CelActivation, options?: EvaluationOptions): unknown => {
    let context: Readonly<Record<string, unknown>>;
    // A prepared activation is read as it is: one fixed shape for every expression, nothing converted again.
    if (activation instanceof CelActivation) context = activation as unknown as Readonly<Record<string, unknown>>;
    else {
      // Declared variables the caller leaves out are null, as upstream binds them (oldObject on CREATE…);
      // `variables` is passed through untouched so that lazily computed entries stay lazy.
      const built: Record<string, unknown> = {};
      for (const name of names) {
        const value = activation[name];
        if (name === 'variables') built[name] = value ?? EMPTY_VARIABLES;
        // the authorizer values are CEL values already; left out, they stay unbound (`no such attribute(s)`)
        else if (Object.hasOwn(AUTHORIZER_VARIABLES, name)) built[name] = value;
        else built[name] = toCelValue(value ?? null);
      }
      context = built;
    }
    return metered.evaluate(context, options);
  };
  return Object.freeze({ expression, outputType, constructions, usesAuthorizer, variables, evaluate });
}

/** An expression parsed for checking: its AST over the rewritten text, and the rewrite that maps offsets back. */
export interface ParsedExpression {
  readonly program: EngineProgram;
  /** the rewritten text the AST's offsets refer to */
  readonly source: string;
  readonly rewritten: RewrittenExpression;
}

/**
 * Recent parses, held weakly: a type check right after a load (validate, a reload) finds each expression's AST
 * instead of parsing it again, and nothing is kept alive for it (policy workers compile and never type-check).
 * Nothing mutates an AST once parsed (the checker and the planner only read it).
 */
const recentParses = new Map<string, WeakRef<ParsedExpression>>();

/** Parses as compileUncached does (parser limits, rewrite, engine parse, fixups): the AST, or the failure. */
export function parseExpression(request: CompileRequest): ParsedExpression | { failure: CompileResult } {
  const key = `${request.environment}\u0000${request.expression}`;
  const recent = recentParses.get(key)?.deref();
  if (recent !== undefined) return recent;
  const parsed = parseUncached(request);
  if (!('failure' in parsed)) {
    recentParses.delete(key);
    recentParses.set(key, new WeakRef(parsed));
    if (recentParses.size > COMPILE_CACHE_LIMIT) recentParses.delete(recentParses.keys().next().value as string);
  }
  return parsed;
}

function parseUncached(request: CompileRequest): ParsedExpression | { failure: CompileResult } {
  const { expression, environment } = request;
  if (expression.trim().length === 0) return { failure: { ok: false, message: EXPRESSION_NOT_SPECIFIED, errorType: 'Required' } };

  // cel-go's parser limits, and unary runs reduced (same offsets as the expression)
  const prepared = beforeParse(expression);
  if ('issues' in prepared) return { failure: invalid(compilationFailed(expression, prepared.issues)) };
  // Everything below works on the rewritten text; issues are moved back to the original before rendering.
  const rewritten = rewriteConstructions(prepared.source);
  const source = rewritten.source;

  let program: EngineProgram;
  try {
    program = parseProgram(environment, source);
    const depth = afterParse(program.ast, source);
    if (depth !== undefined) return { failure: invalid(compilationFailed(expression, [depth])) };
    fixAst(program.ast, { original: expression, toOriginal: rewritten.toOriginal, fieldNames: rewritten.fieldNames, rootedNames: rewritten.rootedNames, qualifiedVariables: qualifiedVariables(environment) });
  } catch (error) {
    // cel-go's grammar accepted it (beforeParse): an engine that refuses it is this daemon's fault, not the policy's
    return { failure: internal(engineParseFailure(error)) };
  }
  if (rewritten.issue !== undefined) return { failure: invalid(compilationFailed(expression, [rewritten.issue])) };
  return { program, source, rewritten };
}

/** Issues found in the rewritten text, moved back to the original expression. */
export function originalIssues(rewritten: RewrittenExpression, issues: readonly Issue[]): Issue[] {
  return issues.map((i) => ({ offset: rewritten.toOriginal(i.offset), message: i.message }));
}

function compileUncached(request: CompileRequest): CompileResult {
  const { expression, environment } = request;
  const parsed = parseExpression(request);
  if ('failure' in parsed) return parsed.failure;
  const { program, source, rewritten } = parsed;
  const original = (issues: readonly Issue[]): Issue[] => originalIssues(rewritten, issues);
  const fail = (issues: readonly Issue[]): CompileResult => invalid(compilationFailed(expression, original(issues)));

  const references = checkReferences(program.ast, source, environment, rewritten.isInserted, excludedRoots(request));
  const undeclaredTypes = undeclaredConstructions(rewritten.constructions, environment);
  let checked: ReturnType<typeof checkExpression>;
  try {
    checked = checkExpression(program.ast, source, admissionEnvironment(request));
  } catch (error) {
    return internal(error);
  }
  if (references.issues.length > 0 || undeclaredTypes.issues.length > 0) {
    // cel-go reports undeclared names and type errors together; the checker finds the undeclared names too
    const typeIssues = checked.fromValidators ? [] : checked.issues;
    const seen = new Set(references.issues.map((i) => `${i.offset}\u0000${i.message}`));
    const issues = [...references.issues, ...typeIssues.filter((i) => !seen.has(`${i.offset}\u0000${i.message}`))];
    // (the construction sites are in original offsets already)
    const outside = original(issues).filter((i) => !undeclaredTypes.inside(i.offset));
    return invalid(compilationFailed(expression, [...outside, ...undeclaredTypes.issues]));
  }
  if (checked.issues.length > 0 && !checked.fromValidators) return fail(checked.issues);
  // the AST validators (base.go 1.29: duration, timestamp and regex literals, homogeneous aggregate literals)
  const validatorIssues = [...checked.issues, ...checkLiteralArguments(program.ast)];
  if (validatorIssues.length > 0) return fail(validatorIssues);

  const outputType = checked.outputType;
  const typeError = resultTypeError(outputType, request.expect ?? 'any');
  if (typeError !== undefined) return invalid(typeError);

  const constructions =
    rewritten.constructions.length === 0 ? NO_CONSTRUCTIONS : Object.freeze(rewritten.constructions.map(({ type, offset }) => ({ type, offset })));
  let planned: Plan;
  try {
    planned = planProgram(program, DECLARATIONS[environment].variables, reparser(expression, environment));
  } catch (error) {
    return internal(error);
  }
  return { ok: true, compiled: createCompiled(expression, environment, planned, checkedTypeString(outputType), constructions, references.usesAuthorizer, references.variables) };
}

/** The compile cache's key of a request (what makes two requests compile alike). */
export function cacheKey(request: CompileRequest): string {
  // Variable names only matter to expressions that mention them; leaving them out otherwise lets policies with
  // different variables share programs.
  const names = request.expression.includes('variables')
    ? (request.variableNames ?? []).map((n) => `${n}:${request.variableTypes?.[n] ?? 'dyn'}`).join('\u0001')
    : '';
  const declarations = `${request.params === false ? '' : 'p'}${request.composition === false ? '' : 'v'}`;
  return `${request.environment}\u0000${request.expect ?? 'any'}\u0000${declarations}\u0000${names}\u0000${request.expression}`;
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

/** A compile request outside the admission environments: explicit variable declarations (tools, conformance). */
export interface StandaloneCompileRequest {
  expression: string;
  /** declared variables and their types in the engine's syntax (`int`, `map<string, int>`, `dyn`) */
  variables?: Readonly<Record<string, string>>;
  /** false: skip type-checking (cel-go's disable_check) */
  check?: boolean;
}

/**
 * Compiles against explicit declarations, with every library lib/cel implements (tools, conformance runs). The
 * program is evaluated with CEL values (bigint ints, CelUint, Map…), which are not converted from JSON. Message
 * constructions and the admission environments' literal and result-type checks do not apply.
 */
export function compileStandalone(request: StandaloneCompileRequest): CompileResult {
  const expression = request.expression;
  const env = standaloneEnvironment(request.variables ?? {});
  const prepared = beforeParse(expression, { identEscapes: true });
  if ('issues' in prepared) return invalid(compilationFailed(expression, prepared.issues));
  const rewritten = rewriteConstructions(prepared.source);
  if (rewritten.issue !== undefined) return invalid(compilationFailed(expression, [rewritten.issue]));
  let program: EngineProgram;
  try {
    program = env.parse(rewritten.source) as unknown as EngineProgram;
    const depth = afterParse(program.ast, rewritten.source);
    if (depth !== undefined) return invalid(compilationFailed(expression, [depth]));
    const qualifiedVariables = new Set(Object.keys(request.variables ?? {}).filter((n) => n.includes('.')));
    fixAst(program.ast, { original: expression, toOriginal: rewritten.toOriginal, fieldNames: rewritten.fieldNames, rootedNames: rewritten.rootedNames, qualifiedVariables });
  } catch (error) {
    return internal(engineParseFailure(error));
  }
  let outputType = 'dyn';
  if (request.check !== false) {
    let checked: ReturnType<typeof checkExpression>;
    try {
      checked = checkExpression(program.ast, rewritten.source, standaloneCheckEnvironment(request.variables ?? {}));
    } catch (error) {
      return internal(error);
    }
    if (checked.issues.length > 0) {
      return invalid(compilationFailed(expression, checked.issues.map((i) => ({ offset: rewritten.toOriginal(i.offset), message: i.message }))));
    }
    outputType = checkedTypeString(checked.outputType);
  }
  let planned: Plan;
  try {
    planned = planProgram(program, Object.keys(request.variables ?? {}));
  } catch (error) {
    return internal(error);
  }
  const metered = new MeteredRun(expression, planned.evaluate, planned.slotCount);
  const evaluate = (activation: Record<string, unknown>, options?: EvaluationOptions): unknown => metered.evaluate(activation, options);
  return { ok: true, compiled: Object.freeze({ expression, outputType, constructions: NO_CONSTRUCTIONS, usesAuthorizer: false, evaluate }) };
}
