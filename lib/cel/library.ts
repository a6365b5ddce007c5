// Engine declarations for what lib/cel adds to CEL (runtime/*.ts): standard overloads the engine lacks, cel-go's
// strings, optional and sets extensions, the two-variable comprehensions and optMap/optFlatMap (as engine macros),
// and the Kubernetes libraries. Since issue 19 the engine only parses: these declarations give its parser the
// macros and references.ts the function names; types are checker/'s (cel-go's declarations), evaluation is
// runtime/planner.ts's.

import { Environment, ParseError, evaluate } from '@marcbachmann/cel-js';
import { declareKubernetesLibraries } from './kubernetes.js';
import { OPTIONAL_ENTRY_FUNCTION } from './runtime/planner.js';

/** Which library versions an environment has. */
export interface LibraryProfile {
  /** cel-go ext.Strings version: Kubernetes declares version 2 (no `reverse`) */
  readonly stringsVersion: number;
  /** the Kubernetes libraries (k8s.io/apiserver/pkg/cel/library) and ext.Sets */
  readonly kubernetes: boolean;
}

/** Kubernetes' base environment (environment/base.go, 1.33): strings v2, sets, the k8s libraries. */
export const KUBERNETES_PROFILE: LibraryProfile = { stringsVersion: 2, kubernetes: true };
/** Everything lib/cel implements (tools and conformance runs). */
export const FULL_PROFILE: LibraryProfile = { stringsVersion: Number.POSITIVE_INFINITY, kubernetes: true };

/** The parts of the engine's checker API the macro hooks use (the engine's typings leave it untyped). */
export interface CheckerType {
  readonly kind: string;
  readonly name: string;
  readonly type: string;
  readonly valueType?: CheckerType;
  readonly keyType?: CheckerType;
  readonly hasPlaceholderType: boolean;
  isDynOrBool(): boolean;
}

export interface CheckerContext {
  forkWithVariable(name: string, type: CheckerType): CheckerContext;
}

export interface Checker {
  check(node: unknown, ctx: CheckerContext): CheckerType;
  getType(name: string): CheckerType;
  formatType(type: CheckerType): string;
  createError(code: string, message: string, node: unknown): Error;
  readonly registry: {
    getListType(t: CheckerType): CheckerType;
    getMapType(k: CheckerType, v: CheckerType): CheckerType;
    getOptionalType(t: CheckerType): CheckerType;
  };
}

interface MacroNode {
  readonly op: string;
  readonly args: unknown;
}

interface MacroInput {
  readonly ast: MacroNode;
  readonly args: readonly MacroNode[];
  readonly receiver: MacroNode | null;
}

interface Macro {
  typeCheck(checker: Checker, macro: Macro, ctx: CheckerContext): CheckerType;
  evaluate(): never;
}

function notEvaluatedHere(): never {
  throw new Error('lib/cel evaluates with its own planner, not the engine');
}

function identName(node: MacroNode | undefined): string {
  if (node?.op === 'id' && typeof node.args === 'string') return node.args;
  throw new ParseError({ code: 'invalid_macro_argument', message: 'argument must be a simple name', node } as never);
}

function concrete(checker: Checker, t: CheckerType | undefined): CheckerType {
  if (t === undefined || t.hasPlaceholderType) return checker.getType('dyn');
  return t;
}

/** The types of a comprehension's two variables: (int, element) for lists, (key, value) for maps. */
function pairTypes(checker: Checker, receiver: MacroNode, ctx: CheckerContext): [CheckerType, CheckerType] {
  const t = checker.check(receiver, ctx);
  if (t.kind === 'list') return [checker.getType('int'), concrete(checker, t.valueType)];
  if (t.kind === 'map') return [concrete(checker, t.keyType), concrete(checker, t.valueType)];
  if (t.kind === 'dyn' || t.kind === 'param') return [checker.getType('dyn'), checker.getType('dyn')];
  throw checker.createError(
    'invalid_comprehension_range',
    `Expression of type '${checker.formatType(t)}' cannot be range of a comprehension (must be list, map, or dynamic).`,
    receiver,
  );
}

function elementType(checker: Checker, receiver: MacroNode, ctx: CheckerContext): CheckerType {
  const t = checker.check(receiver, ctx);
  if (t.kind === 'list') return concrete(checker, t.valueType);
  if (t.kind === 'map') return concrete(checker, t.keyType);
  if (t.kind === 'dyn' || t.kind === 'param') return checker.getType('dyn');
  throw checker.createError(
    'invalid_comprehension_range',
    `Expression of type '${checker.formatType(t)}' cannot be range of a comprehension (must be list, map, or dynamic).`,
    receiver,
  );
}

function requireBool(checker: Checker, node: MacroNode, ctx: CheckerContext, label: string): void {
  const t = checker.check(node, ctx);
  if (!t.isDynOrBool()) throw checker.createError('invalid_condition_type', `${label} must return bool, got '${checker.formatType(t)}'`, node);
}

type MacroFactory = (input: MacroInput) => Macro;

function macro(typeCheck: (checker: Checker, input: MacroInput, ctx: CheckerContext) => CheckerType): MacroFactory {
  return (input) => ({ typeCheck: (checker, _m, ctx) => typeCheck(checker, input, ctx), evaluate: notEvaluatedHere });
}

/** all(k, v, p) / exists(k, v, p) / existsOne(k, v, p) */
const twoVariableQuantifier = (name: string): MacroFactory =>
  macro((checker, { receiver, args }, ctx) => {
    const [k, v] = [identName(args[0]), identName(args[1])];
    const [kt, vt] = pairTypes(checker, receiver!, ctx);
    requireBool(checker, args[2]!, ctx.forkWithVariable(k, kt).forkWithVariable(v, vt), `${name}(k, v, predicate) predicate`);
    return checker.getType('bool');
  });

/** existsOne(x, p): cel-go's newer spelling of exists_one */
const existsOne = macro((checker, { receiver, args }, ctx) => {
  const x = identName(args[0]);
  requireBool(checker, args[1]!, ctx.forkWithVariable(x, elementType(checker, receiver!, ctx)), 'existsOne(var, predicate) predicate');
  return checker.getType('bool');
});

const transformList = macro((checker, { receiver, args }, ctx) => {
  const [k, v] = [identName(args[0]), identName(args[1])];
  const [kt, vt] = pairTypes(checker, receiver!, ctx);
  const inner = ctx.forkWithVariable(k, kt).forkWithVariable(v, vt);
  if (args.length === 4) requireBool(checker, args[2]!, inner, 'transformList(k, v, filter, transform) filter');
  return checker.registry.getListType(concrete(checker, checker.check(args[args.length - 1]!, inner)));
});

const transformMap = macro((checker, { receiver, args }, ctx) => {
  const [k, v] = [identName(args[0]), identName(args[1])];
  const [kt, vt] = pairTypes(checker, receiver!, ctx);
  const inner = ctx.forkWithVariable(k, kt).forkWithVariable(v, vt);
  if (args.length === 4) requireBool(checker, args[2]!, inner, 'transformMap(k, v, filter, transform) filter');
  return checker.registry.getMapType(kt, concrete(checker, checker.check(args[args.length - 1]!, inner)));
});

const transformMapEntry = macro((checker, { receiver, args }, ctx) => {
  const [k, v] = [identName(args[0]), identName(args[1])];
  const [kt, vt] = pairTypes(checker, receiver!, ctx);
  const inner = ctx.forkWithVariable(k, kt).forkWithVariable(v, vt);
  if (args.length === 4) requireBool(checker, args[2]!, inner, 'transformMapEntry(k, v, filter, transform) filter');
  const last = args[args.length - 1]!;
  const t = checker.check(last, inner);
  if (t.kind === 'map') return concrete(checker, t);
  if (t.kind === 'dyn') return checker.getType('map');
  throw checker.createError('invalid_argument', `transformMapEntry(k, v, transform) transform must return a map, got '${checker.formatType(t)}'`, last);
});

/** The value type of an optional receiver (dyn for dyn). */
function optionalValueType(checker: Checker, receiver: MacroNode, ctx: CheckerContext, fn: string): CheckerType {
  const t = checker.check(receiver, ctx);
  if (t.kind === 'optional') return concrete(checker, t.valueType);
  if (t.kind === 'dyn') return checker.getType('dyn');
  throw checker.createError('optional_expected', `${fn} receiver must be optional, got '${checker.formatType(t)}'`, receiver);
}

const optMap = macro((checker, { receiver, args }, ctx) => {
  const x = identName(args[0]);
  const t = checker.check(args[1]!, ctx.forkWithVariable(x, optionalValueType(checker, receiver!, ctx, 'optMap')));
  return checker.registry.getOptionalType(concrete(checker, t));
});

const optFlatMap = macro((checker, { receiver, args }, ctx) => {
  const x = identName(args[0]);
  const body = args[1]!;
  const t = checker.check(body, ctx.forkWithVariable(x, optionalValueType(checker, receiver!, ctx, 'optFlatMap')));
  if (t.kind === 'optional') return t;
  if (t.kind === 'dyn') return checker.getType('optional');
  throw checker.createError('optional_expected', `optFlatMap(var, expr) expr must be optional, got '${checker.formatType(t)}'`, body);
});

/** An engine type value (the checker only needs its class); evaluation uses lib/cel's own type values. */
export function engineTypeValue(name: string): unknown {
  const TypeValue = (evaluate('type(1)') as object).constructor as new (name: string) => unknown;
  return new TypeValue(name);
}

/** Registers a namespace constant (`strings`, `sets`…) whose member calls stand for qualified function names. */
export function declareNamespace(env: Environment, name: string, typeName: string): void {
  const Namespace = { [typeName]: class {} }[typeName]!;
  env.registerType(typeName, Namespace);
  env.registerConstant(name, typeName, new Namespace());
}

/** Everything lib/cel's runtime adds, declared on an engine environment (before it is used or cloned). */
export function declareLibraries(env: Environment, profile: LibraryProfile): void {
  // Standard overloads the engine lacks.
  for (const signature of [
    'int(uint): int',
    'int(google.protobuf.Timestamp): int',
    'string(google.protobuf.Timestamp): string',
    'string(google.protobuf.Duration): string',
    'timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp',
    'duration(google.protobuf.Duration): google.protobuf.Duration',
    // cel-go v0.26.0 declares it (int64_to_duration) though the conversion always fails at run time
    'duration(int): google.protobuf.Duration',
    'matches(string, string): bool',
    'type(optional<A>): type',
  ]) {
    env.registerFunction(signature, notEvaluatedHere);
  }
  for (const op of ['<', '<=', '>', '>=']) env.registerOperator(`bytes ${op} bytes`, notEvaluatedHere);
  // cel-go's OptionalTypes declares the type name optional_type.
  env.registerConstant('optional_type', 'type', engineTypeValue('optional_type'));
  env.registerOperator('optional<A> == optional<A>', notEvaluatedHere);

  // Optionals (cel-go OptionalTypes). `[?x]` / `{?k: x}` are rewritten into a call that unwraps the optional.
  env.registerFunction(`${OPTIONAL_ENTRY_FUNCTION}(optional<A>): A`, notEvaluatedHere);
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', notEvaluatedHere);
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', optMap);
  env.registerFunction('optional.optFlatMap(ast, ast): optional<dyn>', optFlatMap);

  // Comprehensions: existsOne, and the two-variable forms (cel-go ext.TwoVarComprehensions).
  env.registerFunction('list.existsOne(ast, ast): bool', existsOne);
  env.registerFunction('list.all(ast, ast, ast): bool', twoVariableQuantifier('all'));
  env.registerFunction('list.exists(ast, ast, ast): bool', twoVariableQuantifier('exists'));
  env.registerFunction('list.existsOne(ast, ast, ast): bool', twoVariableQuantifier('existsOne'));
  env.registerFunction('list.exists_one(ast, ast, ast): bool', twoVariableQuantifier('exists_one'));
  env.registerFunction('list.transformList(ast, ast, ast): list<dyn>', transformList);
  env.registerFunction('list.transformList(ast, ast, ast, ast): list<dyn>', transformList);
  env.registerFunction('map.transformMap(ast, ast, ast): map<dyn, dyn>', transformMap);
  env.registerFunction('map.transformMap(ast, ast, ast, ast): map<dyn, dyn>', transformMap);
  env.registerFunction('map.transformMapEntry(ast, ast, ast): map<dyn, dyn>', transformMapEntry);
  env.registerFunction('map.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', transformMapEntry);

  // cel-go ext.Strings (the engine has indexOf, lastIndexOf, lowerAscii, upperAscii, split, substring, trim, join).
  env.registerFunction('string.charAt(int): string', notEvaluatedHere);
  env.registerFunction('string.replace(string, string): string', notEvaluatedHere);
  env.registerFunction('string.replace(string, string, int): string', notEvaluatedHere);
  if (profile.stringsVersion >= 1) {
    env.registerFunction('string.format(list): string', notEvaluatedHere);
    declareNamespace(env, 'strings', 'StringsNamespace');
    env.registerFunction('StringsNamespace.quote(string): string', notEvaluatedHere);
  }
  if (profile.stringsVersion >= 3) env.registerFunction('string.reverse(): string', notEvaluatedHere);

  if (profile.kubernetes) declareKubernetesLibraries(env);
}
