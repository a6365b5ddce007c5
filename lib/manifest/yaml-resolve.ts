// What go-yaml v2 makes of a scalar with an explicit tag (go.yaml.in/yaml/v2 v2.4.3 resolve.go resolve, decode.go
// decoder.scalar): the tag the value resolves to must be the one written (`!!float` takes an int as a float, `!!str`
// and `!!binary` take anything), else `cannot decode !!str `p` as a !!int`; a `!!binary` value is base64, decoded.
// Only explicit tags reach here: the document parsers resolve untagged scalars as go-yaml does already.
import { DocumentSyntaxError } from './document.js';
import type { JsonValue } from './document.js';

const LONG_TAG_PREFIX = 'tag:yaml.org,2002:';
const STR = '!!str';
const BINARY = '!!binary';
const RESOLVABLE = new Set(['!!str', '!!bool', '!!int', '!!float', '!!null', '!!timestamp']);

// resolve.go resolveMap
const RESOLVE_MAP = new Map<string, [string, JsonValue | 'nan' | 'inf' | '-inf' | 'merge']>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) RESOLVE_MAP.set(s, ['!!bool', true]);
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) RESOLVE_MAP.set(s, ['!!bool', false]);
for (const s of ['', '~', 'null', 'Null', 'NULL']) RESOLVE_MAP.set(s, ['!!null', null]);
for (const s of ['.nan', '.NaN', '.NAN']) RESOLVE_MAP.set(s, ['!!float', 'nan']);
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) RESOLVE_MAP.set(s, ['!!float', 'inf']);
for (const s of ['-.inf', '-.Inf', '-.INF']) RESOLVE_MAP.set(s, ['!!float', '-inf']);
RESOLVE_MAP.set('<<', ['!!merge', 'merge']);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** `tag:yaml.org,2002:int` → `!!int` (resolve.go shortTag). */
export function shortTag(tag: string): string {
  return tag.startsWith(LONG_TAG_PREFIX) ? `!!${tag.slice(LONG_TAG_PREFIX.length)}` : tag;
}

/** strconv.ParseInt(s, 0, 64) / ParseUint: whether `s` is an integer Go accepts with base prefixes, and its value. */
function goParseInt(s: string, unsigned: boolean): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (m === null || (unsigned && m[1] !== '')) return undefined;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (m[1] === '-') v = -v;
  if (unsigned) return v <= 0xffffffffffffffffn ? v : undefined;
  return v >= -0x8000000000000000n && v <= 0x7fffffffffffffffn ? v : undefined;
}

/** resolve.go parseTimestamp's formats, as far as telling a timestamp apart. */
function isTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  return /^\d{4}-\d{1,2}-\d{1,2}(([Tt]|[ \t]+)\d{1,2}:\d{2}:\d{2}(\.\d*)?(([ \t]*)(Z|[-+]\d{1,2}(:\d{2})?))?)?$/.test(s)
    && !Number.isNaN(Date.parse(s.replace(/[ \t]+/, 'T').replace(/[ \t]+(Z|[-+])/, '$1')));
}

/** The tag go-yaml resolves `input` to under the explicit `tag` (resolve.go resolve, before its deferred check). */
function resolvedTag(tag: string, input: string): string {
  if (tag === STR || tag === BINARY) return STR;
  const hintChar = input.length === 0 ? '' : input[0]!;
  const mapped = RESOLVE_MAP.get(input);
  // only a first character resolve.go's resolveTable hints at looks the value up (`<<` has no hint)
  if (mapped !== undefined && (input === '' || /[yYnNtTfFoO~.+-]/.test(hintChar))) return mapped[0];
  if (hintChar === '.') return Number.isFinite(Number(input)) && /^\.[0-9]/.test(input) ? '!!float' : STR;
  if (/[0-9+-]/.test(hintChar)) {
    if (tag === '!!timestamp' && isTimestamp(input)) return '!!timestamp';
    const plain = input.replaceAll('_', '');
    if (goParseInt(plain, false) !== undefined || goParseInt(plain, true) !== undefined) return '!!int';
    // (resolve.go's own 0b/-0b parses accept what base 0 accepts already)
    if (YAML_STYLE_FLOAT.test(plain)) return '!!float';
  }
  return STR;
}

/**
 * The JSON value of a scalar written with an explicit `tag` (long or short form), as go-yaml decodes it and
 * sigs.k8s.io/yaml turns it into JSON; undefined where the document parser's value stands (tags go-yaml does not
 * resolve, and values it keeps as the parser read them). Throws go-yaml's error for a value the tag cannot take.
 */
export function explicitTagValue(longTag: string, input: string): JsonValue | undefined {
  const tag = shortTag(longTag);
  if (tag === BINARY) {
    const text = input.replace(/[\r\n]/g, '');
    if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new DocumentSyntaxError('yaml: !!binary value contains invalid base64 data');
    return Buffer.from(text, 'base64').toString('utf8');
  }
  if (!RESOLVABLE.has(tag)) return undefined;
  const rtag = resolvedTag(tag, input);
  if (tag === STR) return undefined;
  // numbers as go-yaml reads them (base prefixes, underscores), which the YAML 1.1 parser may not
  const plain = input.replaceAll('_', '');
  if ((tag === '!!int' || tag === '!!float') && rtag === '!!int') {
    // resolvedTag found it an int, so one of the two parses succeeds
    return Number(goParseInt(plain, false) ?? goParseInt(plain, true));
  }
  if (tag === rtag) return tag === '!!float' && YAML_STYLE_FLOAT.test(plain) ? Number(plain) : undefined;
  throw new DocumentSyntaxError(`yaml: cannot decode ${rtag} \`${input}\` as a ${tag}`);
}
