// The macros' typing, as their cel-go expansions type them: parser/macro.go (all, exists, exists_one, map,
// filter), ext/comprehensions.go (the two-variable forms, through cel.@mapInsert), cel/library.go (optMap,
// optFlatMap), ext/bindings.go (cel.bind) and ext/lists.go (sortBy, through @sortByAssociatedKeys). The checker
// (check.ts) is the host: it checks sub-expressions and resolves the calls the expansions make.

import type { EngineNode } from '../engine.js';
import { BOOL, DYN, ERROR, formatType, INT, listOf, mapOf } from './types.js';
import type { Type } from './types.js';

/** What the macros need of the checker. */
export interface MacroHost {
  check(node: EngineNode): Type;
  withScope<T>(vars: Record<string, Type>, run: () => T): T;
  /** resolves a call by name with these argument types (the receiver first for a member call) */
  resolve(name: string, types: readonly Type[], member: boolean, at: EngineNode | number): Type;
  assignable(t1: Type, t2: Type): boolean;
  newTypeVar(): Type;
  report(offset: number, message: string): Type;
  anchor(node: EngineNode): number;
  substitute(t: Type, paramToDyn: boolean): Type;
  /** a comprehension variable in scope, if any */
  lookupScoped(name: string): Type | undefined;
}

const ONE_VARIABLE_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'optMap', 'optFlatMap', 'sortBy']);
const TWO_VARIABLE_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

/** The element types a comprehension over `range` binds (checker.go checkComprehension). */
function rangeTypes(host: MacroHost, range: EngineNode, twoVariables: boolean): [first: Type, second: Type, range: Type] {
  const rangeType = host.substitute(host.check(range), false);
  switch (rangeType.kind) {
    case 'list':
      return twoVariables ? [INT, rangeType.params[0]!, rangeType] : [rangeType.params[0]!, DYN, rangeType];
    case 'map':
      return [rangeType.params[0]!, rangeType.params[1]!, rangeType];
    case 'dyn':
    case 'error':
    case 'param':
      host.assignable(DYN, rangeType);
      return [DYN, DYN, rangeType];
    default:
      host.report(host.anchor(range), `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
      return [ERROR, ERROR, rangeType];
  }
}

/** all / exists (`accu && p`, `accu || p`) and exists_one (`p ? accu + 1 : accu`), with one or two variables. */
function quantifier(host: MacroHost, name: string, node: EngineNode, vars: Record<string, Type>, at: number): Type {
  if (name === 'all' || name === 'exists') predicate(host, node, vars);
  else host.resolve('_?_:_', [host.withScope(vars, () => host.check(node)), INT, INT], false, at);
  return BOOL;
}

function identArgument(host: MacroHost, node: EngineNode | undefined): string | undefined {
  if (node?.op === 'id') return node.args as string;
  if (node !== undefined) host.report(host.anchor(node), 'argument must be a simple name');
  return undefined;
}

/** A predicate used as `accu && p` / `accu || p` by the macro expansions. */
function predicate(host: MacroHost, node: EngineNode, vars: Record<string, Type>): void {
  const t = host.withScope(vars, () => host.check(node));
  if (!host.assignable(t, BOOL)) host.report(host.anchor(node), `expected type 'bool' but found '${formatType(host.substitute(t, true))}'`);
}

/** The macros' typing, as their cel-go expansions type (parser/macro.go, ext/comprehensions.go, ext/lists.go). */
export function checkMacro(host: MacroHost, node: EngineNode, name: string, target: EngineNode, args: EngineNode[]): Type | undefined {
  const at = host.anchor(node);
  if (name === 'bind' && target.op === 'id' && target.args === 'cel' && args.length === 3 && host.lookupScoped('cel') === undefined) {
    const variable = identArgument(host, args[0]);
    const init = host.check(args[1]!);
    return host.withScope(variable === undefined ? {} : { [variable]: init }, () => host.check(args[2]!));
  }
  const two = args.length >= 3 && TWO_VARIABLE_MACROS.has(name) && args[0]?.op === 'id' && args[1]?.op === 'id';
  if (two && (args.length === 3 || (args.length === 4 && name.startsWith('transform')))) return checkTwoVariableMacro(host, name, target, args, at);
  if (!ONE_VARIABLE_MACROS.has(name) || (args.length !== 2 && !(name === 'map' && args.length === 3))) return undefined;
  if (name === 'optMap' || name === 'optFlatMap') return checkOptionalMacro(host, name, target, args, at);
  const variable = identArgument(host, args[0]);
  if (variable === undefined) return ERROR;
  const [element, , rangeType] = rangeTypes(host, target, false);
  const vars = { [variable]: element };
  switch (name) {
    case 'all':
    case 'exists':
    case 'exists_one':
    case 'existsOne':
      return quantifier(host, name, args[1]!, vars, at);
    case 'filter': {
      const p = host.withScope(vars, () => host.check(args[1]!));
      const accu = listOf(host.newTypeVar());
      const step = host.resolve('_+_', [accu, listOf(element)], false, at);
      host.resolve('_?_:_', [p, step, accu], false, at);
      return host.substitute(accu, false);
    }
    case 'map': {
      const accu = listOf(host.newTypeVar());
      const p = args.length === 3 ? host.withScope(vars, () => host.check(args[1]!)) : undefined;
      const t = host.withScope(vars, () => host.check(args[args.length - 1]!));
      const step = host.resolve('_+_', [accu, listOf(t)], false, at);
      if (p !== undefined) host.resolve('_?_:_', [p, step, accu], false, at);
      return host.substitute(accu, false);
    }
    case 'sortBy': {
      const key = host.withScope(vars, () => host.check(args[1]!));
      return host.resolve('@sortByAssociatedKeys', [rangeType, listOf(key)], true, at);
    }
    default:
      return undefined;
  }
}

function checkTwoVariableMacro(host: MacroHost, name: string, target: EngineNode, args: EngineNode[], at: number): Type {
  const first = args[0]!.args as string;
  const second = args[1]!.args as string;
  const [kt, vt] = rangeTypes(host, target, true);
  const vars = { [first]: kt, [second]: vt };
  switch (name) {
    case 'all':
    case 'exists':
    case 'exists_one':
    case 'existsOne':
      return quantifier(host, name, args[2]!, vars, at);
    default: {
      const filter = args.length === 4 ? host.withScope(vars, () => host.check(args[2]!)) : undefined;
      const t = host.withScope(vars, () => host.check(args[args.length - 1]!));
      let accu: Type;
      let step: Type;
      if (name === 'transformList') {
        accu = listOf(host.newTypeVar());
        step = host.resolve('_+_', [accu, listOf(t)], false, at);
      } else {
        accu = mapOf(host.newTypeVar(), host.newTypeVar());
        step = host.resolve('cel.@mapInsert', name === 'transformMap' ? [accu, kt, t] : [accu, t], false, at);
      }
      if (filter !== undefined) host.resolve('_?_:_', [filter, step, accu], false, at);
      return host.substitute(accu, false);
    }
  }
}

/** optMap / optFlatMap (cel/library.go): `r.hasValue() ? optional.of(body) : optional.none()` and its flat form. */
function checkOptionalMacro(host: MacroHost, name: string, target: EngineNode, args: EngineNode[], at: number): Type {
  const variable = identArgument(host, args[0]);
  const receiver = host.check(target);
  const hasValue = host.resolve('hasValue', [receiver], true, at);
  const value = host.resolve('value', [receiver], true, at);
  const body = host.withScope(variable === undefined ? {} : { [variable]: value }, () => host.check(args[1]!));
  const none = host.resolve('optional.none', [], false, at);
  const some = name === 'optMap' ? host.resolve('optional.of', [body], false, at) : body;
  return host.resolve('_?_:_', [hasValue, some, none], false, at);
}
