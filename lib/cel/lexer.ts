// A small CEL lexer after cel-spec's lexical grammar (and cel-go's CEL.g4): identifiers, `backtick` identifiers,
// the keywords `true false null in`, numbers, strings and bytes in every quoting form (single, double, triple,
// raw `r`, bytes `b`, raw bytes `br`), punctuation, whitespace and `//` comments. It only has to find token
// boundaries, so escape sequences are skipped rather than decoded, and invalid input ends the token stream with one
// `invalid` token (the engine's parser reports the actual error).

export type TokenKind =
  | 'ident'
  /** `name with-dashes`: cel-go's ESC_IDENTIFIER, used for field names */
  | 'escIdent'
  /** `true`, `false`, `null`, `in` */
  | 'keyword'
  | 'number'
  /** string or bytes literal, any quoting */
  | 'string'
  | 'punct'
  /** text the lexer cannot tokenize (unterminated string, stray character); always the last token */
  | 'invalid';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** UTF-16 offset of the first character */
  readonly start: number;
  /** UTF-16 offset just past the last character */
  readonly end: number;
}

const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
const TWO_CHAR_PUNCT = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR_PUNCT = new Set(['<', '>', '[', ']', '{', '}', '(', ')', '.', ',', '-', '!', '?', ':', '+', '*', '/', '%']);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isHexDigit(c: string | undefined): boolean {
  return c !== undefined && (isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
}

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && (c === '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

function isIdentPart(c: string | undefined): boolean {
  return isIdentStart(c) || isDigit(c);
}

/** Characters CEL allows inside a `backtick` identifier. */
function isEscIdentPart(c: string | undefined): boolean {
  return isIdentPart(c) || c === '.' || c === '-' || c === '/' || c === ' ';
}

function isWhitespace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
}

/** End of a string literal whose opening quote is at `at`, or -1 when it is not terminated. */
function stringEnd(source: string, at: number, raw: boolean): number {
  const quote = source.charAt(at);
  const triple = source.startsWith(quote.repeat(3), at);
  if (triple) {
    const closing = quote.repeat(3);
    for (let i = at + 3; i < source.length; i++) {
      if (!raw && source.charAt(i) === '\\') {
        i++;
        continue;
      }
      if (source.startsWith(closing, i)) return i + 3;
    }
    return -1;
  }
  for (let i = at + 1; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === '\n' || c === '\r') return -1;
    if (!raw && c === '\\') {
      i++;
      continue;
    }
    if (c === quote) return i + 1;
  }
  return -1;
}

/** Length of a string prefix (`r`, `b`, `br`, any case) followed by a quote at `at`, or -1. */
function stringPrefix(source: string, at: number): { length: number; raw: boolean } | undefined {
  let i = at;
  if (source.charAt(i) === 'b' || source.charAt(i) === 'B') i++;
  let raw = false;
  if (source.charAt(i) === 'r' || source.charAt(i) === 'R') {
    raw = true;
    i++;
  }
  const c = source.charAt(i);
  return c === '"' || c === "'" ? { length: i - at, raw } : undefined;
}

/** End of a number literal starting at `at` (a digit, or a `.` followed by a digit). */
function numberEnd(source: string, at: number): number {
  let i = at;
  if (source.charAt(i) === '0' && (source.charAt(i + 1) === 'x' || source.charAt(i + 1) === 'X') && isHexDigit(source.charAt(i + 2))) {
    i += 2;
    while (isHexDigit(source.charAt(i))) i++;
    if (source.charAt(i) === 'u' || source.charAt(i) === 'U') i++;
    return i;
  }
  while (isDigit(source.charAt(i))) i++;
  let float = false;
  if (source.charAt(i) === '.' && isDigit(source.charAt(i + 1))) {
    float = true;
    i++;
    while (isDigit(source.charAt(i))) i++;
  }
  const e = source.charAt(i);
  if (e === 'e' || e === 'E') {
    let j = i + 1;
    if (source.charAt(j) === '+' || source.charAt(j) === '-') j++;
    if (isDigit(source.charAt(j))) {
      float = true;
      i = j;
      while (isDigit(source.charAt(i))) i++;
    }
  }
  if (!float && (source.charAt(i) === 'u' || source.charAt(i) === 'U')) i++;
  return i;
}

/** Whether an operand can end with this token: a `-` after it is binary, a `.` selects a member, `[` indexes. */
export function endsOperand(token: Token | undefined): boolean {
  if (token === undefined) return false;
  switch (token.kind) {
    case 'ident':
    case 'escIdent':
    case 'number':
    case 'string':
      return true;
    case 'keyword':
      return token.text !== 'in';
    case 'punct':
      return token.text === ')' || token.text === ']' || token.text === '}';
    default:
      return false;
  }
}

/**
 * Tokenizes a CEL expression, skipping whitespace and comments. Stops at the first text that is not a CEL token,
 * which becomes a final `invalid` token spanning the rest of the source.
 */
export function lex(source: string): Token[] {
  const tokens: Token[] = [];
  const push = (kind: TokenKind, start: number, end: number): void => {
    tokens.push({ kind, text: source.slice(start, end), start, end });
  };
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      while (i < source.length && source.charAt(i) !== '\n' && source.charAt(i) !== '\r') i++;
      continue;
    }
    const prefix = stringPrefix(source, i);
    if (prefix !== undefined) {
      const end = stringEnd(source, i + prefix.length, prefix.raw);
      if (end < 0) {
        push('invalid', i, source.length);
        return tokens;
      }
      push('string', i, end);
      i = end;
      continue;
    }
    if (isIdentStart(c)) {
      let end = i + 1;
      while (isIdentPart(source.charAt(end))) end++;
      push(KEYWORDS.has(source.slice(i, end)) ? 'keyword' : 'ident', i, end);
      i = end;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(source.charAt(i + 1)))) {
      const end = numberEnd(source, i);
      push('number', i, end);
      i = end;
      continue;
    }
    if (c === '`') {
      let end = i + 1;
      while (isEscIdentPart(source.charAt(end))) end++;
      if (end === i + 1 || source.charAt(end) !== '`') {
        push('invalid', i, source.length);
        return tokens;
      }
      push('escIdent', i, end + 1);
      i = end + 1;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (TWO_CHAR_PUNCT.has(two)) {
      push('punct', i, i + 2);
      i += 2;
      continue;
    }
    if (ONE_CHAR_PUNCT.has(c)) {
      push('punct', i, i + 1);
      i++;
      continue;
    }
    push('invalid', i, source.length);
    return tokens;
  }
  return tokens;
}
