// The type checker: cel-go v0.26.0 checker/checker.go run over the engine's AST. It infers each node's type as
// cel-go does (overload resolution with type-parameter substitution, dyn only where cel-go has dyn, null only
// where cel-go's legacy nullability allows it, homogeneous aggregate literals), expands the macros' typing as
// cel-go's macro expansions would type them, and reports every error with cel-go's text, anchored as cel-go
// anchors it.

import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import type { EngineNode } from '../engine.js';
import type { Issue } from '../issues.js';
import { CONSTRUCT_FUNCTION } from '../objects.js';
import { OPTIONAL_ENTRY_FUNCTION } from '../runtime/planner.js';
import { anchorOf, findToken } from '../tokens.js';
import type { CheckEnvironment } from './environment.js';
import type { FunctionDecl } from './signatures.js';
import {
  BOOL,
  BYTES,
  DOUBLE,
  DYN,
  ERROR,
  formatType,
  INT,
  isAssignable,
  isAssignableList,
  isDyn,
  isDynOrError,
  isOptional,
  listOf,
  mapOf,
  Mapping,
  mostGeneral,
  NULL,
  optionalOf,
  STRING,
  structType,
  substitute,
  typeParam,
  UINT,
  isExactType,
} from './types.js';
import type { Type } from './types.js';

const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
  '!_': '!_',
  '-_': '-_',
  '?:': '_?_:_',
  '[]': '_[_]',
  '[?]': '_[?_]',
};

const undeclared = (name: string): string => `undeclared reference to '${name}' (in container '')`;

interface Scope {
  readonly vars: ReadonlyMap<string, Type>;
  readonly parent: Scope | undefined;
}

export interface CheckResult {
  /** type errors; when there are none, the homogeneous-literal validator's findings */
  readonly issues: readonly Issue[];
  /** whether `issues` are the validator's (the type check itself passed) */
  readonly fromValidators: boolean;
  /** the expression's type, type parameters left unbound replaced by dyn */
  readonly outputType: Type;
}

/** `a.b.c` as a qualified name, if the node is a chain of selections on an identifier. */
function qualifiedName(node: EngineNode): string | undefined {
  if (node.op === 'id') return node.args as string;
  if (node.op === '.') {
    const [operand, field] = node.args as [EngineNode, string];
    const prefix = qualifiedName(operand);
    return prefix === undefined ? undefined : `${prefix}.${field}`;
  }
  return undefined;
}

function literalType(value: unknown): Type {
  switch (typeof value) {
    case 'bigint':
      return INT;
    case 'number':
      return DOUBLE;
    case 'string':
      return STRING;
    case 'boolean':
      return BOOL;
    default:
      if (value === null) return NULL;
      if (value instanceof Uint8Array) return BYTES;
      if (value instanceof UnsignedInt) return UINT;
      return DYN;
  }
}

const ONE_VARIABLE_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'optMap', 'optFlatMap', 'sortBy']);
const TWO_VARIABLE_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

/** A list or map literal's entries, for the homogeneous-literal validator run after checking. */
interface AggregateLiteral {
  readonly keys: Array<{ readonly node: EngineNode; readonly type: Type }>;
  readonly values: Array<{ readonly node: EngineNode; readonly type: Type }>;
  readonly isMap: boolean;
}

/** Functions whose literal arguments are exempt from the homogeneous-literal validator (ext.Strings' format). */
const HOMOGENEITY_EXEMPT = new Set(['format']);

class Checker {
  readonly issues: Issue[] = [];
  private mappings = new Mapping();
  private readonly literals: AggregateLiteral[] = [];
  private exemptDepth = 0;
  private freeVars = 0;
  private scope: Scope | undefined;

  constructor(
    private readonly source: string,
    private readonly env: CheckEnvironment,
  ) {}

  private report(offset: number, message: string): Type {
    this.issues.push({ offset, message });
    return ERROR;
  }

  private anchor(node: EngineNode): number {
    return anchorOf(this.source, node);
  }

  private newTypeVar(): Type {
    return typeParam(`_var${this.freeVars++}`);
  }

  private assignable(t1: Type, t2: Type): boolean {
    const m = isAssignable(this.mappings, t1, t2);
    if (m === undefined) return false;
    this.mappings = m;
    return true;
  }

  private lookupIdent(name: string): Type | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const t = s.vars.get(name);
      if (t !== undefined) return t;
    }
    return this.env.identifiers.get(name);
  }

  private withScope<T>(vars: Record<string, Type>, run: () => T): T {
    const saved = this.scope;
    this.scope = { vars: new Map(Object.entries(vars)), parent: saved };
    try {
      return run();
    } finally {
      this.scope = saved;
    }
  }

  check(node: EngineNode): Type {
    switch (node.op) {
      case 'value':
        return literalType(node.args);
      case 'id': {
        const name = node.args as string;
        return this.lookupIdent(name) ?? this.report(node.pos, undeclared(name));
      }
      case '.':
      case '.?':
        return this.checkSelect(node);
      case 'call':
        return this.checkGlobalCall(node);
      case 'rcall':
        return this.checkMemberCall(node);
      case 'list':
        return this.checkList(node);
      case 'map':
        return this.checkMap(node);
      case '&&':
      case '||':
        return this.checkLogical(node);
      default: {
        const fn = OPERATOR_FUNCTIONS[node.op];
        if (fn === undefined) return this.report(node.pos, `unexpected expression '${node.op}'`);
        const operands = Array.isArray(node.args) ? (node.args as EngineNode[]) : [node.args as EngineNode];
        const types = operands.map((o) => this.check(o));
        return this.resolve(fn, types, false, node);
      }
    }
  }

  private checkLogical(node: EngineNode): Type {
    const operands = node.args as EngineNode[];
    let failed = false;
    for (const operand of operands) {
      const t = this.check(operand);
      if (!this.assignable(t, BOOL)) {
        this.report(this.anchor(operand), `expected type 'bool' but found '${formatType(substitute(this.mappings, t, true))}'`);
        failed = true;
      }
    }
    return failed ? ERROR : BOOL;
  }

  private checkSelect(node: EngineNode): Type {
    const [operand, field] = node.args as [EngineNode, string];
    if (node.op === '.') {
      const qualified = qualifiedName(node);
      if (qualified !== undefined && this.lookupScoped(qualified.slice(0, qualified.indexOf('.'))) === undefined) {
        const t = this.env.identifiers.get(qualified);
        if (t !== undefined) return t;
      }
    }
    return this.selectField(node, operand, field, node.op === '.?');
  }

  /** checker.go checkSelectField */
  private selectField(node: EngineNode, operand: EngineNode, field: string, optional: boolean): Type {
    const operandType = substitute(this.mappings, this.check(operand), false);
    const isOpt = isOptional(operandType);
    const target = isOpt ? operandType.params[0]! : operandType;
    let result: Type;
    switch (target.kind) {
      case 'map':
        result = target.params[1]!;
        break;
      case 'struct':
        result = this.fieldType(this.anchor(node), target.name, field) ?? ERROR;
        break;
      case 'param':
        this.assignable(DYN, target);
        result = DYN;
        break;
      default:
        if (!isDynOrError(target)) this.report(this.anchor(node), `type '${formatType(target)}' does not support field selection`);
        result = DYN;
    }
    return substitute(this.mappings, isOpt || optional ? optionalOf(result) : result, false);
  }

  /** checker.go lookupFieldType */
  private fieldType(offset: number, structName: string, field: string): Type | undefined {
    const fields = this.env.structFields(structName);
    if (fields === undefined) {
      this.report(offset, `unexpected failed resolution of '${structName}'`);
      return undefined;
    }
    if (fields === 'dynamic') return DYN;
    const t = fields.get(field);
    if (t === undefined) this.report(offset, `undefined field '${field}'`);
    return t;
  }

  private checkGlobalCall(node: EngineNode): Type {
    const [name, args] = node.args as [string, EngineNode[]];
    if (name === 'has' && args.length === 1) return this.checkHas(args[0]!);
    if (name === CONSTRUCT_FUNCTION) return this.checkConstruction(args);
    if (name === OPTIONAL_ENTRY_FUNCTION) return this.report(this.anchor(node), undeclared(name));
    const types = args.map((a) => this.check(a));
    const fn = this.env.functions.get(name);
    if (fn === undefined) return this.report(this.anchor(node), undeclared(name));
    return this.resolveDecl(fn, types, false, this.anchor(node));
  }

  private checkHas(arg: EngineNode): Type {
    // parser/macro.go makeHas: only a field selection
    if (arg.op !== '.') return this.report(this.anchor(arg), 'invalid argument to has() macro');
    const [operand, field] = arg.args as [EngineNode, string];
    this.selectField(arg, operand, field, false);
    return BOOL;
  }

  private checkMemberCall(node: EngineNode): Type {
    const name = (node.args as [string])[0];
    if (!HOMOGENEITY_EXEMPT.has(name)) return this.checkMemberCallBody(node);
    this.exemptDepth++;
    try {
      return this.checkMemberCallBody(node);
    } finally {
      this.exemptDepth--;
    }
  }

  private checkMemberCallBody(node: EngineNode): Type {
    const [name, target, args] = node.args as [string, EngineNode, EngineNode[]];
    const macro = this.checkMacro(node, name, target, args);
    if (macro !== undefined) return macro;
    const prefix = qualifiedName(target);
    if (prefix !== undefined) {
      const fn = this.env.functions.get(`${prefix}.${name}`);
      if (fn !== undefined && (target.op !== 'id' || this.lookupScoped(prefix) === undefined)) {
        const types = args.map((a) => this.check(a));
        return this.resolveDecl(fn, types, false, this.anchor(node));
      }
    }
    const targetType = this.check(target);
    const types = args.map((a) => this.check(a));
    const fn = this.env.functions.get(name);
    if (fn === undefined) return this.report(this.anchor(node), undeclared(name));
    return this.resolveDecl(fn, [targetType, ...types], true, this.anchor(node));
  }

  private lookupScoped(name: string): Type | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const t = s.vars.get(name);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** Resolves a call by name with the given argument types (the receiver first for a member call). */
  private resolve(name: string, types: readonly Type[], member: boolean, node: EngineNode | number): Type {
    const offset = typeof node === 'number' ? node : this.anchor(node);
    const fn = this.env.functions.get(name);
    if (fn === undefined) return this.report(offset, undeclared(name));
    return this.resolveDecl(fn, types, member, offset);
  }

  /** checker.go resolveOverload */
  private resolveDecl(fn: FunctionDecl, argTypes: readonly Type[], member: boolean, offset: number): Type {
    let result: Type | undefined;
    for (const overload of fn.overloads) {
      if (overload.member !== member || overload.args.length !== argTypes.length) continue;
      let params = overload.args;
      let overloadResult = overload.result;
      if (overload.typeParams.length > 0) {
        const fresh = new Mapping();
        for (const p of overload.typeParams) fresh.add(typeParam(p), this.newTypeVar());
        params = params.map((t) => substitute(fresh, t, false));
        overloadResult = substitute(fresh, overloadResult, false);
      }
      const m = isAssignableList(this.mappings, argTypes, params);
      if (m === undefined) continue;
      this.mappings = m;
      const fnResult = substitute(this.mappings, overloadResult, false);
      if (result === undefined) result = fnResult;
      else if (!isDyn(result) && !isExactType(fnResult, result)) result = DYN;
    }
    if (result !== undefined) return result;
    const shown = argTypes.map((t) => formatType(substitute(this.mappings, t, true)));
    const signature = member ? `${shown[0]}.(${shown.slice(1).join(', ')})` : `(${shown.join(', ')})`;
    return this.report(offset, `found no matching overload for '${fn.name}' applied to '${signature}'`);
  }

  private checkList(node: EngineNode): Type {
    const literal: AggregateLiteral = { keys: [], values: [], isMap: false };
    let elements: Type | undefined;
    for (const element of node.args as EngineNode[]) {
      const entry = optionalEntry(element);
      let t = this.check(entry ?? element);
      if (entry !== undefined) t = this.unwrapOptionalEntry(entry, t);
      literal.values.push({ node: entry ?? element, type: t });
      elements = this.joinTypes(elements, t);
    }
    if (this.exemptDepth === 0) this.literals.push(literal);
    return listOf(elements ?? this.newTypeVar());
  }

  private checkMap(node: EngineNode): Type {
    const literal: AggregateLiteral = { keys: [], values: [], isMap: true };
    let keys: Type | undefined;
    let values: Type | undefined;
    for (const [key, value] of node.args as [EngineNode, EngineNode][]) {
      const k = this.check(key);
      literal.keys.push({ node: key, type: k });
      keys = this.joinTypes(keys, k);
      const entry = optionalEntry(value);
      let t = this.check(entry ?? value);
      if (entry !== undefined) t = this.unwrapOptionalEntry(entry, t);
      literal.values.push({ node: entry ?? value, type: t });
      values = this.joinTypes(values, t);
    }
    if (this.exemptDepth === 0) this.literals.push(literal);
    if (keys === undefined) return mapOf(this.newTypeVar(), this.newTypeVar());
    return mapOf(keys, values ?? DYN);
  }

  /** `[?x]`, `{?k: x}`, `T{?f: x}`: x must be optional (or dyn); the element is its value. */
  private unwrapOptionalEntry(node: EngineNode, t: Type): Type {
    if (isOptional(t)) return t.params[0]!;
    if (!isDyn(t) && t.kind !== 'error') this.report(this.anchor(node), `expected type '${formatType(optionalOf(t))}' but found '${formatType(t)}'`);
    return t;
  }

  /**
   * checker.go joinTypes. cel.HomogeneousAggregateLiterals() is only an AST validator in cel-go v0.26 (options.go),
   * so the checker joins unlike elements to dyn; homogeneity is checked after checking (validateLiterals).
   */
  private joinTypes(previous: Type | undefined, current: Type): Type {
    if (previous === undefined) return current;
    if (this.assignable(previous, current)) return mostGeneral(previous, current);
    return DYN;
  }

  /**
   * cel/validator.go homogeneousAggregateLiteralValidator: every element of a list literal (and every key, and
   * every value, of a map literal) must be of an equivalent type to the first one, dyn included, the final types
   * compared; in a list only the first mismatch is reported. Literals inside a format() call are exempt.
   */
  validateLiterals(): Issue[] {
    const issues: Issue[] = [];
    const final = (t: Type): Type => substitute(this.mappings, t, true);
    const compare = (entries: AggregateLiteral['values'], firstOnly: boolean): void => {
      const first = entries[0];
      if (first === undefined) return;
      const expected = final(first.type);
      for (const { node, type } of entries.slice(1)) {
        const actual = final(type);
        if (isEquivalentType(expected, actual)) continue;
        issues.push({ offset: this.anchor(node), message: `expected type '${formatType(expected)}' but found '${formatType(actual)}'` });
        if (firstOnly) return;
      }
    };
    for (const literal of this.literals) {
      if (literal.isMap) {
        compare(literal.keys, false);
        compare(literal.values, false);
      } else {
        compare(literal.values, true);
      }
    }
    return issues;
  }

  /** checker.go checkCreateStruct, for the rewritten `Type{field: value}` */
  private checkConstruction(args: EngineNode[]): Type {
    const [typeNode, fieldsNode, optionalNode] = args as [EngineNode, EngineNode, EngineNode];
    const typeName = String(typeNode.args);
    // an undeclared type is reported by the caller (construction.ts); cel-go then checks none of its fields
    if (this.env.structFields(typeName) === undefined) return ERROR;
    const optionalFields = new Set((optionalNode.args as EngineNode[]).map((n) => String(n.args)));
    const type = structType(typeName);
    for (const [key, value] of fieldsNode.args as [EngineNode, EngineNode][]) {
      const field = String(key.args);
      let valueType = this.check(value);
      const colon = findToken(this.source, key.range.end, value.range.start, ':', key.pos);
      const fieldType = this.fieldType(colon, typeName, field) ?? ERROR;
      if (optionalFields.has(field)) {
        if (isOptional(valueType)) valueType = valueType.params[0]!;
        else if (!isDyn(valueType)) this.report(this.anchor(value), `expected type '${formatType(optionalOf(valueType))}' but found '${formatType(valueType)}'`);
      }
      if (!this.assignable(fieldType, valueType)) {
        this.report(colon, `expected type of field '${field}' is '${formatType(fieldType)}' but provided type is '${formatType(valueType)}'`);
      }
    }
    return type;
  }

  /** The element types a comprehension over `range` binds (checker.go checkComprehension). */
  private rangeTypes(range: EngineNode, twoVariables: boolean): [first: Type, second: Type, range: Type] {
    const rangeType = substitute(this.mappings, this.check(range), false);
    switch (rangeType.kind) {
      case 'list':
        return twoVariables ? [INT, rangeType.params[0]!, rangeType] : [rangeType.params[0]!, DYN, rangeType];
      case 'map':
        return [rangeType.params[0]!, rangeType.params[1]!, rangeType];
      case 'dyn':
      case 'error':
      case 'param':
        this.assignable(DYN, rangeType);
        return [DYN, DYN, rangeType];
      default:
        this.report(this.anchor(range), `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        return [ERROR, ERROR, rangeType];
    }
  }

  /** all / exists (`accu && p`, `accu || p`) and exists_one (`p ? accu + 1 : accu`), with one or two variables. */
  private quantifier(name: string, node: EngineNode, vars: Record<string, Type>, at: number): Type {
    if (name === 'all' || name === 'exists') this.predicate(node, vars);
    else this.resolve('_?_:_', [this.withScope(vars, () => this.check(node)), INT, INT], false, at);
    return BOOL;
  }

  private identArgument(node: EngineNode | undefined): string | undefined {
    if (node?.op === 'id') return node.args as string;
    if (node !== undefined) this.report(this.anchor(node), 'argument must be a simple name');
    return undefined;
  }

  /** A predicate used as `accu && p` / `accu || p` by the macro expansions. */
  private predicate(node: EngineNode, vars: Record<string, Type>): void {
    const t = this.withScope(vars, () => this.check(node));
    if (!this.assignable(t, BOOL)) this.report(this.anchor(node), `expected type 'bool' but found '${formatType(substitute(this.mappings, t, true))}'`);
  }

  /** The macros' typing, as their cel-go expansions type (parser/macro.go, ext/comprehensions.go, ext/lists.go). */
  private checkMacro(node: EngineNode, name: string, target: EngineNode, args: EngineNode[]): Type | undefined {
    const at = this.anchor(node);
    if (name === 'bind' && target.op === 'id' && target.args === 'cel' && args.length === 3 && this.lookupScoped('cel') === undefined) {
      const variable = this.identArgument(args[0]);
      const init = this.check(args[1]!);
      return this.withScope(variable === undefined ? {} : { [variable]: init }, () => this.check(args[2]!));
    }
    const two = args.length >= 3 && TWO_VARIABLE_MACROS.has(name) && args[0]?.op === 'id' && args[1]?.op === 'id';
    if (two && (args.length === 3 || (args.length === 4 && name.startsWith('transform')))) return this.checkTwoVariableMacro(name, target, args, at);
    if (!ONE_VARIABLE_MACROS.has(name) || (args.length !== 2 && !(name === 'map' && args.length === 3))) return undefined;
    if (name === 'optMap' || name === 'optFlatMap') return this.checkOptionalMacro(name, target, args, at);
    const variable = this.identArgument(args[0]);
    if (variable === undefined) return ERROR;
    const [element, , rangeType] = this.rangeTypes(target, false);
    const vars = { [variable]: element };
    switch (name) {
      case 'all':
      case 'exists':
      case 'exists_one':
      case 'existsOne':
        return this.quantifier(name, args[1]!, vars, at);
      case 'filter': {
        const p = this.withScope(vars, () => this.check(args[1]!));
        const accu = listOf(this.newTypeVar());
        const step = this.resolve('_+_', [accu, listOf(element)], false, at);
        this.resolve('_?_:_', [p, step, accu], false, at);
        return substitute(this.mappings, accu, false);
      }
      case 'map': {
        const accu = listOf(this.newTypeVar());
        const p = args.length === 3 ? this.withScope(vars, () => this.check(args[1]!)) : undefined;
        const t = this.withScope(vars, () => this.check(args[args.length - 1]!));
        const step = this.resolve('_+_', [accu, listOf(t)], false, at);
        if (p !== undefined) this.resolve('_?_:_', [p, step, accu], false, at);
        return substitute(this.mappings, accu, false);
      }
      case 'sortBy': {
        const key = this.withScope(vars, () => this.check(args[1]!));
        return this.resolve('@sortByAssociatedKeys', [rangeType, listOf(key)], true, at);
      }
      default:
        return undefined;
    }
  }

  private checkTwoVariableMacro(name: string, target: EngineNode, args: EngineNode[], at: number): Type {
    const first = args[0]!.args as string;
    const second = args[1]!.args as string;
    const [kt, vt] = this.rangeTypes(target, true);
    const vars = { [first]: kt, [second]: vt };
    switch (name) {
      case 'all':
      case 'exists':
      case 'exists_one':
      case 'existsOne':
        return this.quantifier(name, args[2]!, vars, at);
      default: {
        const filter = args.length === 4 ? this.withScope(vars, () => this.check(args[2]!)) : undefined;
        const t = this.withScope(vars, () => this.check(args[args.length - 1]!));
        let accu: Type;
        let step: Type;
        if (name === 'transformList') {
          accu = listOf(this.newTypeVar());
          step = this.resolve('_+_', [accu, listOf(t)], false, at);
        } else {
          accu = mapOf(this.newTypeVar(), this.newTypeVar());
          step = this.resolve('cel.@mapInsert', name === 'transformMap' ? [accu, kt, t] : [accu, t], false, at);
        }
        if (filter !== undefined) this.resolve('_?_:_', [filter, step, accu], false, at);
        return substitute(this.mappings, accu, false);
      }
    }
  }

  /** optMap / optFlatMap (cel/library.go): `r.hasValue() ? optional.of(body) : optional.none()` and its flat form. */
  private checkOptionalMacro(name: string, target: EngineNode, args: EngineNode[], at: number): Type {
    const variable = this.identArgument(args[0]);
    const receiver = this.check(target);
    const hasValue = this.resolve('hasValue', [receiver], true, at);
    const value = this.resolve('value', [receiver], true, at);
    const body = this.withScope(variable === undefined ? {} : { [variable]: value }, () => this.check(args[1]!));
    const none = this.resolve('optional.none', [], false, at);
    const some = name === 'optMap' ? this.resolve('optional.of', [body], false, at) : body;
    return this.resolve('_?_:_', [hasValue, some, none], false, at);
  }

  finish(root: EngineNode): Type {
    const t = this.check(root);
    return substitute(this.mappings, t, true);
  }
}

/** cel-go `Type.IsEquivalentType`: the same type, type parameters' names aside. */
function isEquivalentType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length) return false;
  if (a.kind !== 'param' && a.name !== b.name) return false;
  return a.params.every((p, i) => isEquivalentType(p, b.params[i]!));
}

/** The value of a `?`-marked list or map entry (rewrite.ts wraps it in a call), or undefined. */
function optionalEntry(node: EngineNode): EngineNode | undefined {
  if (node.op !== 'call') return undefined;
  const [name, args] = node.args as [string, EngineNode[]];
  return name === OPTIONAL_ENTRY_FUNCTION && args.length === 1 ? args[0] : undefined;
}

/** Type-checks an expression's AST (in the rewritten text `source`) against `env`. */
export function checkExpression(root: EngineNode, source: string, env: CheckEnvironment): CheckResult {
  const checker = new Checker(source, env);
  const outputType = checker.finish(root);
  if (checker.issues.length > 0) return { issues: checker.issues, fromValidators: false, outputType };
  return { issues: env.homogeneousLiterals ? checker.validateLiterals() : [], fromValidators: true, outputType };
}

