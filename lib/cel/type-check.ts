// typeCheckExpression: what upstream's type checker (admission/plugin/policy/validating/typechecking.go
// typeCheckingCompiler.CompileCELExpression) does with one expression for one kind: compile it in the policy's
// environment with `object` and `oldObject` typed by the kind's schema, no result type enforced, no program built.
// Its issues are cel-go's `issues.String()`, the text upstream puts after the kind in a warning.
//
// The AST is the load's own where it is still around (compile.ts parseExpression), and results are cached per kind.

import { admissionEnvironment } from './checker/admission.js';
import { checkExpression } from './checker/check.js';
import type { ObjectTypes } from './checker/schema-types.js';
import { typeString } from './checker/types.js';
import { cacheKey, originalIssues, parseExpression } from './compile.js';
import { displayIssues } from './issues.js';
import type { CompileRequest } from './types.js';

export interface TypeCheckResult {
  /** cel-go's `issues.String()`; undefined when the expression checks */
  readonly issues?: string;
  /** the expression's type (cel-go `Type.String()`), what a variable is declared with for the next expressions */
  readonly outputType: string;
}

/** Upper bound of each cache below; the oldest entries are dropped beyond it. */
const CACHE_LIMIT = 10_000;

const results = new WeakMap<ObjectTypes, Map<string, TypeCheckResult>>();

function bounded<V>(cache: Map<string, V>, key: string, value: V): V {
  cache.set(key, value);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return value;
}

function check(request: CompileRequest, types: ObjectTypes): TypeCheckResult {
  const program = parseExpression(request);
  if ('failure' in program) {
    // an expression that does not parse never loads; reported as the compile reports it, less its prefix
    const failure = program.failure;
    return failure.ok ? { outputType: 'dyn' } : { issues: failure.message.replace(/^compilation failed: /, ''), outputType: 'dyn' };
  }
  const checked = checkExpression(program.program.ast, program.source, admissionEnvironment(request, types));
  const outputType = typeString(checked.outputType);
  if (checked.issues.length === 0) return { outputType };
  return { issues: displayIssues(request.expression, originalIssues(program.rewritten, checked.issues)), outputType };
}

/**
 * Type-checks one expression with `object` and `oldObject` of the given kind's types. `expect` is ignored: the type
 * checker enforces no result type.
 */
export function typeCheckExpression(request: CompileRequest, types: ObjectTypes): TypeCheckResult {
  let byKind = results.get(types);
  if (byKind === undefined) results.set(types, (byKind = new Map()));
  // the compile cache's key, less the result type (the type checker enforces none)
  const key = cacheKey({ ...request, expect: 'any' });
  return byKind.get(key) ?? bounded(byKind, key, check(request, types));
}
