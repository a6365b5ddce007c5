// The comprehension macros and cel.bind as the planner plans them (parser/macro.go expansions, ext/comprehensions.go,
// ext/bindings.go, ext/lists.go sortBy, optMap/optFlatMap): each iteration variable gets a slot of the evaluation
// state, every iteration adds the body's size to the cost, and all/exists absorb errors as cel-go's folds do.
import type { EngineNode } from '../engine.js';
import { mapEntries, mapGet, mapKeys } from './compare.js';
import type { CelMap } from './compare.js';
import { keyText } from './attributes.js';
import { checkKey } from './compare.js';
import { MEMBER } from './functions.js';
import { attempt, countNodes, failing, isIdent } from './plan-support.js';
import type { Eval, Scope } from './plan-support.js';
import { CelOptional, CelRuntimeError, celError, goTypeName, isMap, noSuchOverload, noSuchOverloadError, setOwn } from './values.js';

/** What the macros need of the planner: planning a subexpression in a scope, and a new variable slot. */
export interface LoopPlanner {
  plan(node: EngineNode, scope: Scope | undefined): Eval;
  newSlot(): number;
}

/**
 * What a comprehension iterates: list elements or map keys (`first`), and for two-variable comprehensions
 * (index, element) or (key, value) pairs (`first`, `second`).
 */
function loopValues(v: unknown, twoVariables: boolean): { first: readonly unknown[]; second: readonly unknown[] | undefined } {
  // evalFold (interpreter/interpretable.go) names the Go type of a range it cannot iterate
  if (Array.isArray(v)) {
    if (!twoVariables) return { first: v, second: undefined };
    return { first: v.map((_, i) => BigInt(i)), second: v };
  }
  if (isMap(v)) {
    const keys = mapKeys(v as CelMap);
    if (!twoVariables) return { first: keys, second: undefined };
    return { first: keys, second: keys.map((k) => mapGet(v as CelMap, k)) };
  }
  if (twoVariables) throw celError(`unsupported comprehension range type: ${goTypeName(v)}`);
  throw celError(`got '${goTypeName(v)}', expected iterable type`);
}

/** What a one-variable comprehension iterates (list elements, map keys), with loopValues' errors. */
export function loopRange(v: unknown): readonly unknown[] {
  return loopValues(v, false).first;
}

/** A macro's predicate or filter: the macros expand to `?:` and `&&`, which refuse a non-bool bare. */
function boolResult(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  throw noSuchOverloadError();
}

/** Adds (key, value) to a map being built by transformMap / transformMapEntry; a repeated key is an error. */
function insertEntry(target: Map<unknown, unknown>, key: unknown, value: unknown): void {
  checkKey(key);
  if (mapGet(target, key) !== undefined) throw celError(`insert failed: key ${keyText(key)} already exists`);
  target.set(typeof key === 'number' ? BigInt(key) : key, value);
}

/** A Map built by a macro as the usual representation (plain object when all keys are strings). */
function finishMap(m: Map<unknown, unknown>): CelMap {
  for (const k of m.keys()) if (typeof k !== 'string') return m;
  const out: Record<string, unknown> = {};
  for (const [k, v] of m) setOwn(out, k as string, v);
  return out;
}

export function planBind(p: LoopPlanner, argNodes: readonly EngineNode[], scope: Scope | undefined): Eval {
  const [variable, init, body] = argNodes;
  if (!isIdent(variable) || init === undefined || body === undefined || argNodes.length !== 3) {
    return failing('cel.bind() requires an identifier, an initializer and an expression');
  }
  const slot = p.newSlot();
  const i = p.plan(init, scope);
  const b = p.plan(body, { name: variable.args, slot, parent: scope });
  return (s) => {
    s.slots[slot] = i(s);
    return b(s);
  };
}

/** The names planMacro expands, with the right arguments (others are member calls). */
export const MACRO_NAMES: ReadonlySet<string> = new Set([
  'all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'optMap', 'optFlatMap', 'sortBy', 'transformList', 'transformMap', 'transformMapEntry',
]);

export function planMacro(p: LoopPlanner, name: string, target: EngineNode, args: readonly EngineNode[], scope: Scope | undefined): Eval | undefined {
  const [a0, a1, a2, a3] = args;
  if (args.length === 2 && isIdent(a0)) {
    switch (name) {
      case 'all':
      case 'exists':
        return quantifier(p, name, target, a0.args, undefined, a1!, scope);
      case 'exists_one':
      case 'existsOne':
        return existsOne(p, target, a0.args, undefined, a1!, scope);
      case 'map':
        return mapMacro(p, target, a0.args, undefined, a1!, scope);
      case 'filter':
        return filter(p, target, a0.args, a1!, scope);
      case 'optMap':
      case 'optFlatMap':
        return optMap(p, name, target, a0.args, a1!, scope);
      case 'sortBy':
        return sortBy(p, target, a0.args, a1!, scope);
      default:
        return undefined;
    }
  }
  if (args.length === 3 && isIdent(a0)) {
    if (name === 'map') return mapMacro(p, target, a0.args, a1, a2!, scope);
    if (!isIdent(a1)) return undefined;
    switch (name) {
      case 'all':
      case 'exists':
        return quantifier(p, name, target, a0.args, a1.args, a2!, scope);
      case 'exists_one':
      case 'existsOne':
        return existsOne(p, target, a0.args, a1.args, a2!, scope);
      case 'transformList':
        return transformList(p, target, a0.args, a1.args, undefined, a2!, scope);
      case 'transformMap':
      case 'transformMapEntry':
        return transformMap(p, name, target, a0.args, a1.args, undefined, a2!, scope);
      default:
        return undefined;
    }
  }
  if (args.length === 4 && isIdent(a0) && isIdent(a1)) {
    switch (name) {
      case 'transformList':
        return transformList(p, target, a0.args, a1.args, a2, a3!, scope);
      case 'transformMap':
      case 'transformMapEntry':
        return transformMap(p, name, target, a0.args, a1.args, a2, a3!, scope);
      default:
        return undefined;
    }
  }
  return undefined;
}

/** Plans a comprehension body with one or two iteration variables in new slots. */
function loopScope(p: LoopPlanner, scope: Scope | undefined, first: string, second: string | undefined): { scope: Scope; slot1: number; slot2: number } {
  const slot1 = p.newSlot();
  let inner: Scope = { name: first, slot: slot1, parent: scope };
  let slot2 = -1;
  if (second !== undefined) {
    slot2 = p.newSlot();
    inner = { name: second, slot: slot2, parent: inner };
  }
  return { scope: inner, slot1, slot2 };
}

/** all / exists: short-circuit on the deciding value; otherwise an error, if any, wins. */
function quantifier(p: LoopPlanner, name: 'all' | 'exists', target: EngineNode, v1: string, v2: string | undefined, body: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1, slot2 } = loopScope(p, scope, v1, v2);
  const pred = p.plan(body, inner);
  const deciding = name === 'exists';
  const step = 1 + countNodes(body);
  return (s) => {
    const { first, second } = loopValues(range(s), slot2 >= 0);
    let error: CelRuntimeError | undefined;
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      if (second !== undefined) s.slots[slot2] = second[i];
      const v = attempt(pred, s);
      if (v === deciding) return deciding;
      if (v !== !deciding) error ??= v instanceof CelRuntimeError ? v : noSuchOverloadError();
    }
    if (error !== undefined) throw error;
    return !deciding;
  };
}

function existsOne(p: LoopPlanner, target: EngineNode, v1: string, v2: string | undefined, body: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1, slot2 } = loopScope(p, scope, v1, v2);
  const pred = p.plan(body, inner);
  const step = 1 + countNodes(body);
  return (s) => {
    const { first, second } = loopValues(range(s), slot2 >= 0);
    let count = 0;
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      if (second !== undefined) s.slots[slot2] = second[i];
      if (boolResult(pred(s))) count++;
    }
    return count === 1;
  };
}

/** ext/lists.go sortByMacro: `target.@sortByAssociatedKeys(target.map(v, key))`. */
function sortBy(p: LoopPlanner, target: EngineNode, v: string, keyNode: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const keys = mapMacro(p, target, v, undefined, keyNode, scope);
  const sort = MEMBER.get('@sortByAssociatedKeys');
  if (sort === undefined) return failing('undeclared reference to \'sortBy\'');
  return (s) => sort([range(s), keys(s)], s);
}

function mapMacro(p: LoopPlanner, target: EngineNode, v: string, filterNode: EngineNode | undefined, transformNode: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1 } = loopScope(p, scope, v, undefined);
  const filter = filterNode === undefined ? undefined : p.plan(filterNode, inner);
  const transform = p.plan(transformNode, inner);
  const step = 1 + countNodes(filterNode) + countNodes(transformNode);
  return (s) => {
    const { first } = loopValues(range(s), false);
    const out: unknown[] = [];
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      if (filter === undefined || boolResult(filter(s))) out.push(transform(s));
    }
    return out;
  };
}

function filter(p: LoopPlanner, target: EngineNode, v: string, predNode: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1 } = loopScope(p, scope, v, undefined);
  const pred = p.plan(predNode, inner);
  const step = 1 + countNodes(predNode);
  return (s) => {
    const { first } = loopValues(range(s), false);
    const out: unknown[] = [];
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      if (boolResult(pred(s))) out.push(first[i]);
    }
    return out;
  };
}

function transformList(p: LoopPlanner, target: EngineNode, v1: string, v2: string, filterNode: EngineNode | undefined, transformNode: EngineNode, scope: Scope | undefined): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1, slot2 } = loopScope(p, scope, v1, v2);
  const filter = filterNode === undefined ? undefined : p.plan(filterNode, inner);
  const transform = p.plan(transformNode, inner);
  const step = 1 + countNodes(filterNode) + countNodes(transformNode);
  return (s) => {
    const { first, second } = loopValues(range(s), true);
    const out: unknown[] = [];
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      s.slots[slot2] = second![i];
      if (filter === undefined || boolResult(filter(s))) out.push(transform(s));
    }
    return out;
  };
}

function transformMap(
  p: LoopPlanner,
  name: 'transformMap' | 'transformMapEntry',
  target: EngineNode,
  v1: string,
  v2: string,
  filterNode: EngineNode | undefined,
  transformNode: EngineNode,
  scope: Scope | undefined,
): Eval {
  const range = p.plan(target, scope);
  const { scope: inner, slot1, slot2 } = loopScope(p, scope, v1, v2);
  const filter = filterNode === undefined ? undefined : p.plan(filterNode, inner);
  const transform = p.plan(transformNode, inner);
  const step = 1 + countNodes(filterNode) + countNodes(transformNode);
  return (s) => {
    const { first, second } = loopValues(range(s), true);
    const out = new Map<unknown, unknown>();
    for (let i = 0; i < first.length; i++) {
      s.tick(step);
      s.slots[slot1] = first[i];
      s.slots[slot2] = second![i];
      if (filter !== undefined && !boolResult(filter(s))) continue;
      const value = transform(s);
      if (name === 'transformMap') insertEntry(out, first[i], value);
      else {
        if (!isMap(value)) throw noSuchOverload('cel.@mapInsert', out, value);
        for (const [k, v] of mapEntries(value as CelMap)) insertEntry(out, k, v);
      }
    }
    return finishMap(out);
  };
}

function optMap(p: LoopPlanner, name: 'optMap' | 'optFlatMap', target: EngineNode, v: string, body: EngineNode, scope: Scope | undefined): Eval {
  const receiver = p.plan(target, scope);
  const slot = p.newSlot();
  const expr = p.plan(body, { name: v, slot, parent: scope });
  return (s) => {
    const o = receiver(s);
    if (!(o instanceof CelOptional)) throw noSuchOverload(name, o);
    if (!o.hasValue()) return o;
    s.slots[slot] = o.value();
    const r = expr(s);
    if (name === 'optMap') return CelOptional.of(r);
    if (!(r instanceof CelOptional)) throw noSuchOverload(name, r);
    return r;
  };
}
