// Bridge from REST validation to the CEL compiler in lib/cel. Upstream compiles every expression while validating
// and turns a failed compile (always cel.ErrorTypeInvalid for parse/check/return-type errors) into
// field.Invalid(path, <expression as the accessor holds it>, <detail>) — see convertCELErrorToValidationError.
import { compileExpression } from '../../cel/index.js';
import type { CelEnvironment, CompileRequest, CompileResult, ExpectedResult } from '../../cel/index.js';
import { internalError, invalid, required } from './field-error.js';
import type { FieldError, Path } from './field-error.js';

/** Compiles one expression; lib/cel's compileExpression unless a caller supplies another (tests do). */
export type ExpressionCompiler = (request: CompileRequest) => CompileResult;

export interface ValidationOptions {
  /** Defaults to lib/cel's compileExpression. */
  readonly compile?: ExpressionCompiler;
}

export const defaultCompiler: ExpressionCompiler = (request) => compileExpression(request);

export interface CompileCheck {
  /** The text handed to the compiler (upstream trims some expressions before compiling, not others). */
  readonly expression: string;
  /** The value shown in the Invalid error: the accessor's GetExpression(). */
  readonly shown: string;
  readonly environment: CelEnvironment;
  readonly expect: ExpectedResult;
  /** Names of the `variables.*` in scope; [] means the policy declares none for this expression. */
  readonly variableNames: readonly string[];
  /** Output types of the variables compiled so far (CompileRequest.variableTypes). */
  readonly variableTypes?: Readonly<Record<string, string>>;
  /** false: `variables` is not declared at all (a policy's matchConditions) */
  readonly composition?: boolean;
  /** whether `params` is declared (the policy has a paramKind) */
  readonly params?: boolean;
}

/** The outcome of compiling one expression while validating: the field errors, and the output type if it compiled. */
export interface CheckedExpression {
  readonly errors: FieldError[];
  readonly outputType?: string;
}

/** Compiles and converts a failure into upstream's field error at fldPath; also tells the output type. */
export function compileChecked(compile: ExpressionCompiler, fldPath: Path, check: CompileCheck): CheckedExpression {
  let result: CompileResult;
  try {
    result = compile({
      expression: check.expression,
      environment: check.environment,
      variableNames: check.variableNames,
      expect: check.expect,
      ...(check.variableTypes === undefined ? {} : { variableTypes: check.variableTypes }),
      ...(check.composition === undefined ? {} : { composition: check.composition }),
      ...(check.params === undefined ? {} : { params: check.params }),
    });
  } catch (e) {
    return { errors: [internalError(fldPath, `unexpected error compiling CEL expression: ${e instanceof Error ? e.message : String(e)}`)] };
  }
  if (result.ok) return result.compiled.outputType === undefined ? { errors: [] } : { errors: [], outputType: result.compiled.outputType };
  // convertCELErrorToValidationError: Required → field.Required, Invalid → field.Invalid (the usual case),
  // Internal → field.InternalError. An engine that does not say is treated as Invalid.
  switch (result.errorType) {
    case 'Required': return { errors: [required(fldPath, result.message)] };
    case 'InternalError': return { errors: [internalError(fldPath, result.message)] };
    default: return { errors: [invalid(fldPath, check.shown, result.message)] };
  }
}

/** Compiles and converts a failure into upstream's field error at fldPath. */
export function checkExpression(compile: ExpressionCompiler, fldPath: Path, check: CompileCheck): FieldError[] {
  return compileChecked(compile, fldPath, check).errors;
}

// Mutation expressions build objects with CEL message-construction syntax: `Object{spec: Object.spec{...}}` for
// applyConfiguration, `[JSONPatch{op: "add", ...}]` for jsonPatch. lib/cel compiles it (it rewrites constructions
// before its engine parses), so with the default compiler those expressions are always compile-checked. A compiler
// supplied through ValidationOptions may not understand the syntax: it is probed once per compiler and patch type
// with a known-good expression, and when the probe fails those expressions are NOT compile-checked (every other
// rule still applies), because rejecting valid manifests is worse than missing a compile error there.
export type PatchKind = 'applyConfiguration' | 'jsonPatch';

const constructionProbes: Record<PatchKind, string> = {
  applyConfiguration: 'Object{metadata: Object.metadata{labels: {"probe": "ok"}}}',
  jsonPatch: '[JSONPatch{op: "add", path: "/metadata/labels/probe", value: "ok"}]',
};
const probeCache = new WeakMap<ExpressionCompiler, Map<PatchKind, boolean>>();

export function supportsObjectConstruction(compile: ExpressionCompiler, kind: PatchKind): boolean {
  if (compile === defaultCompiler) return true;
  let perKind = probeCache.get(compile);
  if (perKind === undefined) {
    perKind = new Map();
    probeCache.set(compile, perKind);
  }
  const cached = perKind.get(kind);
  if (cached !== undefined) return cached;
  let supported: boolean;
  try {
    const result: CompileResult = compile({ expression: constructionProbes[kind], environment: 'mutatingPolicy', variableNames: [], expect: 'any' });
    supported = result.ok;
  } catch {
    supported = false;
  }
  perKind.set(kind, supported);
  return supported;
}
