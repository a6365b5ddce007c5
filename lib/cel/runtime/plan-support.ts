// What the planner and its comprehension macros share: the evaluation closure, the scopes of comprehension and
// cel.bind variables, and the helpers both sides call.
import type { EngineNode } from '../engine.js';
import type { EvalState } from './state.js';
import { CelRuntimeError, celError, noSuchOverloadError } from './values.js';

export type Eval = (s: EvalState) => unknown;

/** A call the rewrite inserts around an optional list element or map value (`[?x]`, `{?k: v}`). */
export const OPTIONAL_ENTRY_FUNCTION = '__static_admissiond_optional_entry';

/** cel-go's type conversion functions (common/overloads IsTypeConversionFunction): folded on constants. */
export const CONVERSIONS: ReadonlySet<string> = new Set(['bool', 'bytes', 'double', 'duration', 'dyn', 'int', 'string', 'timestamp', 'type', 'uint']);

export interface Scope {
  readonly name: string;
  readonly slot: number;
  readonly parent: Scope | undefined;
}

export function lookup(scope: Scope | undefined, name: string): number | undefined {
  for (let s = scope; s !== undefined; s = s.parent) if (s.name === name) return s.slot;
  return undefined;
}

export const failing =
  (message: string): Eval =>
  () => {
    throw celError(message);
  };

/**
 * Runs `e`, returning a CEL error as a value instead of throwing it (for error-absorbing operators). An error of a
 * lazily evaluated composition variable arrives wrapped (CelEvaluationError); its CEL error is absorbed the same
 * way. Interruptions (cost, deadline) are never absorbed.
 */
export function attempt(e: Eval, s: EvalState): unknown {
  try {
    return e(s);
  } catch (error) {
    return absorbed(error);
  }
}

/** What attempt() makes of an error it caught: the CEL error (unwrapped), or anything else thrown again. */
export function absorbed(error: unknown): CelRuntimeError {
  if (error instanceof CelRuntimeError) return error;
  if (error instanceof Error && error.cause instanceof CelRuntimeError) return error.cause;
  throw error;
}

/** `&&` / `||` when neither operand decided (evalAnd / evalOr): the first error, or the bare error for a first non-bool operand. */
export function logicalError(l: unknown, r: unknown): never {
  if (l instanceof CelRuntimeError) throw l;
  if (typeof l !== 'boolean') throw noSuchOverloadError();
  if (r instanceof CelRuntimeError) throw r;
  throw noSuchOverloadError();
}

/**
 * cel-go interpreter/attributes.go absoluteAttribute.Resolve: a declared variable the activation lacks (upstream's
 * `authorizer` outside the expressions that bind it).
 */
export function unboundVariable(name: string): never {
  throw celError(`no such attribute(s): ${name}`);
}

/** The identifier a select chain starts from (`a` of `a.b.?c`), or undefined. */
function rootIdent(node: EngineNode): string | undefined {
  let n = node;
  while (n.op === '.' || n.op === '.?') n = (n.args as [EngineNode])[0];
  return n.op === 'id' ? (n.args as string) : undefined;
}

/**
 * Whether a `.` select may be a qualified name the environment declares (a variable `a.b`, the type
 * google.protobuf.Timestamp): its first identifier is neither a local variable nor a declared variable.
 */
export function mayBeQualifiedName(node: EngineNode, scope: Scope | undefined, variables: ReadonlySet<string>): boolean {
  const root = rootIdent(node);
  return root !== undefined && lookup(scope, root) === undefined && !variables.has(root);
}

/** `ns.f(…)` names a qualified function (or cel.bind) when `ns` is an identifier neither local nor a declared variable. */
export function mayBeQualifiedFunction(target: EngineNode, scope: Scope | undefined, variables: ReadonlySet<string>): target is EngineNode & { args: string } {
  return isIdent(target) && lookup(scope, target.args) === undefined && !variables.has(target.args);
}

export function isIdent(node: EngineNode | undefined): node is EngineNode & { args: string } {
  return node !== undefined && node.op === 'id';
}

/** Nodes in a subtree: the per-iteration cost of a comprehension body (cel-go charges about 1 per evaluated node). */
export function countNodes(args: unknown): number {
  if (Array.isArray(args)) {
    let n = 0;
    for (const a of args) n += countNodes(a);
    return n;
  }
  if (typeof args === 'object' && args !== null && typeof (args as { op?: unknown }).op === 'string') {
    return 1 + countNodes((args as { args: unknown }).args);
  }
  return 0;
}
