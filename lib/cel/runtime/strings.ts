// String functions: the standard ones that need code-point semantics (size) and cel-go's strings extension
// (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim, join, reverse,
// strings.quote, format). Indices count Unicode code points, as cel-go counts runes.

import { formatDouble, formatFixed, formatScientific, goValueText } from './numbers.js';
import { mapEntries } from './compare.js';
import { formatDuration, formatTimestamp } from './time.js';
import { CelDuration, CelTimestamp, CelType, CelUint, celError, isMap, noSuchOverload, typeName } from './values.js';

const SURROGATE = /[\uD800-\uDFFF]/;

function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}

/** Code points of a string (lone surrogates count as one each). */
function codePoints(s: string): string[] {
  return Array.from(s);
}

/** size(string): the number of code points. */
export function stringSize(s: string): bigint {
  if (!hasSurrogates(s)) return BigInt(s.length);
  let n = 0;
  for (const _ of s) n++;
  return BigInt(n);
}

function outOfRange(i: bigint | number): never {
  throw celError(`index out of range: ${i}`);
}

export function charAt(s: string, index: bigint): string {
  if (!hasSurrogates(s)) {
    if (index < 0n || index > BigInt(s.length)) outOfRange(index);
    return s.charAt(Number(index));
  }
  const cps = codePoints(s);
  if (index < 0n || index > BigInt(cps.length)) outOfRange(index);
  return cps[Number(index)] ?? '';
}

function findFrom(hay: readonly string[], needle: readonly string[], from: number): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function findLastFrom(hay: readonly string[], needle: readonly string[], from: number): number {
  outer: for (let i = Math.min(from, hay.length - needle.length); i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export function indexOf(s: string, sub: string, offset?: bigint): bigint {
  const simple = !hasSurrogates(s) && !hasSurrogates(sub);
  const length = simple ? s.length : codePoints(s).length;
  const off = offset ?? 0n;
  if (off < 0n || off > BigInt(length)) outOfRange(off);
  if (sub === '') return off;
  if (simple) return BigInt(s.indexOf(sub, Number(off)));
  return BigInt(findFrom(codePoints(s), codePoints(sub), Number(off)));
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const simple = !hasSurrogates(s) && !hasSurrogates(sub);
  const length = simple ? s.length : codePoints(s).length;
  const off = offset ?? BigInt(length);
  if (off < 0n || off > BigInt(length)) outOfRange(off);
  if (sub === '') return off;
  if (simple) return BigInt(s.lastIndexOf(sub, Number(off)));
  return BigInt(findLastFrom(codePoints(s), codePoints(sub), Number(off)));
}

export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function upperAscii(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches before every code point and at the end. */
export function replace(s: string, old: string, replacement: string, n = -1n): string {
  if (n === 0n || old === replacement) return s;
  if (old === '') {
    const cps = codePoints(s);
    let out = '';
    let done = 0n;
    for (let i = 0; i <= cps.length; i++) {
      if (n < 0n || done < n) {
        out += replacement;
        done++;
      }
      if (i < cps.length) out += cps[i];
    }
    return out;
  }
  if (n < 0n) return s.split(old).join(replacement);
  let out = '';
  let from = 0;
  for (let done = 0n; done < n; done++) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
  }
  return out + s.slice(from);
}

/** Go's strings.SplitN: n == 0 → [], n < 0 → all parts, an empty separator splits into code points. */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const cps = codePoints(s);
    if (n < 0n || BigInt(cps.length) <= n) return cps;
    const k = Number(n);
    return [...cps.slice(0, k - 1), cps.slice(k - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

export function substring(s: string, start: bigint, end?: bigint): string {
  const simple = !hasSurrogates(s);
  const length = BigInt(simple ? s.length : codePoints(s).length);
  if (end !== undefined && start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > length) outOfRange(start);
  if (end !== undefined && (end < 0n || end > length)) outOfRange(end);
  const e = end === undefined ? undefined : Number(end);
  if (simple) return s.slice(Number(start), e);
  return codePoints(s).slice(Number(start), e).join('');
}

/** Unicode White_Space, which Go's strings.TrimSpace removes (not the zero-width characters). */
const SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const TRIM = new RegExp(`^${SPACE}+|${SPACE}+$`, 'g');

export function trim(s: string): string {
  return s.replace(TRIM, '');
}

export function join(list: readonly unknown[], sep = ''): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    const e = list[i];
    if (typeof e !== 'string') throw celError(`join: invalid input: ${goValueText(e)}`);
    if (i > 0) out += sep;
    out += e;
  }
  return out;
}

export function reverse(s: string): string {
  return codePoints(s).reverse().join('');
}

const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** strings.quote: a double-quoted CEL string literal of s; invalid UTF-16 (lone surrogates) becomes U+FFFD. */
export function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += '\uFFFD';
    else out += QUOTE_ESCAPES[c] ?? c;
  }
  return `${out}"`;
}

// ---- format ----

const utf8 = new TextDecoder('utf-8');
const encoder = new TextEncoder();

function specialDouble(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return undefined;
}

const STRING_CLAUSE_ERROR =
  'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given';

/** The `%s` rendering of a value. */
export function formatString(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return specialDouble(v) ?? formatDouble(v);
    case 'object':
      if (v === null) return 'null';
      if (v instanceof CelUint) return v.value.toString();
      if (v instanceof Uint8Array) return utf8.decode(v);
      if (v instanceof CelType) return v.name;
      if (v instanceof CelTimestamp) return formatTimestamp(v);
      if (v instanceof CelDuration) return formatDuration(v);
      if (Array.isArray(v)) return `[${v.map(formatString).join(', ')}]`;
      if (isMap(v)) {
        const pairs = mapEntries(v).map(([k, value]) => [formatString(k), formatString(value)] as const);
        pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        return `{${pairs.map(([k, value]) => `${k}: ${value}`).join(', ')}}`;
      }
      break;
    default:
  }
  throw celError(`error during formatting: ${STRING_CLAUSE_ERROR} ${typeName(v)}`);
}

function clauseError(message: string, v: unknown): never {
  throw celError(`error during formatting: ${message}, was given ${typeName(v)}`);
}

function toFloatArg(v: unknown, message: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof CelUint) return Number(v.value);
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return clauseError(message, v);
}

function integerArg(v: unknown, message: string): bigint {
  if (typeof v === 'bigint') return v;
  if (v instanceof CelUint) return v.value;
  return clauseError(message, v);
}

function radix(v: bigint, base: number): string {
  return v < 0n ? `-${(-v).toString(base)}` : v.toString(base);
}

function hex(v: unknown, upper: boolean): string {
  let out: string;
  if (typeof v === 'string' || v instanceof Uint8Array) {
    const bytes = typeof v === 'string' ? encoder.encode(v) : v;
    out = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  } else {
    out = radix(integerArg(v, 'only integers, byte buffers, and strings can be formatted as hex'), 16);
  }
  return upper ? out.toUpperCase() : out;
}

function formatClause(verb: string, precision: number | undefined, v: unknown): string {
  switch (verb) {
    case 's':
      return formatString(v);
    case 'd':
      if (typeof v === 'number') return specialDouble(v) ?? clauseError('decimal clause can only be used on integers', v);
      return integerArg(v, 'decimal clause can only be used on integers').toString();
    case 'f':
      return formatFixed(toFloatArg(v, 'fixed-point clause can only be used on doubles'), precision ?? 6);
    case 'e':
      return formatScientific(toFloatArg(v, 'scientific clause can only be used on doubles'), precision ?? 6);
    case 'b':
      if (typeof v === 'boolean') return v ? '1' : '0';
      return radix(integerArg(v, 'only integers and bools can be formatted as binary'), 2);
    case 'x':
    case 'X':
      return hex(v, verb === 'X');
    case 'o':
      return radix(integerArg(v, 'octal clause can only be used on integers'), 8);
    default:
      throw celError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** string.format(list): cel-go's printf-style clauses %s %d %f %e %b %x %X %o with optional `.precision`. */
export function format(template: string, args: readonly unknown[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw celError(`index ${argIndex} out of range`);
    if (i + 1 >= template.length) throw celError('unexpected end of string');
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      j++;
      let digits = '';
      while (j < template.length && template[j]! >= '0' && template[j]! <= '9') digits += template[j++];
      if (j >= template.length) throw celError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
      precision = Number(digits);
    }
    const verb = template[j]!;
    out += formatClause(verb, precision, args[argIndex]);
    argIndex++;
    i = j + 1;
  }
  return out;
}

export function requireString(fn: string, v: unknown): string {
  if (typeof v !== 'string') throw noSuchOverload(fn, v);
  return v;
}
