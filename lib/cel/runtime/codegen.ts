// Generates one JavaScript function per expression from its AST, after the planner has planned it: the same helpers
// (attributes, compare, functions, operators), the same cost ticks and the same error absorption as the planner's
// closures, in the same order, without a closure call per node. Why: a tree of closures calls each child through a
// call site every expression shares, which V8 cannot inline; a function per expression has its own call sites
// (docs/adr/0001-cel-engine.md, "generated evaluation").
//
// What the generator does not translate it hands back to the planner (`delegated`): qualified names and type
// identifiers, literals of lists and maps, constant folds and constant regular expressions, optional chaining and
// `or`/`orValue`, the macros codegen-macros.ts does not translate, cel.bind's malformed forms, and anything unknown.
// Those run as the planner's closures, reading comprehension variables from the evaluation state's slots, which the
// generated loops keep written.
//
// Safety: nothing from the expression's text reaches the generated source except through JSON.stringify (field and
// variable names); values, functions and delegated closures are passed in arrays and read by index.

import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { EngineNode } from '../engine.js';
import { rootName } from '../names.js';
import { hasField, index, optionalIndex, optionalSelect, selectField } from './attributes.js';
import { argumentCost, LINEAR_COST } from './call-cost.js';
import { celEquals, compare } from './compare.js';
import { loopRange, MACRO_NAMES } from './comprehensions.js';
import { generateMacro } from './codegen-macros.js';
import type { Emitter } from './codegen-macros.js';
import { GLOBAL, MEMBER, sizeOf } from './functions.js';
import type { Impl } from './functions.js';
import { add } from './numbers.js';
import { ARITHMETIC, COMPARISONS, OPERATOR_NAMES, membership } from './operators.js';
import { absorbed, CONVERSIONS, countNodes, isIdent, logicalError, lookup, mayBeQualifiedFunction, mayBeQualifiedName, OPTIONAL_ENTRY_FUNCTION, unboundVariable } from './plan-support.js';
import type { Eval, Scope } from './plan-support.js';
import { CelRuntimeError, CelUint, MAX_INT64, MIN_INT64, noSuchOverloadError } from './values.js';

/** What the generator needs of the planner: closures for what it hands back, slots, and its constant folding. */
export interface DelegatingPlanner {
  readonly slotCount: number;
  plan(node: EngineNode, scope: Scope | undefined): Eval;
  newSlot(): number;
  /** whether `node` plans to a constant (a conversion of it is folded at plan time) */
  plansConstant(node: EngineNode, scope: Scope | undefined): boolean;
}

export interface GenerateOptions {
  readonly variables: ReadonlySet<string>;
  readonly extraGlobals?: ReadonlyMap<string, Impl> | undefined;
}

/** Expressions larger than this stay closures: the generated source grows with the tree, and so does its compile. */
const MAX_GENERATED_NODES = 4000;

const HELPERS = {
  absorbed,
  logicalError,
  unboundVariable,
  hasField,
  index,
  optionalIndex,
  optionalSelect,
  selectField,
  argumentCost,
  celEquals,
  compare,
  loopRange,
  sizeOf,
  add,
  membership,
  noSuchOverloadError,
  CelRuntimeError,
  getPrototypeOf: Object.getPrototypeOf,
  ObjectPrototype: Object.prototype,
};
const HELPER_NAMES = Object.keys(HELPERS).join(', ');

class Generator implements Emitter {
  private readonly lines: string[] = [];
  private temps = 0;
  readonly values: unknown[] = [];
  readonly delegates: Eval[] = [];
  readonly functions: unknown[] = [];

  constructor(
    private readonly planner: DelegatingPlanner,
    private readonly options: GenerateOptions,
  ) {}

  newSlot(): number {
    return this.planner.newSlot();
  }

  source(root: EngineNode): string {
    const result = this.gen(root, undefined);
    const slots = this.planner.slotCount;
    return `"use strict";\nconst { ${HELPER_NAMES} } = H;\nreturn function celExpression(s) {\n${slots === 0 ? '' : `s.reserveSlots(${slots});\n`}${this.lines.join('\n')}\nreturn ${result};\n};`;
  }

  temp(): string {
    return `t${this.temps++}`;
  }

  emit(line: string): void {
    this.lines.push(line);
  }

  bind(expression: string): string {
    const t = this.temp();
    this.emit(`const ${t} = ${expression};`);
    return t;
  }

  private value(v: unknown): string {
    if (typeof v === 'boolean' || v === null) return String(v);
    this.values.push(v);
    return `K[${this.values.length - 1}]`;
  }

  private fn(f: unknown): string {
    this.functions.push(f);
    return `F[${this.functions.length - 1}]`;
  }

  private delegate(node: EngineNode, scope: Scope | undefined): string {
    this.delegates.push(this.planner.plan(node, scope));
    return this.bind(`D[${this.delegates.length - 1}](s)`);
  }

  /** Runs `node` inside try, its CEL error becoming the value (attempt()). */
  attempt(node: EngineNode, scope: Scope | undefined): string {
    const t = this.temp();
    this.emit(`let ${t};\ntry {`);
    const v = this.gen(node, scope);
    this.emit(`${t} = ${v};\n} catch (e) { ${t} = absorbed(e); }`);
    return t;
  }

  gen(node: EngineNode, scope: Scope | undefined): string {
    switch (node.op) {
      case 'value':
        return this.literal(node);
      case 'id':
        return this.ident(node, scope);
      case '.':
      case '.?':
        return this.select(node, scope);
      case '[]':
      case '[?]': {
        const [operand, key] = node.args as [EngineNode, EngineNode];
        const o = this.gen(operand, scope);
        const k = this.gen(key, scope);
        return this.bind(`${node.op === '[]' ? 'index' : 'optionalIndex'}(${o}, ${k})`);
      }
      case 'call':
        return this.call(node, scope);
      case 'rcall':
        return this.memberCall(node, scope);
      case '?:':
        return this.conditional(node, scope);
      case '&&':
      case '||':
        return this.logical(node, scope);
      case '!_': {
        const v = this.gen(node.args as EngineNode, scope);
        this.emit(`if (typeof ${v} !== 'boolean') throw noSuchOverloadError();`);
        return this.bind(`!${v}`);
      }
      case 'list':
      case 'map':
      case '-_':
        return this.delegate(node, scope);
      default:
        return this.binary(node, scope);
    }
  }

  private literal(node: EngineNode): string {
    const v = node.args;
    if (v instanceof UnsignedInt) return this.value(new CelUint(v.valueOf()));
    if (typeof v === 'bigint' && (v > MAX_INT64 || v < MIN_INT64)) return this.delegate(node, undefined);
    return this.value(v);
  }

  private ident(node: EngineNode, scope: Scope | undefined): string {
    const name = rootName(node.args as string);
    const slot = lookup(scope, name);
    if (slot !== undefined) return `L${slot}`;
    if (!this.options.variables.has(name)) return this.delegate(node, scope);
    const key = JSON.stringify(name);
    const v = this.bind(`s.vars[${key}]`);
    this.emit(`if (${v} === undefined) unboundVariable(${key});`);
    return v;
  }

  private select(node: EngineNode, scope: Scope | undefined): string {
    const [operand, field] = node.args as [EngineNode, string];
    // the planner resolves qualified names and types
    if (node.op === '.' && mayBeQualifiedName(node, scope, this.options.variables)) return this.delegate(node, scope);
    const o = this.gen(operand, scope);
    if (node.op === '.?') return this.bind(`optionalSelect(${o}, ${JSON.stringify(field)})`);
    return this.field(o, field, 'selectField');
  }

  /**
   * selectField / hasField of a field name, with a plain object's own field read at a property load of this
   * expression's own (one inline cache per site, not one keyed load every expression shares). Anything else, or a
   * field that is absent or may be inherited, takes the helper, which decides.
   */
  private field(o: string, field: string, helper: 'selectField' | 'hasField'): string {
    const key = JSON.stringify(field);
    if (field === '__proto__') return this.bind(`${helper}(${o}, ${key})`);
    const r = this.temp();
    const v = this.temp();
    this.emit(`let ${r};\nif (typeof ${o} === 'object' && ${o} !== null && getPrototypeOf(${o}) === ObjectPrototype) {`);
    this.emit(`const ${v} = ${o}[${key}];`);
    if (helper === 'selectField') this.emit(`${r} = ${v} === undefined || typeof ${v} === 'function' ? selectField(${o}, ${key}) : ${v};`);
    else this.emit(`${r} = ${v} === undefined ? false : typeof ${v} !== 'function' || hasField(${o}, ${key});`);
    this.emit(`} else ${r} = ${helper}(${o}, ${key});`);
    return r;
  }

  private conditional(node: EngineNode, scope: Scope | undefined): string {
    const [c, t, f] = node.args as [EngineNode, EngineNode, EngineNode];
    const condition = this.gen(c, scope);
    const r = this.temp();
    this.emit(`let ${r};\nif (${condition} === true) {`);
    this.emit(`${r} = ${this.gen(t, scope)};\n} else if (${condition} === false) {`);
    this.emit(`${r} = ${this.gen(f, scope)};\n} else throw noSuchOverloadError();`);
    return r;
  }

  private logical(node: EngineNode, scope: Scope | undefined): string {
    const [left, right] = node.args as [EngineNode, EngineNode];
    const absorbing = String(node.op === '||');
    const other = String(node.op !== '||');
    const r = this.temp();
    const l = this.attempt(left, scope);
    this.emit(`let ${r};\nif (${l} === ${absorbing}) ${r} = ${absorbing};\nelse {`);
    const rv = this.attempt(right, scope);
    this.emit(`if (${rv} === ${absorbing}) ${r} = ${absorbing};`);
    this.emit(`else if (${l} === ${other} && ${rv} === ${other}) ${r} = ${other};\nelse logicalError(${l}, ${rv});\n}`);
    return r;
  }

  private binary(node: EngineNode, scope: Scope | undefined): string {
    const cmp = COMPARISONS[node.op];
    const arith = ARITHMETIC[node.op];
    const known = node.op === '==' || node.op === '!=' || node.op === 'in' || cmp !== undefined || arith !== undefined;
    if (!known) return this.delegate(node, scope);
    const [leftNode, rightNode] = node.args as [EngineNode, EngineNode];
    const l = this.gen(leftNode, scope);
    const r = this.gen(rightNode, scope);
    switch (node.op) {
      case '==':
        return this.bind(`celEquals(${l}, ${r})`);
      case '!=':
        return this.bind(`!celEquals(${l}, ${r})`);
      case 'in':
        this.emit(`if (Array.isArray(${r})) s.tick(1 + Math.ceil(${r}.length * 0.1));`);
        return this.bind(`membership(${l}, ${r})`);
      case '+':
        this.emit(`if (typeof ${l} === 'string' || Array.isArray(${l})) s.tick(Math.ceil((sizeOf(${l}) + sizeOf(${r})) * 0.1));`);
        return this.bind(`add(${l}, ${r})`);
      default:
    }
    if (cmp !== undefined) return this.bind(`${this.fn(cmp)}(compare(${l}, ${r}, ${JSON.stringify(OPERATOR_NAMES[node.op])}))`);
    return this.bind(`${this.fn(arith)}(${l}, ${r})`);
  }

  private invoke(name: string, impl: Impl, argNodes: readonly EngineNode[], scope: Scope | undefined): string {
    const values = argNodes.map((a) => this.gen(a, scope));
    const f = this.fn(impl);
    if (values.length === 0) {
      this.emit('s.tick(1);');
      return this.bind(`${f}([], s)`);
    }
    const args = this.bind(`[${values.join(', ')}]`);
    this.emit(LINEAR_COST.has(name) ? `s.tick(argumentCost(${args}));` : 's.tick(1);');
    return this.bind(`${f}(${args}, s)`);
  }

  private call(node: EngineNode, scope: Scope | undefined): string {
    const [written, argNodes] = node.args as [string, EngineNode[]];
    const name = rootName(written);
    if (name === 'has' && argNodes.length === 1) {
      const arg = argNodes[0]!;
      if (arg.op !== '.' || typeof (arg.args as unknown[])[1] !== 'string') return this.delegate(node, scope);
      const [operand, field] = arg.args as [EngineNode, string];
      return this.field(this.gen(operand, scope), field, 'hasField');
    }
    if (name === OPTIONAL_ENTRY_FUNCTION) return this.delegate(node, scope);
    const impl = this.options.extraGlobals?.get(name) ?? GLOBAL.get(name);
    if (impl === undefined) return this.delegate(node, scope);
    if (CONVERSIONS.has(name) && argNodes.length === 1 && this.planner.plansConstant(argNodes[0]!, scope)) return this.delegate(node, scope);
    if (name === 'matches') return this.delegate(node, scope);
    return this.invoke(name, impl, argNodes, scope);
  }

  private memberCall(node: EngineNode, scope: Scope | undefined): string {
    const [name, target, argNodes] = node.args as [string, EngineNode, EngineNode[]];
    if (mayBeQualifiedFunction(target, scope, this.options.variables)) {
      if (`${target.args}.${name}` === 'cel.bind') return this.bindCall(node, argNodes, scope);
      return this.delegate(node, scope);
    }
    if (MACRO_NAMES.has(name)) return generateMacro(this, name, target, argNodes, scope) ?? this.delegate(node, scope);
    if (name === 'or' || name === 'orValue' || name === 'matches' || name === 'find' || name === 'findAll') return this.delegate(node, scope);
    const impl = MEMBER.get(name);
    if (impl === undefined) return this.delegate(node, scope);
    return this.invoke(name, impl, [target, ...argNodes], scope);
  }

  /** cel.bind(v, init, body): the variable as a local, also in its slot for delegated closures. */
  private bindCall(node: EngineNode, argNodes: readonly EngineNode[], scope: Scope | undefined): string {
    const [variable, init, body] = argNodes;
    if (!isIdent(variable) || init === undefined || body === undefined || argNodes.length !== 3) return this.delegate(node, scope);
    const slot = this.planner.newSlot();
    const v = this.gen(init, scope);
    this.emit(`const L${slot} = ${v};\ns.slots[${slot}] = L${slot};`);
    return this.gen(body, { name: variable.args, slot, parent: scope });
  }
}

/**
 * The expression as one generated function, or undefined where it is too large (the source grows with the tree) or
 * code generation is unavailable (`--disallow-code-generation-from-strings`). Its delegated parts are planned on
 * `planner`; the function makes room for the slots they number (EvalState.reserveSlots).
 */
export function generate(root: EngineNode, planner: DelegatingPlanner, options: GenerateOptions): Eval | undefined {
  if (countNodes(root) > MAX_GENERATED_NODES) return undefined;
  const g = new Generator(planner, options);
  const source = g.source(root);
  let factory: (...args: unknown[]) => Eval;
  try {
    factory = new Function('K', 'D', 'F', 'H', source) as (...args: unknown[]) => Eval;
  } catch (error) {
    if (error instanceof EvalError) return undefined;
    throw error;
  }
  return factory(g.values, g.delegates, g.functions, HELPERS);
}
