// The errors cel-go's parser reports while it turns the parse tree into an AST (cel-go v0.26.0 parser/parser.go
// Visit…, parser/macro.go and the macros Kubernetes' environment adds: cel/library.go optMap/optFlatMap,
// ext/comprehensions.go, ext/lists.go sortBy). They are parse errors: reported with the syntax errors (after them,
// sorted by position) and, like them, they end compilation before the type check. Only what decides an error is
// modelled: each expression's kind and the position its id carries.
import type { Issue } from '../issues.js';
import { NO_LOCATION } from '../issues.js';

type Kind = 'unspecified' | 'literal' | 'ident' | 'select' | 'call' | 'list' | 'map' | 'struct' | 'comprehension';

interface Expr {
  readonly kind: Kind;
  /** the UTF-16 offset of the expression's id; NO_LOCATION when unknown */
  readonly offset: number;
  readonly name?: string;
}

export interface Token {
  readonly text: string | null;
  readonly line: number;
  readonly column: number;
}

/** A parse-tree node of the generated parser, as far as this visitor reads it. */
export interface TreeNode {
  readonly constructor: { readonly name: string };
  readonly start?: Token;
  readonly [label: string]: unknown;
}

// cel-go parser.go reservedIds
const RESERVED = new Set([
  'as', 'break', 'const', 'continue', 'else', 'false', 'for', 'function', 'if', 'import', 'in', 'let', 'loop', 'package',
  'namespace', 'null', 'return', 'true', 'var', 'void', 'while',
]);
// parser/macro.go AccumulatorName and HiddenAccumulatorName
const ACCUMULATORS = new Set(['__result__', '@result']);
const OPERATORS = new Set(['==', '!=', 'in', '<', '<=', '>=', '>', '+', '-', '*', '/', '%']);

type MacroCheck = (target: Expr | undefined, args: readonly Expr[]) => Issue | undefined;

const issueAt = (e: Expr, message: string): Issue => ({ offset: e.offset, message });

function iterationVariable(arg: Expr, notIdent: string): Issue | undefined {
  if (arg.kind !== 'ident') return issueAt(arg, notIdent);
  if (ACCUMULATORS.has(arg.name ?? '')) return issueAt(arg, 'iteration variable overwrites accumulator variable');
  return undefined;
}

// ext/comprehensions.go extractIterVars
function twoIterationVariables(args: readonly Expr[]): Issue | undefined {
  const [first, second] = args as [Expr, Expr];
  if (first.kind !== 'ident') return issueAt(first, 'argument must be a simple name');
  if (second.kind !== 'ident') return issueAt(second, 'argument must be a simple name');
  if (first.name === second.name) return issueAt(second, `duplicate variable name: ${first.name}`);
  if (ACCUMULATORS.has(first.name ?? '')) return issueAt(first, 'iteration variable overwrites accumulator variable');
  if (ACCUMULATORS.has(second.name ?? '')) return issueAt(second, 'iteration variable overwrites accumulator variable');
  return undefined;
}

const quantifier: MacroCheck = (_t, args) => iterationVariable(args[0]!, 'argument must be a simple name');
const mapOrFilter: MacroCheck = (_t, args) => iterationVariable(args[0]!, 'argument is not an identifier');
const twoVariable: MacroCheck = (_t, args) => twoIterationVariables(args);
const simpleName = (macro: string): MacroCheck => (_t, args) =>
  args[0]!.kind === 'ident' ? undefined : issueAt(args[0]!, `${macro}() variable name must be a simple identifier`);

interface Macro {
  readonly check: MacroCheck;
  readonly result: Kind;
}

// name:argCount, global (g) or receiver (r) style, as parser/macro.go makeMacroKey
const MACROS: ReadonlyMap<string, Macro> = new Map<string, Macro>([
  ['has:1:g', { check: (_t, args) => (args[0]!.kind === 'select' ? undefined : issueAt(args[0]!, 'invalid argument to has() macro')), result: 'select' }],
  ['all:2:r', { check: quantifier, result: 'comprehension' }],
  ['exists:2:r', { check: quantifier, result: 'comprehension' }],
  ['exists_one:2:r', { check: quantifier, result: 'comprehension' }],
  ['map:2:r', { check: mapOrFilter, result: 'comprehension' }],
  ['map:3:r', { check: mapOrFilter, result: 'comprehension' }],
  ['filter:2:r', { check: mapOrFilter, result: 'comprehension' }],
  ['optMap:2:r', { check: simpleName('optMap'), result: 'call' }],
  ['optFlatMap:2:r', { check: simpleName('optFlatMap'), result: 'call' }],
  ['all:3:r', { check: twoVariable, result: 'comprehension' }],
  ['exists:3:r', { check: twoVariable, result: 'comprehension' }],
  ['existsOne:3:r', { check: twoVariable, result: 'comprehension' }],
  ['exists_one:3:r', { check: twoVariable, result: 'comprehension' }],
  ['transformList:3:r', { check: twoVariable, result: 'comprehension' }],
  ['transformList:4:r', { check: twoVariable, result: 'comprehension' }],
  ['transformMap:3:r', { check: twoVariable, result: 'comprehension' }],
  ['transformMap:4:r', { check: twoVariable, result: 'comprehension' }],
  ['transformMapEntry:3:r', { check: twoVariable, result: 'comprehension' }],
  ['transformMapEntry:4:r', { check: twoVariable, result: 'comprehension' }],
  [
    'sortBy:2:r',
    {
      check: (target, args) =>
        target !== undefined && !['list', 'select', 'ident', 'comprehension', 'call'].includes(target.kind)
          ? issueAt(target, 'sortBy can only be applied to a list, identifier, comprehension, call or select expression')
          : mapOrFilter(undefined, args),
      result: 'comprehension',
    },
  ],
]);

// parser.go Visit: the contexts counted against maxRecursionDepth
const DEPTH_COUNTED = new Set(['ExprContext', 'RelationContext', 'CalcContext', 'SelectContext', 'MemberCallContext', 'IndexContext']);

/** parser.go's recursionError from the visitor: reported as `max recursion depth exceeded`, nothing more. */
export class VisitorDepthExceeded extends Error {
  readonly issue: Issue = { offset: NO_LOCATION, message: 'max recursion depth exceeded' };
}

const isPresent = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** cel-go's parser visitor over the generated parser's tree, reporting what it reports. */
export class ParseTreeVisitor {
  readonly issues: Issue[] = [];
  #depth = 0;

  constructor(
    private readonly offsetOf: (line: number, column: number) => number,
    private readonly syntaxErrors: number,
    private readonly identEscapes: boolean,
    private readonly maxRecursionDepth: number,
  ) {}

  #at(node: Token | TreeNode | undefined | null): number {
    if (node === undefined || node === null) return NO_LOCATION;
    // a token has its line; a rule context is located at its start token
    const token = typeof node.line === 'number' ? (node as Token) : (node as TreeNode).start;
    if (token === undefined || token === null || typeof token.line !== 'number') return NO_LOCATION;
    return this.offsetOf(token.line, token.column);
  }

  #error(at: Token | TreeNode | undefined | null, message: string): Expr {
    const offset = this.#at(at);
    this.issues.push({ offset, message });
    return { kind: 'unspecified', offset };
  }

  #expr(kind: Kind, at: Token | TreeNode | undefined | null, name?: string): Expr {
    return name === undefined ? { kind, offset: this.#at(at) } : { kind, offset: this.#at(at), name };
  }

  #call(opAt: Token | TreeNode | undefined | null, fn: string, target: Expr | undefined, args: readonly Expr[]): Expr {
    const macro = MACROS.get(`${fn}:${args.length}:${target === undefined ? 'g' : 'r'}`);
    const offset = this.#at(opAt);
    if (macro !== undefined) {
      const issue = macro.check(target, args);
      if (issue !== undefined) {
        this.issues.push(issue);
        return { kind: 'unspecified', offset: issue.offset };
      }
      return { kind: macro.result, offset };
    }
    return { kind: 'call', offset };
  }

  visit(tree: TreeNode | null | undefined): Expr {
    const t = unnest(tree);
    const name = t?.constructor.name;
    if (name === undefined || !DEPTH_COUNTED.has(name)) return this.#visitNode(t, name);
    // parser.go checkAndIncrementRecursionDepth: deeper than maxRecursionDepth ends the parse
    if (++this.#depth > this.maxRecursionDepth) throw new VisitorDepthExceeded();
    try {
      return this.#visitNode(t, name);
    } finally {
      this.#depth--;
    }
  }

  #visitNode(t: TreeNode | null | undefined, name: string | undefined): Expr {
    switch (name) {
      case 'StartContext': return this.visit(t!['_e'] as TreeNode);
      case 'ExprContext': return this.#ternary(t!);
      case 'ConditionalOrContext':
      case 'ConditionalAndContext': return this.#logic(t!, t!.constructor.name === 'ConditionalOrContext' ? '||' : '&&');
      case 'RelationContext':
      case 'CalcContext': return this.#binary(t!);
      case 'LogicalNotContext':
      case 'NegateContext': return this.#unaryOp(t!);
      case 'UnaryContext': return this.#expr('literal', t);
      case 'SelectContext': return this.#select(t!);
      case 'MemberCallContext': return this.#memberCall(t!);
      case 'IndexContext': return this.#index(t!);
      case 'CreateMessageContext': return this.#message(t!);
      case 'IdentContext': return this.#ident(t!);
      case 'GlobalCallContext': return this.#globalCall(t!);
      case 'CreateListContext': return this.#list(t!);
      case 'CreateStructContext': return this.#struct(t!);
      case 'MapInitializerListContext': this.#mapEntries(t!); return this.#expr('unspecified', t);
      case 'IntContext': return this.#int(t!);
      case 'UintContext': return this.#uint(t!);
      case 'DoubleContext': return this.#double(t!);
      case 'StringContext': return this.#string(t!, false);
      case 'BytesContext': return this.#string(t!, true);
      case 'BoolTrueContext':
      case 'BoolFalseContext':
      case 'NullContext': return this.#expr('literal', t);
      default:
        // parser.go Visit: an unknown element is an error only if nothing else was reported
        if (this.syntaxErrors + this.issues.length === 0) return this.#error(undefined, `unknown parse element encountered: ${t === undefined || t === null ? '<<nil>>' : `<<*gen.${t.constructor.name}>>`}`);
        return { kind: 'unspecified', offset: NO_LOCATION };
    }
  }

  #ternary(ctx: TreeNode): Expr {
    this.visit(ctx['_e'] as TreeNode);
    if (!isPresent(ctx['_op'])) return this.visit(ctx['_e'] as TreeNode);
    const args = [this.visit(ctx['_e1'] as TreeNode), this.visit(ctx['_e2'] as TreeNode)];
    return this.#call(ctx['_op'] as Token, '_?_:_', undefined, [{ kind: 'call', offset: NO_LOCATION }, ...args]);
  }

  #logic(ctx: TreeNode, op: string): Expr {
    const first = this.visit(ctx['_e'] as TreeNode);
    const ops = (ctx['_ops'] as Token[] | undefined) ?? [];
    const rest = (ctx['_e1'] as TreeNode[] | undefined) ?? [];
    for (let i = 0; i < ops.length; i++) {
      if (i >= rest.length) return this.#error(ctx, `unexpected character, wanted '${op}'`);
      this.visit(rest[i]);
    }
    // parser/helper.go balancingLogicManager: the root is the middle operator
    return ops.length === 0 ? first : this.#expr('call', ops[ops.length >> 1]);
  }

  #binary(ctx: TreeNode): Expr {
    const op = ctx['_op'] as Token | undefined;
    if (!isPresent(op) || !OPERATORS.has(op.text ?? '')) return this.#error(ctx, 'operator not found');
    const children = this.#ruleChildren(ctx);
    const lhs = this.visit(children[0]);
    const rhs = this.visit(children[1]);
    return this.#call(op, op.text!, undefined, [lhs, rhs]);
  }

  #unaryOp(ctx: TreeNode): Expr {
    const ops = (ctx['_ops'] as Token[] | undefined) ?? [];
    const member = this.#ruleChildren(ctx)[0];
    if (ops.length % 2 === 0) return this.visit(member);
    const target = this.visit(member);
    return this.#call(ops[0], ctx.constructor.name === 'LogicalNotContext' ? '!_' : '-_', undefined, [target]);
  }

  #select(ctx: TreeNode): Expr {
    this.visit(this.#ruleChildren(ctx)[0]);
    const id = ctx['_id'] as TreeNode | undefined;
    const op = ctx['_op'] as Token | undefined;
    if (!isPresent(id) || !isPresent(op)) return this.#expr('unspecified', ctx);
    const name = this.#normalizeIdent(id);
    if (typeof name !== 'string') this.#error(id, name.error);
    if (isPresent(ctx['_opt'])) return this.#expr('call', op);
    return this.#expr('select', op);
  }

  #memberCall(ctx: TreeNode): Expr {
    const target = this.visit(this.#ruleChildren(ctx)[0]);
    const id = ctx['_id'] as Token | undefined;
    if (!isPresent(id)) return this.#expr('unspecified', ctx);
    const args = this.#exprList(ctx['_args'] as TreeNode | undefined);
    return this.#call(ctx['_open'] as Token, id.text ?? '', target, args);
  }

  #index(ctx: TreeNode): Expr {
    const target = this.visit(this.#ruleChildren(ctx)[0]);
    const op = ctx['_op'] as Token | undefined;
    if (!isPresent(op)) return this.#expr('unspecified', ctx);
    const index = this.visit(ctx['_index'] as TreeNode);
    return this.#call(op, isPresent(ctx['_opt']) ? '_[?_]' : '_[_]', undefined, [target, index]);
  }

  #message(ctx: TreeNode): Expr {
    const entries = ctx['_entries'] as TreeNode | undefined;
    const fields = (entries?.['_fields'] as TreeNode[] | undefined) ?? undefined;
    if (isPresent(entries) && isPresent(fields)) {
      const cols = (entries['_cols'] as Token[] | undefined) ?? [];
      const values = (entries['_values'] as TreeNode[] | undefined) ?? [];
      for (let i = 0; i < fields.length; i++) {
        if (i >= cols.length || i >= values.length) break;
        const escapeIdent = this.#ruleChildren(fields[i]!).find((c) => c.constructor.name.endsWith('IdentifierContext'));
        const name = escapeIdent === undefined ? { error: 'unsupported ident kind' } : this.#normalizeIdent(escapeIdent);
        if (typeof name !== 'string') {
          this.#error(entries, name.error);
          continue;
        }
        this.visit(values[i]);
      }
    }
    return this.#expr('struct', ctx['_op'] as Token);
  }

  #ident(ctx: TreeNode): Expr {
    const id = ctx['_id'] as Token | undefined;
    if (!isPresent(id)) return this.#expr('unspecified', ctx);
    if (RESERVED.has(id.text ?? '')) return this.#error(ctx, `reserved identifier: ${id.text}`);
    return this.#expr('ident', id, `${isPresent(ctx['_leadingDot']) ? '.' : ''}${id.text}`);
  }

  #globalCall(ctx: TreeNode): Expr {
    const id = ctx['_id'] as Token | undefined;
    if (!isPresent(id)) return this.#expr('unspecified', ctx);
    if (RESERVED.has(id.text ?? '')) return this.#error(ctx, `reserved identifier: ${id.text}`);
    const args = this.#exprList(ctx['_args'] as TreeNode | undefined);
    return this.#call(ctx['_op'] as Token, `${isPresent(ctx['_leadingDot']) ? '.' : ''}${id.text}`, undefined, args);
  }

  #list(ctx: TreeNode): Expr {
    const elems = ctx['_elems'] as TreeNode | undefined;
    for (const e of (elems?.['_elems'] as TreeNode[] | undefined) ?? []) this.visit(e['_e'] as TreeNode);
    return this.#expr('list', ctx['_op'] as Token);
  }

  #struct(ctx: TreeNode): Expr {
    const entries = ctx['_entries'] as TreeNode | undefined;
    if (isPresent(entries)) this.#mapEntries(entries);
    return this.#expr('map', ctx['_op'] as Token);
  }

  #mapEntries(ctx: TreeNode): void {
    const keys = ctx['_keys'] as TreeNode[] | undefined;
    if (!isPresent(keys)) return;
    const cols = (ctx['_cols'] as Token[] | undefined) ?? [];
    const values = (ctx['_values'] as TreeNode[] | undefined) ?? [];
    for (let i = 0; i < cols.length; i++) {
      if (i >= keys.length || i >= values.length) return;
      this.visit(keys[i]!['_e'] as TreeNode);
      this.visit(values[i]);
    }
  }

  #exprList(ctx: TreeNode | undefined): Expr[] {
    if (!isPresent(ctx)) return [];
    return ((ctx['_e'] as TreeNode[] | undefined) ?? []).map((e) => this.visit(e));
  }

  #int(ctx: TreeNode): Expr {
    let text = (ctx['_tok'] as Token).text ?? '';
    const hex = text.startsWith('0x');
    if (hex) text = text.slice(2);
    const sign = ctx['_sign'] as Token | undefined;
    if (isPresent(sign)) text = `${sign.text}${text}`;
    // strconv.ParseInt(text, base, 64)
    const digits = text.replace(/^[-+]/, '');
    const valid = digits.length > 0 && (hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits);
    const value = valid ? BigInt(`${text.startsWith('-') ? '-' : ''}${hex ? '0x' : ''}${digits}`) : undefined;
    if (value === undefined || value > 0x7fffffffffffffffn || value < -0x8000000000000000n) return this.#error(ctx, 'invalid int literal');
    return this.#expr('literal', ctx);
  }

  #uint(ctx: TreeNode): Expr {
    let text = ((ctx['_tok'] as Token).text ?? '').slice(0, -1);
    const hex = text.startsWith('0x');
    if (hex) text = text.slice(2);
    const valid = text.length > 0 && (hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(text);
    if (!valid || BigInt(`${hex ? '0x' : ''}${text}`) > 0xffffffffffffffffn) return this.#error(ctx, 'invalid uint literal');
    return this.#expr('literal', ctx);
  }

  #double(ctx: TreeNode): Expr {
    // the lexer's NUM_FLOAT is always a valid strconv.ParseFloat input; out of range parses as ±Inf with an error
    let text = (ctx['_tok'] as Token).text ?? '';
    const sign = ctx['_sign'] as Token | undefined;
    if (isPresent(sign)) text = `${sign.text}${text}`;
    if (!Number.isFinite(Number(text))) return this.#error(ctx, 'invalid double literal');
    return this.#expr('literal', ctx);
  }

  #string(ctx: TreeNode, bytes: boolean): Expr {
    const text = (ctx['_tok'] as Token).text ?? '';
    const error = unescapeError(bytes ? text.slice(1) : text, bytes);
    if (error !== undefined) this.#error(ctx, error);
    return this.#expr('literal', ctx);
  }

  #normalizeIdent(ctx: TreeNode): string | { error: string } {
    const id = ctx['_id'] as Token | undefined;
    if (ctx.constructor.name === 'SimpleIdentifierContext') return id?.text ?? '';
    // Kubernetes' environments leave cel-go's identifier escape syntax off (parser.go enableIdentEscapeSyntax)
    if (ctx.constructor.name === 'EscapedIdentifierContext') {
      if (!this.identEscapes) return { error: "unsupported syntax: '`'" };
      const text = id?.text ?? '';
      return text.length <= 2 ? { error: 'invalid escaped identifier: underflow' } : text.slice(1, -1);
    }
    return { error: 'unsupported ident kind' };
  }

  #ruleChildren(ctx: TreeNode): TreeNode[] {
    const children = (ctx['children'] as unknown[] | null | undefined) ?? [];
    return children.filter((c): c is TreeNode => typeof c === 'object' && c !== null && 'ruleIndex' in (c as object) && typeof (c as { ruleIndex: unknown }).ruleIndex === 'number');
  }
}

// parser.go unnest: single-alternative wrappers are skipped
function unnest(tree: TreeNode | null | undefined): TreeNode | null | undefined {
  let t = tree;
  for (;;) {
    if (t === null || t === undefined) return t;
    switch (t.constructor.name) {
      case 'ExprContext': if (isPresent(t['_op'])) return t; t = t['_e'] as TreeNode; break;
      case 'ConditionalOrContext':
      case 'ConditionalAndContext': if (((t['_ops'] as unknown[] | undefined) ?? []).length > 0) return t; t = t['_e'] as TreeNode; break;
      case 'RelationContext':
      case 'CalcContext': if (isPresent(t['_op'])) return t; t = firstRuleChild(t); break;
      case 'MemberExprContext':
      case 'PrimaryExprContext':
      case 'ConstantLiteralContext': t = firstRuleChild(t); break;
      case 'NestedContext': t = t['_e'] as TreeNode; break;
      default: return t;
    }
  }
}

function firstRuleChild(ctx: TreeNode): TreeNode | undefined {
  const children = (ctx['children'] as unknown[] | null | undefined) ?? [];
  return children.find((c): c is TreeNode => typeof c === 'object' && c !== null && typeof (c as { ruleIndex?: unknown }).ruleIndex === 'number');
}

/** parser/unescape.go unescape: the error text for a string or bytes literal's body, if it has one. */
export function unescapeError(value: string, bytes: boolean): string | undefined {
  const n = value.length;
  if (n < 2) return 'unable to unescape string';
  let raw = false;
  let v = value;
  if (v[0] === 'r' || v[0] === 'R') {
    raw = true;
    v = v.slice(1);
  }
  const quote = v[0]!;
  if (v.length < 2 || (quote !== '"' && quote !== "'") || v[v.length - 1] !== quote) return 'unable to unescape string';
  if (v.length >= 6 && v.startsWith(quote.repeat(3))) {
    if (!v.endsWith(quote.repeat(3))) return 'unable to unescape string';
    v = v.slice(3, -3);
  } else {
    v = v.slice(1, -1);
  }
  if (raw) return undefined;
  for (let i = 0; i < v.length; ) {
    if (v[i] !== '\\') {
      i++;
      continue;
    }
    if (i + 1 >= v.length) return "unable to unescape string, found '\\' as last character";
    const c = v[i + 1]!;
    i += 2;
    switch (c) {
      case 'a': case 'b': case 'f': case 'n': case 'r': case 't': case 'v': case '\\': case "'": case '"': case '`': case '?':
        break;
      case 'x': case 'X': case 'u': case 'U': {
        const size = c === 'x' || c === 'X' ? 2 : c === 'u' ? 4 : 8;
        if (bytes && size > 2) return 'unable to unescape string';
        const hex = v.slice(i, i + size);
        if (hex.length < size || !/^[0-9a-fA-F]+$/.test(hex)) return 'unable to unescape string';
        i += size;
        const code = parseInt(hex, 16);
        // utf8.ValidRune
        if (!bytes && (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))) return 'invalid unicode code point';
        break;
      }
      case '0': case '1': case '2': case '3': {
        const oct = v.slice(i, i + 2);
        if (oct.length < 2 || !/^[0-7]{2}$/.test(oct)) return 'unable to unescape octal sequence in string';
        i += 2;
        break;
      }
      default:
        return 'unable to unescape string';
    }
  }
  return undefined;
}
