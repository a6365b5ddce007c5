// Go formatting primitives that apimachinery's field errors depend on: strconv.Quote (%q), encoding/json string
// and value encoding, strings.TrimSpace and byte lengths. Kubernetes measures lengths in UTF-8 bytes and trims with
// unicode.IsSpace, which differ from JavaScript's String.length and String.prototype.trim().

const encoder = new TextEncoder();

/** len(s) in Go: the number of UTF-8 bytes. */
export function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/** The UTF-8 bytes of s (lone surrogates become U+FFFD, as Go's decoders would have produced). */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** unicode.IsSpace */
export function isGoSpace(cp: number): boolean {
  switch (cp) {
    case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x20: case 0x85: case 0xa0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200a;
  }
}

/** strings.TrimSpace */
export function goTrimSpace(s: string): string {
  const chars = Array.from(s);
  let start = 0;
  let end = chars.length;
  while (start < end && isGoSpace(chars[start]!.codePointAt(0)!)) start++;
  while (end > start && isGoSpace(chars[end - 1]!.codePointAt(0)!)) end--;
  return chars.slice(start, end).join('');
}

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** unicode.IsPrint / strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return printable.test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Code points of s; a lone surrogate is read as U+FFFD, like Go's handling of invalid UTF-8 from decoders. */
function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

/** strconv.Quote, i.e. fmt's %q for a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const cp of codePoints(s)) {
    switch (cp) {
      case 0x22: out += '\\"'; continue;
      case 0x5c: out += '\\\\'; continue;
      case 0x07: out += '\\a'; continue;
      case 0x08: out += '\\b'; continue;
      case 0x0c: out += '\\f'; continue;
      case 0x0a: out += '\\n'; continue;
      case 0x0d: out += '\\r'; continue;
      case 0x09: out += '\\t'; continue;
      case 0x0b: out += '\\v'; continue;
      default:
        break;
    }
    if (isGoPrint(cp)) {
      out += String.fromCodePoint(cp);
    } else if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return out + '"';
}

/** encoding/json's string encoding with HTML escaping (json.Marshal's default), Go ≥ 1.22. */
export function goJsonString(s: string): string {
  let out = '"';
  for (const cp of codePoints(s)) {
    switch (cp) {
      case 0x22: out += '\\"'; continue;
      case 0x5c: out += '\\\\'; continue;
      case 0x08: out += '\\b'; continue;
      case 0x0c: out += '\\f'; continue;
      case 0x0a: out += '\\n'; continue;
      case 0x0d: out += '\\r'; continue;
      case 0x09: out += '\\t'; continue;
      case 0x3c: case 0x3e: case 0x26: case 0x2028: case 0x2029:
        out += `\\u${hex(cp, 4)}`;
        continue;
      default:
        break;
    }
    out += cp < 0x20 ? `\\u${hex(cp, 4)}` : String.fromCodePoint(cp);
  }
  return out + '"';
}

/**
 * json.Marshal of a value built from plain data. Object keys are written in insertion order, so callers build
 * objects in the Go struct's field order (Go sorts map keys; struct fields keep declaration order).
 */
export function goJsonMarshal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string': return goJsonString(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint': return value.toString();
    case 'boolean': return value ? 'true' : 'false';
    default: break;
  }
  if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(',')}]`;
  if (typeof value === 'object') {
    const withJson = value as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return goJsonMarshal(withJson.toJSON());
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      parts.push(`${goJsonString(k)}:${goJsonMarshal(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return 'null';
}
