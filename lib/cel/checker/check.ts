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
import { JSON_PATCH_FIELDS, JSON_PATCH_TYPE } from './environment.js';
import type { CheckEnvironment } from './environment.js';
import { rootName } from '../names.js';

// apiserver pkg/cel/mutation/jsonpatch.go JSONPatchType.Field: any other field name is found, with a nil type, which
// the checker prints as '' and only dyn is assignable to (`expected type of field 'ptah' is '' but provided type…`)
const NO_FIELD_TYPE: Type = Object.freeze({ kind: 'opaque', name: '', params: [] });
import { validateFormatCalls } from './format.js';
import type { FormatCall } from './format.js';
import { validateLiterals } from './literals.js';
import type { AggregateLiteral, LiteralEntry } from './literals.js';
import { checkMacro } from './macros.js';
import type { MacroHost } from './macros.js';
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
  typeOf,
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

/** The first segments of the dotted names in a table (`net` of `net.IP`, `optional` of `optional.of`). */
const dottedRoots = new WeakMap<ReadonlyMap<string, unknown>, ReadonlySet<string>>();

function rootsOf(names: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  let roots = dottedRoots.get(names);
  if (roots === undefined) {
    roots = new Set([...names.keys()].filter((n) => n.includes('.')).map((n) => n.slice(0, n.indexOf('.'))));
    dottedRoots.set(names, roots);
  }
  return roots;
}

/** The identifier a chain of selections starts from (`a` of `a.b.c`), if it is one. */
function rootIdent(node: EngineNode): string | undefined {
  let n = node;
  while (n.op === '.') n = (n.args as [EngineNode, string])[0];
  return n.op === 'id' ? (n.args as string) : undefined;
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


/** Functions whose literal arguments are exempt from the homogeneous-literal validator (ext.Strings' format). */
const HOMOGENEITY_EXEMPT = new Set(['format']);

class Checker implements MacroHost {
  readonly issues: Issue[] = [];
  private mappings = new Mapping();
  private readonly literals: AggregateLiteral[] = [];
  private readonly formatCalls: FormatCall[] = [];
  /** the types of the nodes under a format() call, for the format validator */
  private readonly nodeTypes = new Map<EngineNode, Type>();
  private exemptDepth = 0;
  private freeVars = 0;
  private scope: Scope | undefined;

  constructor(
    private readonly source: string,
    private readonly env: CheckEnvironment,
  ) {}

  report(offset: number, message: string): Type {
    this.issues.push({ offset, message });
    return ERROR;
  }

  anchor(node: EngineNode): number {
    return anchorOf(this.source, node);
  }

  newTypeVar(): Type {
    return typeParam(`_var${this.freeVars++}`);
  }

  assignable(t1: Type, t2: Type): boolean {
    const m = isAssignable(this.mappings, t1, t2);
    if (m === undefined) return false;
    this.mappings = m;
    return true;
  }

  private lookupIdent(written: string): Type | undefined {
    // `.name` resolves as `name`, comprehension variables included (cel-go checker: the candidate names of a
    // leading-dot name in the empty container are just `name`)
    const name = rootName(written);
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const t = s.vars.get(name);
      if (t !== undefined) return t;
    }
    return this.env.identifiers.get(name) ?? this.typeNamed(name);
  }

  /** A name the type provider resolves (a mutation's `Object…` and `JSONPatch`): the identifier of that type. */
  private typeNamed(name: string): Type | undefined {
    return this.env.structFields(name) === undefined ? undefined : typeOf(structType(name));
  }

  withScope<T>(vars: Record<string, Type>, run: () => T): T {
    const saved = this.scope;
    this.scope = { vars: new Map(Object.entries(vars)), parent: saved };
    try {
      return run();
    } finally {
      this.scope = saved;
    }
  }

  check(node: EngineNode): Type {
    const type = this.checkNode(node);
    // only the format validator reads them, for what a format() call holds
    if (this.exemptDepth > 0) this.nodeTypes.set(node, type);
    return type;
  }

  private checkNode(node: EngineNode): Type {
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
    const root = node.op === '.' ? rootIdent(node) : undefined;
    if (root !== undefined && rootsOf(this.env.identifiers).has(root) && this.lookupScoped(root) === undefined) {
      const qualified = qualifiedName(node);
      if (qualified !== undefined) {
        const t = this.env.identifiers.get(qualified);
        if (t !== undefined) return t;
      }
    }
    // `Object.spec.x` as a value: the type the mutation's type resolver gives that name (cel-go checker
    // LookupIdent: a struct type found by the provider is an identifier of type type(T))
    if (root !== undefined && this.lookupScoped(root) === undefined) {
      const qualified = qualifiedName(node);
      const t = qualified === undefined ? undefined : this.typeNamed(qualified);
      if (t !== undefined) return t;
    }
    return this.selectField(node, operand, field, node.op === '.?');
  }

  /** checker.go checkSelectField */
  private selectField(node: EngineNode, operand: EngineNode, field: string, optional: boolean, at?: number): Type {
    const operandType = substitute(this.mappings, this.check(operand), false);
    const isOpt = isOptional(operandType);
    const target = isOpt ? operandType.params[0]! : operandType;
    let result: Type;
    switch (target.kind) {
      case 'map':
        result = target.params[1]!;
        break;
      case 'struct':
        result = this.fieldType(at ?? this.anchor(node), target.name, field) ?? ERROR;
        break;
      case 'param':
        this.assignable(DYN, target);
        result = DYN;
        break;
      default:
        if (!isDynOrError(target)) this.report(at ?? this.anchor(node), `type '${formatType(target)}' does not support field selection`);
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
    if (name === 'has' && args.length === 1) return this.checkHas(node, args[0]!);
    if (name === CONSTRUCT_FUNCTION) return this.checkConstruction(args);
    if (name === OPTIONAL_ENTRY_FUNCTION) return this.report(this.anchor(node), undeclared(name));
    const types = args.map((a) => this.check(a));
    // `.fn(…)` resolves as `fn` (a macro name too, as a function: `.has` is undeclared)
    const fn = this.env.functions.get(rootName(name));
    if (fn === undefined) return this.report(this.anchor(node), undeclared(name));
    return this.resolveDecl(fn, types, false, this.anchor(node));
  }

  private checkHas(call: EngineNode, arg: EngineNode): Type {
    // parser/macro.go makeHas: only a field selection
    if (arg.op !== '.') return this.report(this.anchor(arg), 'invalid argument to has() macro');
    const [operand, field] = arg.args as [EngineNode, string];
    // the expansion (a test-only select) takes the macro call's position, so its errors point at `has(`'s paren
    this.selectField(arg, operand, field, false, this.anchor(call));
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
    const macro = checkMacro(this, node, name, target, args);
    if (macro !== undefined) return macro;
    const root = rootIdent(target);
    const prefix = root !== undefined && rootsOf(this.env.functions).has(root) ? qualifiedName(target) : undefined;
    if (prefix !== undefined) {
      const fn = this.env.functions.get(`${prefix}.${name}`);
      if (fn !== undefined && (target.op !== 'id' || this.lookupScoped(prefix) === undefined)) {
        const types = args.map((a) => this.check(a));
        return this.resolveDecl(fn, types, false, this.anchor(node));
      }
    }
    const targetType = this.check(target);
    const types = args.map((a) => this.check(a));
    const [list] = args;
    if (name === 'format' && target.op === 'value' && typeof target.args === 'string' && args.length === 1 && list?.op === 'list') {
      this.formatCalls.push({ call: node, template: target.args, elements: list.args as EngineNode[] });
    }
    const fn = this.env.functions.get(name);
    if (fn === undefined) return this.report(this.anchor(node), undeclared(name));
    return this.resolveDecl(fn, [targetType, ...types], true, this.anchor(node));
  }

  lookupScoped(name: string): Type | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const t = s.vars.get(name);
      if (t !== undefined) return t;
    }
    return undefined;
  }

  /** Resolves a call by name with the given argument types (the receiver first for a member call). */
  resolve(name: string, types: readonly Type[], member: boolean, node: EngineNode | number): Type {
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
    for (const element of node.args as EngineNode[]) elements = this.joinTypes(elements, this.checkEntry(element, literal.values));
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
      values = this.joinTypes(values, this.checkEntry(value, literal.values));
    }
    if (this.exemptDepth === 0) this.literals.push(literal);
    if (keys === undefined) return mapOf(this.newTypeVar(), this.newTypeVar());
    return mapOf(keys, values ?? DYN);
  }

  /** A list element or map value, an optional entry (`[?x]`, `{?k: x}`) unwrapped; recorded in `into`. */
  private checkEntry(node: EngineNode, into: LiteralEntry[]): Type {
    const entry = optionalEntry(node);
    let t = this.check(entry ?? node);
    if (entry !== undefined) t = this.unwrapOptionalEntry(entry, t);
    into.push({ node: entry ?? node, type: t });
    return t;
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
      const fieldType = typeName === JSON_PATCH_TYPE && !JSON_PATCH_FIELDS.has(field) ? NO_FIELD_TYPE : (this.fieldType(colon, typeName, field) ?? ERROR);
      if (optionalFields.has(field)) {
        if (isOptional(valueType)) valueType = valueType.params[0]!;
        else if (!isDyn(valueType)) this.report(this.anchor(value), `expected type '${formatType(optionalOf(valueType))}' but found '${formatType(valueType)}'`);
      }
      const assignable = fieldType === NO_FIELD_TYPE ? isDyn(valueType) || valueType === ERROR : this.assignable(fieldType, valueType);
      if (!assignable) {
        this.report(colon, `expected type of field '${field}' is '${formatType(fieldType)}' but provided type is '${formatType(valueType)}'`);
      }
    }
    return type;
  }

  /** cel-go's AST validators over what was checked: homogeneous literals and literal format calls, as enabled. */
  validate(): Issue[] {
    const final = (t: Type): Type => substitute(this.mappings, t, true);
    const anchor = (n: EngineNode): number => this.anchor(n);
    const issues = this.env.homogeneousLiterals ? validateLiterals(this.literals, final, anchor) : [];
    if (this.env.formatValidation) issues.push(...validateFormatCalls(this.formatCalls, { typeOf: (n) => final(this.nodeTypes.get(n) ?? DYN), anchor }));
    return issues;
  }

  substitute(t: Type, paramToDyn: boolean): Type {
    return substitute(this.mappings, t, paramToDyn);
  }

  finish(root: EngineNode): Type {
    const t = this.check(root);
    return substitute(this.mappings, t, true);
  }
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
  return { issues: checker.validate(), fromValidators: true, outputType };
}

