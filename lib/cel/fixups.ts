// Adjustments to the engine's AST between parsing and type-checking (checker/), where the engine's parser departs
// from cel-go:
// - bytes literals are decoded from the source again: the engine encodes non-ASCII characters as Latin-1 and
//   rejects raw bytes (`br'…'`), where CEL encodes UTF-8;
// - field names written as quoted identifiers (`` a.`b-c` ``), which the rewrite replaced by placeholders, get
//   their names back.

import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import { lex } from './lexer.js';
import type { Token } from './lexer.js';

/** What the fixups need to know about the text the engine parsed. */
export interface FixupContext {
  /** the expression as written */
  readonly original: string;
  /** offset in `original` of an offset in the parsed (rewritten) text */
  toOriginal(offset: number): number;
  /** placeholder identifier → field name, for quoted field names */
  readonly fieldNames: ReadonlyMap<string, string>;
  /** placeholder identifier → `.name`, for names with a leading dot (rewrite.ts rootedName) */
  readonly rootedNames?: ReadonlyMap<string, string>;
  /** declared variables whose names are dotted (`a.b.c`), resolved as qualified identifiers */
  readonly qualifiedVariables?: ReadonlySet<string>;
}

/** The mutable parts of an engine node used here (the engine's public typings make them read-only). */
interface MutableNode extends EngineNode {
  op: string;
  args: unknown;
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  '\\': 0x5c,
  '?': 0x3f,
  '"': 0x22,
  "'": 0x27,
  '`': 0x60,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
};

const encoder = new TextEncoder();

/** The bytes of a CEL bytes literal (`b'…'`, `B"…"`, `br'''…'''`…), UTF-8 for characters. */
export function decodeBytesLiteral(text: string): Uint8Array | undefined {
  const m = /^[bB]([rR]?)("""|'''|"|')/.exec(text);
  if (m === null) return undefined;
  const raw = m[1] !== '';
  const quote = m[2]!;
  const body = text.slice(m[0].length, text.length - quote.length);
  if (raw) return encoder.encode(body);
  const out: number[] = [];
  for (let i = 0; i < body.length; ) {
    const c = body[i]!;
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of encoder.encode(ch)) out.push(b);
      i += ch.length;
      continue;
    }
    const e = body[i + 1] ?? '';
    if (e in SIMPLE_ESCAPES) {
      out.push(SIMPLE_ESCAPES[e]!);
      i += 2;
    } else if (e === 'x' || e === 'X') {
      out.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (e >= '0' && e <= '7') {
      out.push(parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 4;
    } else {
      return undefined;
    }
  }
  return Uint8Array.from(out);
}

/** Macros whose leading identifier arguments are variables bound in their other arguments. */
const BINDING_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry', 'optMap', 'optFlatMap', 'bind']);

const TWO_VARIABLE_MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

class Fixer {
  private tokens: Token[] | undefined;
  /** variables bound by enclosing comprehensions / cel.bind (only tracked where qualified names matter) */
  private readonly bound: string[] = [];

  constructor(private readonly ctx: FixupContext) {}

  private tokenAt(offset: number): Token | undefined {
    this.tokens ??= lex(this.ctx.original);
    return this.tokens.find((t) => t.start <= offset && offset < t.end);
  }

  visit(node: MutableNode): void {
    switch (node.op) {
      case 'rcall': {
        const [name, target, args] = node.args as [string, MutableNode, MutableNode[]];
        if (BINDING_MACROS.has(name) && (this.ctx.qualifiedVariables?.size ?? 0) > 0) {
          const names = args[0]?.op === 'id' ? [args[0].args as string] : [];
          if (args.length >= 3 && args[1]?.op === 'id' && TWO_VARIABLE_MACROS.has(name)) names.push(args[1].args as string);
          this.visit(target);
          this.bound.push(...names);
          for (const a of args) this.visit(a);
          this.bound.splice(this.bound.length - names.length);
          return;
        }
        break;
      }
      case '.':
      case '.?': {
        const args = node.args as [EngineNode, string];
        const real = this.ctx.fieldNames.get(args[1]);
        if (real !== undefined) node.args = [args[0], real];
        if (node.op === '.' && this.qualify(node)) return;
        break;
      }
      case 'value':
        if (node.args instanceof Uint8Array) {
          const token = this.tokenAt(this.ctx.toOriginal(node.range.start) + 1) ?? this.tokenAt(this.ctx.toOriginal(node.range.start));
          const bytes = token?.kind === 'string' ? decodeBytesLiteral(token.text) : undefined;
          if (bytes !== undefined) node.args = bytes;
        }
        return;
      case 'id': {
        const rooted = this.ctx.rootedNames?.get(node.args as string);
        if (rooted !== undefined) node.args = rooted;
        return;
      }
      case 'call': {
        const [name, args] = node.args as [string, MutableNode[]];
        const rooted = this.ctx.rootedNames?.get(name);
        if (rooted !== undefined) node.args = [rooted, args];
        break;
      }
      default:
    }
    this.visitChildren(node.args);
  }

  /** Turns `a.b.c` into the identifier `a.b.c` when that is a declared variable (longest prefix first). */
  private qualify(node: MutableNode): boolean {
    const declared = this.ctx.qualifiedVariables;
    if (declared === undefined || declared.size === 0) return false;
    const names: string[] = [];
    let root: MutableNode = node;
    while (root.op === '.') {
      const [operand, field] = root.args as [MutableNode, string];
      names.unshift(field);
      root = operand;
    }
    if (root.op !== 'id' || declared.has(root.args as string) || this.bound.includes(root.args as string)) return false;
    const name = `${root.args as string}.${names.join('.')}`;
    if (!declared.has(name)) return false;
    node.op = 'id';
    node.args = name;
    return true;
  }

  private visitChildren(args: unknown): void {
    if (isEngineNode(args)) this.visit(args as MutableNode);
    else if (Array.isArray(args)) for (const a of args) this.visitChildren(a);
  }
}

/** Applies the fixups to a freshly parsed AST (before it is type-checked). */
export function fixAst(root: EngineNode, ctx: FixupContext): void {
  new Fixer(ctx).visit(root as MutableNode);
}
