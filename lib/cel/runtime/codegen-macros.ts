// The comprehension macros codegen.ts translates, as comprehensions.ts plans them: one-variable all / exists (errors
// absorbed, cel-go's evalFold order), exists_one, map (with or without its filter) and filter (a non-bool predicate is
// the bare error, nothing absorbed). Every iteration ticks the body's size and writes the variable to its slot as
// well, for the closures the generator delegates to. The two-variable forms and the rest stay the planner's.
import type { EngineNode } from '../engine.js';
import { countNodes, isIdent } from './plan-support.js';
import type { Scope } from './plan-support.js';

/** What the macros need of the generator. */
export interface Emitter {
  gen(node: EngineNode, scope: Scope | undefined): string;
  /** `node` inside try, its CEL error becoming the value */
  attempt(node: EngineNode, scope: Scope | undefined): string;
  emit(line: string): void;
  bind(expression: string): string;
  temp(): string;
  newSlot(): number;
}

/** A one-variable macro of `name`, or undefined for the planner to plan. */
export function generateMacro(g: Emitter, name: string, target: EngineNode, args: readonly EngineNode[], scope: Scope | undefined): string | undefined {
  const [variable, a1, a2] = args;
  if (!isIdent(variable)) return undefined;
  if (args.length === 2) {
    switch (name) {
      case 'all':
      case 'exists':
        return quantifier(g, name, target, variable.args, a1!, scope);
      case 'exists_one':
      case 'existsOne':
        return existsOne(g, target, variable.args, a1!, scope);
      case 'map':
        return mapMacro(g, target, variable.args, undefined, a1!, scope);
      case 'filter':
        return filter(g, target, variable.args, a1!, scope);
      default:
        return undefined;
    }
  }
  if (args.length === 3 && name === 'map') return mapMacro(g, target, variable.args, a1, a2!, scope);
  return undefined;
}

/**
 * Opens `for` over the range's elements (list) or keys (map), with the iteration's tick and the variable as a local
 * and in its slot; `body` emits the loop's body in the variable's scope. The caller closes the loop.
 */
function loop(g: Emitter, target: EngineNode, variable: string, scope: Scope | undefined, step: number, body: (inner: Scope, item: string) => void): void {
  const range = g.gen(target, scope);
  const slot = g.newSlot();
  const items = g.bind(`Array.isArray(${range}) ? ${range} : loopRange(${range})`);
  const i = g.temp();
  g.emit(`for (let ${i} = 0; ${i} < ${items}.length; ${i}++) {`);
  g.emit(`s.tick(${step});\nconst L${slot} = ${items}[${i}];\ns.slots[${slot}] = L${slot};`);
  body({ name: variable, slot, parent: scope }, `L${slot}`);
}

/** A predicate's value, which the macros' expansions (`?:`, `&&`) refuse bare when it is not a bool. */
function predicate(g: Emitter, node: EngineNode, scope: Scope): string {
  const v = g.gen(node, scope);
  g.emit(`if (typeof ${v} !== 'boolean') throw noSuchOverloadError();`);
  return v;
}

/** all / exists (comprehensions.ts quantifier): short-circuit on the deciding value, else the first error. */
function quantifier(g: Emitter, name: 'all' | 'exists', target: EngineNode, variable: string, body: EngineNode, scope: Scope | undefined): string {
  const deciding = String(name === 'exists');
  const other = String(name !== 'exists');
  const r = g.temp();
  const error = g.temp();
  g.emit(`let ${r} = ${other};\nlet ${error};`);
  loop(g, target, variable, scope, 1 + countNodes(body), (inner) => {
    const v = g.attempt(body, inner);
    g.emit(`if (${v} === ${deciding}) { ${r} = ${deciding}; break; }`);
    g.emit(`if (${v} !== ${other}) ${error} ??= ${v} instanceof CelRuntimeError ? ${v} : noSuchOverloadError();`);
  });
  g.emit('}');
  g.emit(`if (${r} !== ${deciding} && ${error} !== undefined) throw ${error};`);
  return r;
}

function existsOne(g: Emitter, target: EngineNode, variable: string, body: EngineNode, scope: Scope | undefined): string {
  const count = g.temp();
  g.emit(`let ${count} = 0;`);
  loop(g, target, variable, scope, 1 + countNodes(body), (inner) => {
    g.emit(`if (${predicate(g, body, inner)}) ${count}++;`);
  });
  g.emit('}');
  return g.bind(`${count} === 1`);
}

/** map(v, transform) and map(v, filter, transform): the transform only where the filter holds. */
function mapMacro(g: Emitter, target: EngineNode, variable: string, filterNode: EngineNode | undefined, transform: EngineNode, scope: Scope | undefined): string {
  const out = g.temp();
  g.emit(`const ${out} = [];`);
  loop(g, target, variable, scope, 1 + countNodes(filterNode) + countNodes(transform), (inner) => {
    if (filterNode !== undefined) g.emit(`if (${predicate(g, filterNode, inner)}) {`);
    g.emit(`${out}.push(${g.gen(transform, inner)});`);
    if (filterNode !== undefined) g.emit('}');
  });
  g.emit('}');
  return out;
}

function filter(g: Emitter, target: EngineNode, variable: string, body: EngineNode, scope: Scope | undefined): string {
  const out = g.temp();
  g.emit(`const ${out} = [];`);
  loop(g, target, variable, scope, 1 + countNodes(body), (inner, item) => {
    g.emit(`if (${predicate(g, body, inner)}) ${out}.push(${item});`);
  });
  g.emit('}');
  return out;
}
