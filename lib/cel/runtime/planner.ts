// Turns the engine's parsed (and, when checking, type-checked) AST into a tree of closures that evaluate it with
// cel-go's semantics (values.ts): the engine parses and type-checks, lib/cel evaluates. Comprehension and
// cel.bind variables live in numbered slots of the evaluation state; everything else is resolved once here, at
// plan time: identifiers (comprehension variable, declared variable, qualified name, type name), functions
// (runtime table in functions.ts, their cost in call-cost.ts), has(), operators (operators.ts), and the comprehension
// macros, cel.bind, optMap and optFlatMap (comprehensions.ts).
//
// Errors: operations throw CelRuntimeError; `&&`, `||` and the quantifier macros absorb them as cel-go's
// error values are absorbed (commutatively). Cost: every function call, comprehension iteration and aggregate
// construction adds to the state's cost (state.ts), approximating cel-go's runtime cost tracking.

import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { EngineNode } from '../engine.js';
import { celEquals, checkKey, compare } from './compare.js';
import { GLOBAL, MEMBER, sizeOf } from './functions.js';
import type { Impl } from './functions.js';
import { hasField, index, keyText, optionalIndex, optionalSelect, selectField } from './attributes.js';
import { add, goValueText, negate } from './numbers.js';
import { compileRegex, find, findAll } from './regex.js';
import { EvalState } from './state.js';
import { ARITHMETIC, COMPARISONS, OPERATOR_NAMES, buildMap, membership } from './operators.js';
import { LINEAR_COST, argumentCost } from './call-cost.js';
import { planBind, planMacro } from './comprehensions.js';
import type { LoopPlanner } from './comprehensions.js';
import { attempt, CONVERSIONS, failing, logicalError, lookup, mayBeQualifiedFunction, mayBeQualifiedName, OPTIONAL_ENTRY_FUNCTION, unboundVariable } from './plan-support.js';
import { generate } from './codegen.js';
import type { DelegatingPlanner } from './codegen.js';
import { currentDefaultGeneration, TieredEvaluation } from './tiering.js';
import type { Generation } from './tiering.js';
import type { Eval, Scope } from './plan-support.js';
import {
  CelOptional,
  CelRuntimeError,
  CelUint,
  MAX_INT64,
  MIN_INT64,
  TYPE_IDENTIFIERS,
  celError,
  celType,
  noSuchOverload,
  noSuchOverloadError,
} from './values.js';

import { isMutationTypeName, rootName } from '../names.js';

export type { Eval } from './plan-support.js';

/**
 * The type values of a mutation's type names: only a mutation's expressions reach here with them, as the checker
 * refuses them elsewhere.
 */
function mutationTypeNamed(name: string): ReturnType<typeof celType> | undefined {
  return isMutationTypeName(name) ? celType(name) : undefined;
}

export { OPTIONAL_ENTRY_FUNCTION } from './plan-support.js';

export interface PlanOptions {
  /** root variables, read from the activation */
  readonly variables: ReadonlySet<string>;
  /** global functions the expression may call besides the runtime table (message construction) */
  readonly extraGlobals?: ReadonlyMap<string, Impl>;
  /**
   * When evaluations run a generated function (codegen.ts): once the expression is hot on its thread (`whenHot`),
   * from the first evaluation (`always`), or never (tests comparing the two); default: setDefaultGeneration's
   */
  readonly generate?: Generation;
  /**
   * The expression's AST again, for the generated function built once it is hot (`whenHot`): the caller parses it
   * anew rather than the plan keeping the AST of every expression that never gets hot. Default: the AST is kept.
   */
  readonly reparse?: () => EngineNode;
}

/**
 * The program cannot be built: cel-go's planner folds a type conversion of a constant (interpreter/decorators.go
 * maybeOptimizeConstUnary, Kubernetes builds programs with cel.OptOptimize) and compiles constant regular
 * expressions (MatchesRegexOptimization, library/regex.go Find/FindAllRegexOptimization), and an error of either
 * fails env.Program. The message is the error's; Kubernetes prefixes `program instantiation failed: `.
 */
export class ProgramInstantiationError extends Error {
  override readonly name = 'ProgramInstantiationError';
}


export interface Plan {
  readonly evaluate: Eval;
  /** number of comprehension / bind variable slots the state needs */
  readonly slotCount: number;
  /** whether evaluations run the generated function (codegen.ts) now, rather than the closures */
  readonly generated: boolean;
}

const constant =
  (v: unknown): Eval =>
  () =>
    v;

/** A declared variable's value; cel-go's error for one the activation lacks (see variable()). */
function bound(v: unknown, name: string): unknown {
  return v === undefined ? unboundVariable(name) : v;
}

class Planner implements LoopPlanner, DelegatingPlanner {
  slotCount = 0;
  /** the evaluations that are constants (cel-go's InterpretableConst), with their values */
  private readonly constants = new Map<Eval, unknown>();

  constructor(private readonly options: PlanOptions) {}

  private constant(v: unknown): Eval {
    const e = constant(v);
    this.constants.set(e, v);
    return e;
  }

  newSlot(): number {
    return this.slotCount++;
  }

  plansConstant(node: EngineNode, scope: Scope | undefined): boolean {
    return this.constants.has(this.plan(node, scope));
  }

  plan(node: EngineNode, scope: Scope | undefined): Eval {
    switch (node.op) {
      case 'value':
        return this.literal(node.args);
      case 'id':
        return this.ident(node.args as string, scope);
      case '.':
      case '.?':
        return this.select(node, scope);
      case '[]':
      case '[?]': {
        const [operand, key] = node.args as [EngineNode, EngineNode];
        const o = this.plan(operand, scope);
        const k = this.plan(key, scope);
        return node.op === '[]' ? (s) => index(o(s), k(s)) : (s) => optionalIndex(o(s), k(s));
      }
      case 'call':
        return this.call(node, scope);
      case 'rcall':
        return this.memberCall(node, scope);
      case 'list':
        return this.list(node.args as EngineNode[], scope);
      case 'map':
        return this.map(node.args as [EngineNode, EngineNode][], scope);
      case '?:': {
        const [c, t, f] = (node.args as EngineNode[]).map((n) => this.plan(n, scope)) as [Eval, Eval, Eval];
        return (s) => {
          const v = c(s);
          if (v === true) return t(s);
          if (v === false) return f(s);
          throw noSuchOverloadError();
        };
      }
      case '&&':
      case '||':
        return this.logical(node, scope);
      case '!_': {
        const o = this.plan(node.args as EngineNode, scope);
        return (s) => {
          const v = o(s);
          if (typeof v !== 'boolean') throw noSuchOverloadError();
          return !v;
        };
      }
      case '-_':
        return this.negation(node, scope);
      default:
        return this.binary(node, scope);
    }
  }

  private literal(v: unknown): Eval {
    if (v instanceof UnsignedInt) return this.constant(new CelUint(v.valueOf()));
    if (typeof v === 'bigint' && (v > MAX_INT64 || v < MIN_INT64)) return failing('integer overflow');
    return this.constant(v);
  }

  private ident(written: string, scope: Scope | undefined): Eval {
    // `.name` resolves as `name`, as the checker resolved it
    const name = rootName(written);
    const slot = lookup(scope, name);
    if (slot !== undefined) return (s) => s.slots[slot];
    if (this.options.variables.has(name)) return this.variable(name);
    const type = TYPE_IDENTIFIERS.get(name) ?? mutationTypeNamed(name);
    if (type !== undefined) return constant(type);
    // checked as type identifiers, unknown to cel-go's interpreter (interpreter/planner.go planIdent: the type
    // provider finds no type of that name)
    if (name === 'timestamp' || name === 'duration') throw new ProgramInstantiationError(`reference to undefined type: ${name}`);
    return failing(`undeclared reference to '${written}' (in container '')`);
  }

  private variable(name: string): Eval {
    // the admission variables read with a named load each (one inline cache per name, not one keyed load shared by
    // every variable of every expression)
    switch (name) {
      case 'object':
        return (s) => bound(s.vars.object, name);
      case 'oldObject':
        return (s) => bound(s.vars.oldObject, name);
      case 'request':
        return (s) => bound(s.vars.request, name);
      case 'variables':
        return (s) => bound(s.vars.variables, name);
      case 'namespaceObject':
        return (s) => bound(s.vars.namespaceObject, name);
      default:
    }
    return (s) => bound(s.vars[name], name);
  }

  /** `a.b.c` as a dotted name, when the select chain is only identifiers. */
  private qualifiedName(node: EngineNode): string | undefined {
    if (node.op === 'id') return node.args as string;
    if (node.op !== '.') return undefined;
    const [operand, field] = node.args as [EngineNode, string];
    const prefix = this.qualifiedName(operand);
    return prefix === undefined ? undefined : `${prefix}.${field}`;
  }

  private select(node: EngineNode, scope: Scope | undefined): Eval {
    const [operand, field] = node.args as [EngineNode, string];
    if (node.op === '.') {
      if (mayBeQualifiedName(node, scope, this.options.variables)) {
        const q = this.qualifiedName(node);
        if (q !== undefined) {
          if (this.options.variables.has(q)) return this.variable(q);
          const type = TYPE_IDENTIFIERS.get(q) ?? mutationTypeNamed(q);
          if (type !== undefined) return constant(type);
        }
      }
    }
    const o = this.plan(operand, scope);
    if (node.op === '.?') return (s) => optionalSelect(o(s), field);
    return (s) => selectField(o(s), field);
  }

  private negation(node: EngineNode, scope: Scope | undefined): Eval {
    const operand = node.args as EngineNode;
    // -9223372036854775808 is a literal: fold the sign into it.
    if (operand.op === 'value' && typeof operand.args === 'bigint') {
      const v = -operand.args;
      if (v < MIN_INT64 || v > MAX_INT64) return failing('integer overflow');
      return this.constant(v);
    }
    if (operand.op === 'value' && typeof operand.args === 'number') return this.constant(-operand.args);
    const o = this.plan(operand, scope);
    return (s) => negate(o(s));
  }

  private logical(node: EngineNode, scope: Scope | undefined): Eval {
    const [left, right] = (node.args as EngineNode[]).map((n) => this.plan(n, scope)) as [Eval, Eval];
    const absorbing = node.op === '||';
    return (s) => {
      const l = attempt(left, s);
      if (l === absorbing) return absorbing;
      const r = attempt(right, s);
      if (r === absorbing) return absorbing;
      if (l === !absorbing && r === !absorbing) return !absorbing;
      return logicalError(l, r);
    };
  }

  private binary(node: EngineNode, scope: Scope | undefined): Eval {
    const [leftNode, rightNode] = node.args as [EngineNode, EngineNode];
    const l = this.plan(leftNode, scope);
    const r = this.plan(rightNode, scope);
    switch (node.op) {
      case '==':
        return (s) => celEquals(l(s), r(s));
      case '!=':
        return (s) => !celEquals(l(s), r(s));
      case 'in':
        return (s) => {
          const needle = l(s);
          const haystack = r(s);
          if (Array.isArray(haystack)) s.tick(1 + Math.ceil(haystack.length * 0.1));
          return membership(needle, haystack);
        };
      default:
    }
    const cmp = COMPARISONS[node.op];
    if (cmp !== undefined) {
      const name = OPERATOR_NAMES[node.op]!;
      return (s) => cmp(compare(l(s), r(s), name));
    }
    const arith = ARITHMETIC[node.op];
    if (arith === undefined) return failing(`unsupported operator ${node.op}`);
    if (node.op === '+') {
      return (s) => {
        const a = l(s);
        const b = r(s);
        if (typeof a === 'string' || Array.isArray(a)) s.tick(Math.ceil((sizeOf(a) + sizeOf(b)) * 0.1));
        return add(a, b);
      };
    }
    return (s) => arith(l(s), r(s));
  }

  private list(elements: readonly EngineNode[], scope: Scope | undefined): Eval {
    if (elements.length === 0) return () => [];
    const optional: boolean[] = [];
    const evals = elements.map((e) => {
      const inner = this.optionalEntry(e);
      optional.push(inner !== undefined);
      return this.plan(inner ?? e, scope);
    });
    const anyOptional = optional.includes(true);
    return (s) => {
      s.tick(elements.length);
      const out: unknown[] = [];
      for (let i = 0; i < evals.length; i++) {
        const v = evals[i]!(s);
        if (anyOptional && optional[i]) {
          if (!(v instanceof CelOptional)) throw celError(`cannot initialize optional list element from non-optional value ${goValueText(v)}`);
          if (v.hasValue()) out.push(v.value());
        } else out.push(v);
      }
      return out;
    };
  }

  /** The operand of an `[?x]` / `{?k: x}` marker call inserted by the rewrite, or undefined. */
  private optionalEntry(node: EngineNode): EngineNode | undefined {
    if (node.op !== 'call') return undefined;
    const [name, args] = node.args as [string, EngineNode[]];
    return name === OPTIONAL_ENTRY_FUNCTION && args.length === 1 ? args[0] : undefined;
  }

  private map(entries: readonly [EngineNode, EngineNode][], scope: Scope | undefined): Eval {
    if (entries.length === 0) return () => ({});
    const planned = entries.map(([k, v]) => {
      const inner = this.optionalEntry(v);
      return { key: this.plan(k, scope), value: this.plan(inner ?? v, scope), optional: inner !== undefined };
    });
    return (s) => {
      s.tick(planned.length);
      const out: [unknown, unknown][] = [];
      for (const e of planned) {
        const k = e.key(s);
        const v = e.value(s);
        if (e.optional) {
          if (!(v instanceof CelOptional)) throw celError(`cannot initialize optional entry '${keyText(k)}' from non-optional value ${goValueText(v)}`);
          if (!v.hasValue()) {
            checkKey(k);
            continue;
          }
          out.push([k, v.value()]);
        } else out.push([k, v]);
      }
      return buildMap(out);
    };
  }

  private call(node: EngineNode, scope: Scope | undefined): Eval {
    const [written, argNodes] = node.args as [string, EngineNode[]];
    // `.fn(…)` resolves as `fn`, as the checker resolved it
    const name = rootName(written);
    if (name === 'has' && argNodes.length === 1) return this.has(argNodes[0]!, scope);
    if (name === OPTIONAL_ENTRY_FUNCTION) return failing('optional entries are only allowed in list and map literals');
    const impl = this.options.extraGlobals?.get(name) ?? GLOBAL.get(name);
    if (impl === undefined) return this.unknownFunction(name, argNodes, scope);
    const args = argNodes.map((a) => this.plan(a, scope));
    if (CONVERSIONS.has(name) && args.length === 1 && this.constants.has(args[0]!)) return this.fold(impl, this.constants.get(args[0]!));
    if (name === 'matches' && args.length === 2) {
      const regex = this.constantRegex(name, args[0]!, args.slice(1));
      if (regex !== undefined) return regex;
    }
    return this.invoke(name, impl, args);
  }

  /** A conversion of a constant, evaluated now (maybeOptimizeConstUnary): its error fails the program. */
  private fold(impl: Impl, arg: unknown): Eval {
    let value: unknown;
    try {
      value = impl([arg], new EvalState({}, 0, undefined));
    } catch (error) {
      if (error instanceof CelRuntimeError) throw new ProgramInstantiationError(error.message);
      throw error;
    }
    return this.constant(value);
  }

  private unknownFunction(name: string, argNodes: readonly EngineNode[], scope: Scope | undefined): Eval {
    const args = argNodes.map((a) => this.plan(a, scope));
    return (s) => {
      for (const a of args) a(s);
      throw celError(`undeclared reference to '${name}' (in container '')`);
    };
  }

  private invoke(name: string, impl: Impl, args: readonly Eval[]): Eval {
    const linear = LINEAR_COST.has(name);
    const n = args.length;
    const cost = (values: unknown[], s: EvalState): void => s.tick(linear ? argumentCost(values) : 1);
    if (n === 0) {
      return (s) => {
        s.tick(1);
        return impl([], s);
      };
    }
    if (n === 1) {
      const [a] = args as [Eval];
      return (s) => {
        const values = [a(s)];
        cost(values, s);
        return impl(values, s);
      };
    }
    if (n === 2) {
      const [a, b] = args as [Eval, Eval];
      return (s) => {
        const values = [a(s), b(s)];
        cost(values, s);
        return impl(values, s);
      };
    }
    return (s) => {
      const values = args.map((a) => a(s));
      cost(values, s);
      return impl(values, s);
    };
  }

  private has(arg: EngineNode, scope: Scope | undefined): Eval {
    if (arg.op !== '.' || typeof (arg.args as unknown[])[1] !== 'string') return failing('invalid argument to has() macro');
    const [operand, field] = arg.args as [EngineNode, string];
    const o = this.plan(operand, scope);
    return (s) => hasField(o(s), field);
  }

  private memberCall(node: EngineNode, scope: Scope | undefined): Eval {
    const [name, target, argNodes] = node.args as [string, EngineNode, EngineNode[]];
    if (mayBeQualifiedFunction(target, scope, this.options.variables)) {
      const qualified = `${target.args}.${name}`;
      if (qualified === 'cel.bind') return planBind(this, argNodes, scope);
      const impl = GLOBAL.get(qualified);
      if (impl !== undefined) return this.invoke(qualified, impl, argNodes.map((a) => this.plan(a, scope)));
      if (!TYPE_IDENTIFIERS.has(target.args)) return this.unknownFunction(qualified, argNodes, scope);
    }
    const macro = planMacro(this, name, target, argNodes, scope);
    if (macro !== undefined) return macro;
    const receiver = this.plan(target, scope);
    // cel-go v0.26.0's decorateOptionalOr (cel/library.go) short-circuits both: a receiver that is not an optional
    // (a list or map reached through `dyn`, say) is returned unchanged, and `or`'s alternative is returned as it
    // evaluates, optional or not. Later cel-go releases make the former an error; policies in the wild rely on it.
    if (name === 'orValue' && argNodes.length === 1) {
      const fallback = this.plan(argNodes[0]!, scope);
      return (s) => {
        const o = receiver(s);
        if (!(o instanceof CelOptional)) return o;
        return o.hasValue() ? o.value() : fallback(s);
      };
    }
    if (name === 'or' && argNodes.length === 1) {
      const other = this.plan(argNodes[0]!, scope);
      return (s) => {
        const o = receiver(s);
        if (!(o instanceof CelOptional) || o.hasValue()) return o;
        return other(s);
      };
    }
    const args = [receiver, ...argNodes.map((a) => this.plan(a, scope))];
    const regex = this.constantRegex(name, receiver, args.slice(1));
    if (regex !== undefined) return regex;
    const impl = MEMBER.get(name);
    if (impl === undefined) {
      return (s) => {
        const values = args.map((a) => a(s));
        throw noSuchOverload(name, ...values);
      };
    }
    return this.invoke(name, impl, args);
  }

  /**
   * `s.matches(re)`, `matches(s, re)`, `s.find(re)`, `s.findAll(re[, n])` with a constant pattern: compiled now, as
   * cel-go's regex optimizations do, whose failure fails the program. Their calls check no types: a receiver or
   * limit of the wrong type is the bare `no such overload`.
   */
  private constantRegex(name: string, receiver: Eval, args: readonly Eval[]): Eval | undefined {
    if (name !== 'matches' && name !== 'find' && name !== 'findAll') return undefined;
    const [patternEval, limit] = args;
    if (patternEval === undefined || args.length > (name === 'findAll' ? 2 : 1)) return undefined;
    const pattern = this.constants.get(patternEval);
    if (typeof pattern !== 'string') return undefined;
    let re: ReturnType<typeof compileRegex>;
    try {
      re = compileRegex(pattern);
    } catch (error) {
      if (error instanceof CelRuntimeError) throw new ProgramInstantiationError(error.message);
      throw error;
    }
    return (s) => {
      const v = receiver(s);
      const n = limit === undefined ? -1n : limit(s);
      if (typeof v !== 'string' || typeof n !== 'bigint') throw noSuchOverloadError();
      s.tick(1 + Math.ceil(v.length * 0.1));
      if (name === 'matches') return re.test(v);
      if (name === 'find') return find(v, re);
      return findAll(v, re, n);
    };
  }
}

/** Plans an expression's AST. */
export function plan(root: EngineNode, options: PlanOptions): Plan {
  const planner = new Planner(options);
  // planned whole first: what fails the program (ProgramInstantiationError) fails it as the closures find it
  const closures = planner.plan(root, undefined);
  const generation = options.generate ?? currentDefaultGeneration();
  if (generation === 'never') return { evaluate: closures, slotCount: planner.slotCount, generated: false };
  if (generation === 'always') {
    const generated = generate(root, planner, options);
    return { evaluate: generated ?? closures, slotCount: planner.slotCount, generated: generated !== undefined };
  }
  const reparse = options.reparse ?? ((): EngineNode => root);
  // the program built once already, so nothing fails it now: no closures planned again, only what the function delegates
  const tiered = new TieredEvaluation(closures, () => generate(reparse(), new Planner(options), options));
  return {
    evaluate: tiered.evaluate,
    slotCount: planner.slotCount,
    get generated() {
      return tiered.generated;
    },
  };
}
