// What go-yaml v2 makes of one scalar (go.yaml.in/yaml/v2 v2.4.3 resolve.go resolve, decode.go decoder.scalar into an
// interface{}): the tag it resolves to from its first character and content, with an explicit tag required to match
// (`!!float` takes an int as a float, `!!str` and `!!binary` take anything), else `cannot decode !!str `p` as a !!int`.
// Values are Go's: ints are bigint (int64, or uint64 beyond it), floats are numbers, timestamps keep their text.
import { DocumentSyntaxError } from '../document-error.js';

/** A scalar as go-yaml v2 decodes it into an interface{}: nil, bool, string, int/int64/uint64 (bigint), float64. */
export type GoScalar = null | boolean | string | bigint | number;

const LONG_TAG_PREFIX = 'tag:yaml.org,2002:';
const STR = `${LONG_TAG_PREFIX}str`;
const BINARY = `${LONG_TAG_PREFIX}binary`;
const BOOL = `${LONG_TAG_PREFIX}bool`;
const INT = `${LONG_TAG_PREFIX}int`;
const FLOAT = `${LONG_TAG_PREFIX}float`;
const NULL = `${LONG_TAG_PREFIX}null`;
const TIMESTAMP = `${LONG_TAG_PREFIX}timestamp`;
const MERGE = `${LONG_TAG_PREFIX}merge`;
export const MERGE_TAG = MERGE;

const RESOLVABLE = new Set(['', STR, BOOL, INT, FLOAT, NULL, TIMESTAMP]);

// resolve.go resolveMap
const RESOLVE_MAP = new Map<string, { tag: string; value: GoScalar }>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) RESOLVE_MAP.set(s, { tag: BOOL, value: true });
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) RESOLVE_MAP.set(s, { tag: BOOL, value: false });
for (const s of ['', '~', 'null', 'Null', 'NULL']) RESOLVE_MAP.set(s, { tag: NULL, value: null });
for (const s of ['.nan', '.NaN', '.NAN']) RESOLVE_MAP.set(s, { tag: FLOAT, value: NaN });
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) RESOLVE_MAP.set(s, { tag: FLOAT, value: Infinity });
for (const s of ['-.inf', '-.Inf', '-.INF']) RESOLVE_MAP.set(s, { tag: FLOAT, value: -Infinity });
RESOLVE_MAP.set('<<', { tag: MERGE, value: '<<' });

/** resolve.go resolveTable: the hint a first character gives ('S' sign, 'D' digit, 'M' in the map, '.' float). */
function hint(c: number): string {
  if (c === 0x2b || c === 0x2d) return 'S';
  if (c >= 0x30 && c <= 0x39) return 'D';
  if ('yYnNtTfFoO~'.includes(String.fromCharCode(c))) return 'M';
  if (c === 0x2e) return '.';
  return '';
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** strconv.ParseFloat's syntax for a text starting with `.`: digits, underscores only between digits, an exponent. */
const DOT_FLOAT = /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/;

/** `tag:yaml.org,2002:int` → `!!int` (resolve.go shortTag). */
export function shortTag(tag: string): string {
  return tag.startsWith(LONG_TAG_PREFIX) ? `!!${tag.slice(LONG_TAG_PREFIX.length)}` : tag;
}

const INT64_MIN = -0x8000000000000000n;
const INT64_MAX = 0x7fffffffffffffffn;
const UINT64_MAX = 0xffffffffffffffffn;

/** strconv.ParseInt(s, 0, 64) (signed) or ParseUint(s, 0, 64): Go's base prefixes and a leading 0 for octal. */
function parseGoInt(s: string, signed: boolean): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (m === null || (!signed && m[1] !== '')) return undefined;
  const body = m[2]!;
  let v = /^0[0-7]+$/.test(body) ? BigInt(`0o${body.slice(1)}`) : BigInt(body.replace(/^0[oO]/, '0o'));
  if (m[1] === '-') v = -v;
  if (signed) return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
  return v <= UINT64_MAX ? v : undefined;
}

/** strconv.ParseInt(s, 2, 64): a sign, then binary digits. */
function parseBinary(s: string): bigint | undefined {
  const m = /^([+-]?)([01]+)$/.exec(s);
  if (m === null) return undefined;
  const v = m[1] === '-' ? -BigInt(`0b${m[2]!}`) : BigInt(`0b${m[2]!}`);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

/** strconv.ParseFloat(s, 64) of a text already known to be decimal float syntax: out of range is an error. */
function parseFloat64(s: string): number | undefined {
  const v = Number(s.replaceAll('_', ''));
  return Number.isFinite(v) ? v : undefined;
}

/** resolve.go parseTimestamp's formats, as far as telling a timestamp apart. */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  return /^\d{4}-\d{1,2}-\d{1,2}(([Tt]|[ \t]+)\d{1,2}:\d{2}:\d{2}(\.\d*)?(([ \t]*)(Z|[-+]\d{1,2}(:\d{2})?))?)?$/.test(s)
    && !Number.isNaN(Date.parse(s.replace(/[ \t]+/, 'T').replace(/[ \t]+(Z|[-+])/, '$1')));
}

interface Resolved {
  readonly tag: string;
  readonly value: GoScalar;
}

/** resolve.go resolve before its deferred tag check: the tag `input` resolves to, and its value. */
function resolveUnchecked(tag: string, input: string): Resolved {
  const h = input.length === 0 ? 'N' : hint(input.charCodeAt(0));
  if (h === '' || tag === STR || tag === BINARY) return { tag: STR, value: input };
  const mapped = RESOLVE_MAP.get(input);
  if (mapped !== undefined) return mapped;
  if (h === '.') {
    if (DOT_FLOAT.test(input)) {
      const v = parseFloat64(input);
      if (v !== undefined) return { tag: FLOAT, value: v };
    }
  } else if (h === 'D' || h === 'S') {
    if ((tag === '' || tag === TIMESTAMP) && isTimestamp(input)) return { tag: TIMESTAMP, value: input };
    const plain = input.replaceAll('_', '');
    const int = parseGoInt(plain, true) ?? parseGoInt(plain, false);
    if (int !== undefined) return { tag: INT, value: int };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const v = parseFloat64(plain);
      if (v !== undefined) return { tag: FLOAT, value: v };
    }
    // resolve.go's own binary parses: "0b" takes a signed binary tail ("-0b…" is base 0's already)
    if (plain.startsWith('0b')) {
      const v = parseBinary(plain.slice(2));
      if (v !== undefined) return { tag: INT, value: v };
    }
  }
  return { tag: STR, value: input };
}

/**
 * decode.go decoder.scalar into an interface{}: a quoted scalar without a tag is its text; otherwise the value its
 * tag and content resolve to (resolve.go resolve), a `!!binary` one decoded, a timestamp kept as written.
 */
export function scalarValue(tag: string, value: string, implicit: boolean): GoScalar {
  if (tag === '' && !implicit) return value;
  if (!RESOLVABLE.has(tag)) {
    if (tag === BINARY) return decodeBinary(value);
    return value;
  }
  const resolved = resolveUnchecked(tag, value);
  if (tag !== '' && tag !== resolved.tag && tag !== STR) {
    // an int64 becomes a float64; a uint64 does not
    if (tag === FLOAT && resolved.tag === INT && (resolved.value as bigint) <= INT64_MAX) return Number(resolved.value as bigint);
    throw new DocumentSyntaxError(`yaml: cannot decode ${shortTag(resolved.tag)} \`${value}\` as a ${shortTag(tag)}`);
  }
  return resolved.tag === TIMESTAMP ? value : resolved.value;
}

/** encoding/base64 StdEncoding.DecodeString (which skips CR and LF), as a Go string of the bytes. */
function decodeBinary(value: string): string {
  const text = value.replace(/[\r\n]/g, '');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new DocumentSyntaxError('yaml: !!binary value contains invalid base64 data');
  return Buffer.from(text, 'base64').toString('utf8');
}
