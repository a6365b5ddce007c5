// Rewrites CEL message construction into something the engine parses, before it parses. The CEL grammar's
//   primary: '.'? IDENT ('.' IDENT)* '{' fieldInitializerList? ','? '}'
//   fieldInitializerList: '?'? (IDENT | ESC_IDENT) ':' expr (',' '?'? (IDENT | ESC_IDENT) ':' expr)*
// becomes a call of CONSTRUCT_FUNCTION (objects.ts) on the type name, a map literal with the field names as
// string keys, and the names of the optional fields:
//   JSONPatch{op: "add", ?value: v}  →  (spaces)__…construct("JSONPatch", {"op": "add",  "value": v}, ["value"])
// The work is done on tokens (lexer.ts), so strings, bytes and comments never look like constructions, and a name
// chain that selects a member of an expression (`f().x{`) is left alone. Map literals are not touched.
//
// Positions: the type name is blanked with spaces (same length), `?` and the `,` of `Type{,}` become spaces,
// `backticks` of escaped field names become quotes, and only the quotes around plain field names and the call
// around the literal are inserted. toOriginal() maps any offset of the rewritten text back to the original, so
// that errors are reported where the user wrote the text.

import type { Issue } from './issues.js';
import { endsOperand, lex } from './lexer.js';
import type { Token } from './lexer.js';
import { CONSTRUCT_FUNCTION } from './objects.js';
import { OPTIONAL_ENTRY_FUNCTION } from './runtime/planner.js';

/** One `Type{…}` found in the original text. */
export interface ConstructionSite {
  /** the type name as written, without a leading dot (`Object.spec.containers`) */
  readonly type: string;
  /** original offset of the name's first character (its leading dot, if any) */
  readonly offset: number;
  /** original offset of the `{` (where cel-go anchors the construction) */
  readonly brace: number;
  /** original offset just past its `}` (the end of the source while unclosed) */
  end: number;
}

export interface RewrittenExpression {
  /** the text to hand to the engine; the original when there is no construction */
  readonly source: string;
  readonly constructions: readonly ConstructionSite[];
  /** a syntax error inside a construction's field list (original offsets); rewriting stopped there */
  readonly issue?: Issue;
  /** placeholder identifiers standing for quoted field names (`` a.`b-c` ``) → the field names */
  readonly fieldNames: ReadonlyMap<string, string>;
  /** placeholder identifier → `.name`, for names written with a leading dot (cel-go's root-scoped names) */
  readonly rootedNames: ReadonlyMap<string, string>;
  /** original offset of a rewritten offset */
  toOriginal(offset: number): number;
  /** whether the rewritten offset lies in inserted text (no original counterpart) */
  isInserted(offset: number): boolean;
}

interface Edit {
  /** original range [start, end) replaced by text; an insertion when start === end */
  readonly start: number;
  readonly end: number;
  readonly text: string;
  /** for insertions: the original offset the inserted text stands for */
  readonly anchor: number;
  readonly seq: number;
}

interface Segment {
  readonly rewritten: number;
  readonly original: number;
  readonly length: number;
  readonly inserted: boolean;
}

type FieldState = 'start' | 'afterComma' | 'afterOpt' | 'afterName' | 'afterColon' | 'value';

interface Frame {
  readonly kind: '(' | '[' | '{' | 'construction';
  state: FieldState;
  optional: boolean;
  readonly optionalFields: string[];
  /** a list literal (`[` not indexing an operand) or a map literal: where `?` may mark an optional entry */
  readonly literal: boolean;
  /** at the start of an element / entry */
  atStart: boolean;
  /** the current entry was marked with `?` */
  entryOptional: boolean;
  /** the OPTIONAL_ENTRY_FUNCTION call around the current element / value is open */
  wrapOpen: boolean;
  /** a construction's site */
  site?: ConstructionSite;
}

function frame(kind: Frame['kind'], state: FieldState, literal: boolean): Frame {
  return { kind, state, optional: false, optionalFields: [], literal, atStart: true, entryOptional: false, wrapOpen: false };
}

const CLOSERS: Readonly<Record<string, Frame['kind']>> = { ')': '(', ']': '[' };

function isPunct(token: Token | undefined, text: string): boolean {
  return token !== undefined && token.kind === 'punct' && token.text === text;
}

/** The type name when tokens[brace] (a `{`) opens a construction: a name chain in primary position before it. */
function constructionName(tokens: readonly Token[], brace: number): { type: string; start: number } | undefined {
  let j = brace - 1;
  if (tokens[j]?.kind !== 'ident') return undefined;
  const names = [tokens[j]!.text];
  while (isPunct(tokens[j - 1], '.') && tokens[j - 2]?.kind === 'ident') {
    j -= 2;
    names.unshift(tokens[j]!.text);
  }
  let start = tokens[j]!.start;
  if (isPunct(tokens[j - 1], '.')) {
    const before = tokens[j - 2];
    // `f().x{`, `a[0].b{`: the chain continues a member expression, which the grammar does not construct from.
    if (before !== undefined && endsOperand(before)) return undefined;
    start = tokens[j - 1]!.start;
  }
  return { type: names.join('.'), start };
}

function tokenText(token: Token | undefined): string {
  return token === undefined ? '<EOF>' : token.text;
}

function mismatched(token: Token | undefined, sourceLength: number, expecting: string): Issue {
  return { offset: token?.start ?? sourceLength, message: `Syntax error: mismatched input '${tokenText(token)}' expecting ${expecting}` };
}

const FIELD_START = "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}";
const FIELD_AFTER_COMMA = "{'}', '?', IDENTIFIER, ESC_IDENTIFIER}";
const FIELD_NAME = '{IDENTIFIER, ESC_IDENTIFIER}';

class Rewriter {
  readonly edits: Edit[] = [];
  readonly constructions: ConstructionSite[] = [];
  readonly fieldNames = new Map<string, string>();
  readonly rootedNames = new Map<string, string>();
  issue: Issue | undefined;
  private readonly frames: Frame[] = [];

  constructor(
    private readonly source: string,
    private readonly tokens: readonly Token[],
  ) {}

  private insert(at: number, text: string, anchor = at): void {
    this.edits.push({ start: at, end: at, text, anchor, seq: this.edits.length });
  }

  private replace(start: number, end: number, text: string): void {
    this.edits.push({ start, end, text, anchor: start, seq: this.edits.length });
  }

  /** Blanks original text, keeping line breaks so that lines stay where they were. */
  private blank(start: number, end: number): void {
    let text = '';
    for (let i = start; i < end; i++) {
      const c = this.source.charAt(i);
      text += c === '\n' || c === '\r' ? c : ' ';
    }
    if (text.length > 0) this.replace(start, end, text);
  }

  run(): void {
    for (let i = 0; i < this.tokens.length && this.issue === undefined; i++) {
      const token = this.tokens[i]!;
      // An invalid token ends the stream: the engine reports it.
      if (token.kind === 'invalid') return;
      const top = this.frames.at(-1);
      if (top?.kind === 'construction' && top.state !== 'value') {
        const handled = this.field(top, token, i);
        if (handled === 'stop') return;
        if (handled === 'consumed') continue;
      }
      this.lexical(token, i);
      if (top?.literal === true && this.optionalEntry(top, token)) continue;
      if (!this.generic(token, i)) return;
    }
  }

  /**
   * A token where a construction expects a field (or its `:`): rewrites it. Returns 'consumed', 'stop' (after a
   * syntax error, or before invalid input), or 'generic' for the first token of a field value.
   */
  private field(frame: Frame, token: Token, i: number): 'consumed' | 'stop' | 'generic' {
    switch (frame.state) {
      case 'start':
      case 'afterComma':
        if (isPunct(token, '}')) {
          this.close(frame, token);
          return 'consumed';
        }
        if (frame.state === 'start' && isPunct(token, ',')) {
          // `Type{,}`: the grammar's optional trailing comma with no field before it.
          this.blank(token.start, token.end);
          const next = this.tokens[i + 1];
          if (next?.kind === 'invalid') return 'stop';
          if (!isPunct(next, '}')) return this.fail(mismatched(next, this.source.length, "'}'"));
          frame.state = 'afterComma';
          return 'consumed';
        }
        if (isPunct(token, '?')) {
          this.blank(token.start, token.end);
          frame.optional = true;
          frame.state = 'afterOpt';
          return 'consumed';
        }
        if (token.kind === 'ident' || token.kind === 'escIdent') return this.fieldName(frame, token);
        return this.fail(mismatched(token, this.source.length, frame.state === 'start' ? FIELD_START : FIELD_AFTER_COMMA));
      case 'afterOpt':
        if (token.kind === 'ident' || token.kind === 'escIdent') return this.fieldName(frame, token);
        return this.fail(mismatched(token, this.source.length, FIELD_NAME));
      case 'afterName':
        if (!isPunct(token, ':')) return this.fail(mismatched(token, this.source.length, "':'"));
        frame.state = 'afterColon';
        return 'consumed';
      case 'afterColon':
        // The value starts here; a missing value (`a: }`) is the engine's syntax error, as for a map literal.
        frame.state = 'value';
        return 'generic';
      case 'value':
        return 'generic';
    }
  }

  /** Whether the token at tokens[i] follows an operand (a `[` then indexes it rather than opening a list literal). */
  private indexes(i: number): boolean {
    const before = this.tokens[i - 1];
    return before !== undefined && endsOperand(before);
  }

  /**
   * Token-level forms the engine does not lex: a number with a leading dot (`.5` → `0.5`), raw bytes (`br'…'`,
   * blanked to ` b'…'` with the same length; fixups.ts decodes the original), and a quoted field name after `.`
   * (`` a.`b-c` `` → a placeholder identifier, renamed back by fixups.ts).
   */
  private lexical(token: Token, i: number): void {
    if (isPunct(token, ',') && this.emptyWithComma(i)) {
      this.blank(token.start, token.end);
      return;
    }
    if (isPunct(token, '.') && !this.indexes(i) && this.tokens[i + 1]?.kind === 'ident' && !this.namesConstruction(i + 1)) {
      this.rootedName(token, this.tokens[i + 1]!);
      return;
    }
    if (token.kind === 'number' && token.text.startsWith('.') && !this.indexes(i)) {
      this.insert(token.start, '0');
      return;
    }
    if (token.kind === 'string' && /^[bB][rR]/.test(token.text)) {
      this.replace(token.start, token.end, ` b${token.text.slice(2).replaceAll('\\', ' ')}`);
      return;
    }
    if (token.kind === 'escIdent') {
      const before = this.tokens[i - 1];
      if (before !== undefined && before.kind === 'punct' && (before.text === '.' || (before.text === '?' && isPunct(this.tokens[i - 2], '.')))) {
        const placeholder = `__static_admissiond_field_${this.fieldNames.size}`;
        this.fieldNames.set(placeholder, token.text.slice(1, -1));
        this.replace(token.start, token.end, placeholder);
      }
    }
  }

  /**
   * `.name` and `.fn(…)`: cel-go's names resolved from the root scope (in the empty container: as `name`, `fn`). The
   * engine does not parse them: the name becomes a placeholder that fixups.ts names `.name`, which the checker, the
   * reference check and the planner resolve as `name` and report as written. A call so named expands no macro.
   */
  private rootedName(dot: Token, name: Token): void {
    const placeholder = `__static_admissiond_root_${this.rootedNames.size}`;
    this.rootedNames.set(placeholder, `.${name.text}`);
    // cel-go places the identifier at its name, not at the dot
    this.blank(dot.start, dot.end);
    this.replace(name.start, name.end, placeholder);
  }

  /** `[,]` or `{,}`: the grammar's optional trailing comma in an empty list or map literal. */
  private emptyWithComma(i: number): boolean {
    const before = this.tokens[i - 1];
    const after = this.tokens[i + 1];
    if (isPunct(before, '[')) return isPunct(after, ']') && !this.indexes(i - 1);
    return isPunct(before, '{') && isPunct(after, '}') && constructionName(this.tokens, i - 1) === undefined;
  }

  /** Whether the name starting at tokens[i] (`a.b.C`) is a construction's type name (followed by `{`). */
  private namesConstruction(i: number): boolean {
    let j = i;
    while (isPunct(this.tokens[j + 1], '.') && this.tokens[j + 2]?.kind === 'ident') j += 2;
    return isPunct(this.tokens[j + 1], '{');
  }

  /**
   * `[?x, …]` and `{?k: v, …}`: the `?` is blanked and the element (or the value) is wrapped in a call of
   * OPTIONAL_ENTRY_FUNCTION, which the planner unwraps. Returns true when the token was consumed.
   */
  private optionalEntry(top: Frame, token: Token): boolean {
    const isList = top.kind === '[';
    if (top.atStart && isPunct(token, '?')) {
      this.blank(token.start, token.end);
      top.entryOptional = true;
      top.atStart = false;
      if (isList) {
        this.insert(token.end, `${OPTIONAL_ENTRY_FUNCTION}(`, token.end);
        top.wrapOpen = true;
      }
      return true;
    }
    if (!isList && isPunct(token, ':') && top.entryOptional && !top.wrapOpen) {
      this.insert(token.end, `${OPTIONAL_ENTRY_FUNCTION}(`, token.end);
      top.wrapOpen = true;
      return false;
    }
    if (isPunct(token, ',') || isPunct(token, isList ? ']' : '}')) {
      if (top.wrapOpen) this.insert(token.start, ')', token.start);
      top.wrapOpen = false;
      top.entryOptional = false;
      top.atStart = isPunct(token, ',');
      return false;
    }
    top.atStart = false;
    return false;
  }

  private fieldName(frame: Frame, token: Token): 'consumed' {
    let name: string;
    if (token.kind === 'escIdent') {
      name = token.text.slice(1, -1);
      this.replace(token.start, token.start + 1, '"');
      this.replace(token.end - 1, token.end, '"');
    } else {
      name = token.text;
      this.insert(token.start, '"');
      this.insert(token.end, '"');
    }
    if (frame.optional) frame.optionalFields.push(name);
    frame.optional = false;
    frame.state = 'afterName';
    return 'consumed';
  }

  private fail(issue: Issue): 'stop' {
    this.issue = issue;
    return 'stop';
  }

  /** Closes a construction at its `}`: the optional field names and the end of the call. */
  private close(frame: Frame, token: Token): void {
    this.frames.pop();
    if (frame.site !== undefined) frame.site.end = token.end;
    const names = frame.optionalFields.map((n) => JSON.stringify(n)).join(', ');
    this.insert(token.end, `, [${names}])`, token.end);
  }

  /** Any token outside a field name position. Returns false to stop rewriting (unbalanced brackets). */
  private generic(token: Token, i: number): boolean {
    if (token.kind !== 'punct') return true;
    const top = this.frames.at(-1);
    switch (token.text) {
      case '(':
      case '[':
        this.frames.push(frame(token.text, 'value', token.text === '[' && !this.indexes(i)));
        return true;
      case '{': {
        const name = constructionName(this.tokens, i);
        if (name === undefined) {
          this.frames.push(frame('{', 'value', true));
          return true;
        }
        // The inserted call stands for the type name: a syntax error at it (`[A{} B{}]`) points at the name.
        this.blank(name.start, token.start);
        this.insert(token.start, `${CONSTRUCT_FUNCTION}(${JSON.stringify(name.type)}, `, name.start);
        const site: ConstructionSite = { type: name.type, offset: name.start, brace: token.start, end: Number.POSITIVE_INFINITY };
        this.constructions.push(site);
        this.frames.push({ ...frame('construction', 'start', false), site });
        return true;
      }
      case '}':
        if (top?.kind === 'construction') {
          this.close(top, token);
          return true;
        }
        if (top?.kind !== '{') return false;
        this.frames.pop();
        return true;
      case ')':
      case ']':
        if (top?.kind !== CLOSERS[token.text]) return false;
        this.frames.pop();
        return true;
      case ',':
        if (top?.kind === 'construction') top.state = 'afterComma';
        return true;
      default:
        return true;
    }
  }
}

const NO_FIELD_NAMES: ReadonlyMap<string, string> = new Map();

const NEEDS_REWRITE = /[{?`]|\.[0-9]|[bB][rR]['"]|\[\s*,|(?:^|[^\w\s)\]}'"`])\s*\.\s*[A-Za-z_]/;

function identity(source: string): RewrittenExpression {
  return {
    source,
    constructions: [],
    fieldNames: NO_FIELD_NAMES,
    rootedNames: NO_FIELD_NAMES,
    toOriginal: (offset) => Math.max(0, Math.min(offset, source.length)),
    isInserted: () => false,
  };
}

function apply(source: string, edits: readonly Edit[]): { text: string; segments: Segment[] } {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.seq - b.seq);
  const segments: Segment[] = [];
  let text = '';
  let cursor = 0;
  const copy = (original: number, piece: string): void => {
    if (piece.length === 0) return;
    segments.push({ rewritten: text.length, original, length: piece.length, inserted: false });
    text += piece;
  };
  for (const edit of sorted) {
    copy(cursor, source.slice(cursor, edit.start));
    if (edit.start === edit.end) {
      segments.push({ rewritten: text.length, original: edit.anchor, length: edit.text.length, inserted: true });
      text += edit.text;
    } else {
      // Same-length replacements map character for character.
      copy(edit.start, edit.text);
    }
    cursor = edit.end;
  }
  copy(cursor, source.slice(cursor));
  return { text, segments };
}

function segmentAt(segments: readonly Segment[], offset: number): Segment | undefined {
  let lo = 0;
  let hi = segments.length - 1;
  let found: Segment | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = segments[mid]!;
    if (s.rewritten <= offset) {
      found = s;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found !== undefined && offset < found.rewritten + found.length ? found : undefined;
}

/** Rewrites every message construction in `source` (see the top of this file). */
export function rewriteConstructions(source: string): RewrittenExpression {
  // Cheap exit for the common case: nothing a lexer could see as a construction, an optional entry, a quoted
  // field name, a leading-dot number or raw bytes.
  if (!NEEDS_REWRITE.test(source)) return identity(source);
  const rewriter = new Rewriter(source, lex(source));
  rewriter.run();
  if (rewriter.edits.length === 0) return rewriter.issue === undefined ? identity(source) : { ...identity(source), issue: rewriter.issue };
  const { text, segments } = apply(source, rewriter.edits);
  const result: RewrittenExpression = {
    source: text,
    constructions: rewriter.constructions,
    fieldNames: rewriter.fieldNames,
    rootedNames: rewriter.rootedNames,
    toOriginal(offset: number): number {
      const s = segmentAt(segments, offset);
      if (s === undefined) return offset <= 0 ? 0 : source.length;
      return s.inserted ? s.original : s.original + (offset - s.rewritten);
    },
    isInserted(offset: number): boolean {
      return segmentAt(segments, offset)?.inserted ?? false;
    },
  };
  return rewriter.issue === undefined ? result : { ...result, issue: rewriter.issue };
}
