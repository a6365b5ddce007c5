// Kubernetes library.IP and library.CIDR (ip(), isIP(), ip.isCanonical(), cidr(), isCIDR() and their methods),
// with Go net/netip parsing rules: no IPv4 octets with leading zeros, no zones, no IPv4-mapped IPv6 addresses,
// canonical (RFC 5952) string forms.

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { CelObject, celError, celType, noSuchOverload } from '../values.js';

const IP_TYPE = celType('net.IP');
const CIDR_TYPE = celType('net.CIDR');

/** An address: 4 or 16 bytes. */
class Addr {
  constructor(readonly bytes: Uint8Array) {}
  get is4(): boolean {
    return this.bytes.length === 4;
  }
  equals(o: Addr): boolean {
    return this.bytes.length === o.bytes.length && this.bytes.every((b, i) => b === o.bytes[i]);
  }
  toString(): string {
    const b = this.bytes;
    if (b.length === 4) return Array.from(b).join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
    // RFC 5952: compress the longest run (length ≥ 2) of zero groups, the first one on a tie.
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    const hex = (g: number): string => g.toString(16);
    if (bestStart < 0) return groups.map(hex).join(':');
    return `${groups.slice(0, bestStart).map(hex).join(':')}::${groups.slice(bestStart + bestLen).map(hex).join(':')}`;
  }
}

class ParseError extends Error {}

function parseIPv4(s: string): Uint8Array {
  const fields = s.split('.');
  if (fields.length !== 4) throw new ParseError(fields.length < 4 ? 'IPv4 address too short' : 'IPv4 address too long');
  const out = new Uint8Array(4);
  fields.forEach((f, i) => {
    if (f === '') throw new ParseError('IPv4 field must have at least one digit');
    if (!/^[0-9]+$/.test(f)) throw new ParseError(`unexpected character`);
    if (f.length > 1 && f.startsWith('0')) throw new ParseError('IPv4 field has octet with leading zero');
    const v = Number(f);
    if (v > 255) throw new ParseError('IPv4 field has value >255');
    out[i] = v;
  });
  return out;
}

function parseIPv6(s: string): Uint8Array {
  const out = new Uint8Array(16);
  let ellipsis = -1;
  let i = 0;
  let rest = s;
  if (rest.startsWith('::')) {
    ellipsis = 0;
    rest = rest.slice(2);
    if (rest === '') return out;
  }
  while (i < 16) {
    const m = /^[0-9a-fA-F]{1,4}/.exec(rest);
    if (m === null) throw new ParseError('each colon-separated field must have at least one digit');
    const after = rest.slice(m[0].length);
    if (after.startsWith('.')) {
      // embedded IPv4 in the last 32 bits
      if (ellipsis < 0 && i !== 12) throw new ParseError('embedded IPv4 address must replace the final 2 fields of the address');
      if (i + 4 > 16) throw new ParseError('too many hex fields to fit an embedded IPv4 at the end of the address');
      const v4 = parseIPv4(rest);
      out.set(v4, i);
      i += 4;
      rest = '';
      break;
    }
    const v = parseInt(m[0], 16);
    out[i] = v >> 8;
    out[i + 1] = v & 0xff;
    i += 2;
    rest = after;
    if (rest === '') break;
    if (!rest.startsWith(':')) throw new ParseError('unexpected character, want colon');
    if (rest === ':') throw new ParseError('colon must be followed by more characters');
    rest = rest.slice(1);
    if (rest.startsWith(':')) {
      if (ellipsis >= 0) throw new ParseError('multiple :: in address');
      ellipsis = i;
      rest = rest.slice(1);
      if (rest === '') break;
    }
  }
  if (rest !== '') throw new ParseError('trailing garbage after address');
  if (i < 16) {
    if (ellipsis < 0) throw new ParseError('address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) out[j + n] = out[j]!;
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) out[j] = 0;
  } else if (ellipsis >= 0) {
    throw new ParseError('the :: must expand to at least one field of zeros');
  }
  return out;
}

/** netip.ParseAddr, then the library's rejections (zones, IPv4-mapped IPv6). */
function parseAddr(raw: string): Addr {
  let bytes: Uint8Array;
  try {
    if (raw === '') throw new ParseError('unable to parse IP');
    const zone = raw.indexOf('%');
    if (zone >= 0 && raw.includes(':')) throw celError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
    if (raw.includes(':')) bytes = parseIPv6(raw);
    else if (raw.includes('.')) bytes = parseIPv4(raw);
    else throw new ParseError('unable to parse IP');
  } catch (error) {
    if (error instanceof ParseError) {
      throw celError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${error.message}`);
    }
    throw error;
  }
  if (bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    throw celError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  }
  return new Addr(bytes);
}

export class IP extends CelObject {
  readonly celType = IP_TYPE;
  constructor(readonly addr: Addr) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof IP && this.addr.equals(other.addr);
  }
  toCelString(): string {
    return this.addr.toString();
  }
}

function prefixOf(bytes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] = bytes[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return out;
}

export class CIDR extends CelObject {
  readonly celType = CIDR_TYPE;
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof CIDR && this.bits === other.bits && this.addr.equals(other.addr);
  }
  toCelString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
  masked(): CIDR {
    return new CIDR(new Addr(prefixOf(this.addr.bytes, this.bits)), this.bits);
  }
  containsAddr(a: Addr): boolean {
    if (a.bytes.length !== this.addr.bytes.length) return false;
    return new Addr(prefixOf(a.bytes, this.bits)).equals(this.masked().addr);
  }
}

function parseCIDR(raw: string): CIDR {
  const fail = (why: string): never => {
    throw celError(`network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${why}`);
  };
  const slash = raw.lastIndexOf('/');
  if (slash < 0) fail('no \'/\'');
  const addrText = raw.slice(0, slash);
  const bitsText = raw.slice(slash + 1);
  if (addrText.includes('%')) fail('IPv6 zones cannot be present in a prefix');
  let addr: Addr;
  try {
    addr = parseAddr(addrText);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('IPv4-mapped')) {
      throw celError(`network address parse error during conversion from string: IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
    }
    return fail(`ParseAddr(${JSON.stringify(addrText)}): unable to parse IP`);
  }
  if (!/^[0-9]+$/.test(bitsText) || (bitsText.length > 1 && bitsText.startsWith('0'))) fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) fail(`prefix length out of range`);
  return new CIDR(addr, bits);
}

function addrOf(v: unknown, fn: string): Addr {
  if (v instanceof IP) return v.addr;
  throw noSuchOverload(fn, v);
}

const isIP = (v: unknown): boolean => v instanceof IP;
const isCIDR = (v: unknown): boolean => v instanceof CIDR;

defineGlobal('ip', (args) => (arity('ip', args, 1), new IP(parseAddr(stringArg('ip', args, 0)))));
defineGlobal('isIP', (args) => {
  arity('isIP', args, 1);
  try {
    parseAddr(stringArg('isIP', args, 0));
    return true;
  } catch (error) {
    if (error instanceof Error && !error.message.startsWith('no such overload')) return false;
    throw error;
  }
});
defineGlobal('ip.isCanonical', (args) => {
  arity('ip.isCanonical', args, 1);
  const s = stringArg('ip.isCanonical', args, 0);
  return parseAddr(s).toString() === s;
});
defineMember('family', (args) => (arity('family', args, 1), addrOf(args[0], 'family').is4 ? 4n : 6n), isIP);

function addrPredicate(name: string, test: (b: Uint8Array) => boolean): void {
  defineMember(name, (args) => (arity(name, args, 1), test(addrOf(args[0], name).bytes)), isIP);
}

const all = (b: Uint8Array, v: number, from = 0, to = b.length): boolean => b.slice(from, to).every((x) => x === v);
addrPredicate('isUnspecified', (b) => all(b, 0));
addrPredicate('isLoopback', (b) => (b.length === 4 ? b[0] === 127 : all(b, 0, 0, 15) && b[15] === 1));
addrPredicate('isLinkLocalMulticast', (b) => (b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02));
addrPredicate('isLinkLocalUnicast', (b) => (b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80));
addrPredicate('isGlobalUnicast', (b) => {
  if (b.length === 4) {
    if (all(b, 0) || all(b, 255)) return false;
    return b[0] !== 127 && !(b[0]! >= 224 && b[0]! <= 239) && !(b[0] === 169 && b[1] === 254);
  }
  if (all(b, 0)) return false;
  const loopback = all(b, 0, 0, 15) && b[15] === 1;
  return !loopback && b[0] !== 0xff && !(b[0] === 0xfe && (b[1]! & 0xc0) === 0x80);
});

defineGlobal('cidr', (args) => (arity('cidr', args, 1), parseCIDR(stringArg('cidr', args, 0))));
defineGlobal('isCIDR', (args) => {
  arity('isCIDR', args, 1);
  try {
    parseCIDR(stringArg('isCIDR', args, 0));
    return true;
  } catch (error) {
    if (error instanceof Error && !error.message.startsWith('no such overload')) return false;
    throw error;
  }
});

function cidrOf(v: unknown, fn: string): CIDR {
  if (v instanceof CIDR) return v;
  throw noSuchOverload(fn, v);
}

defineMember(
  'containsIP',
  (args) => {
    arity('containsIP', args, 2);
    const c = cidrOf(args[0], 'containsIP');
    const other = typeof args[1] === 'string' ? parseAddr(args[1]) : addrOf(args[1], 'containsIP');
    return c.containsAddr(other);
  },
  isCIDR,
);
defineMember(
  'containsCIDR',
  (args) => {
    arity('containsCIDR', args, 2);
    const c = cidrOf(args[0], 'containsCIDR');
    const other = typeof args[1] === 'string' ? parseCIDR(args[1]) : cidrOf(args[1], 'containsCIDR');
    return c.bits <= other.bits && c.containsAddr(other.addr);
  },
  isCIDR,
);
defineMember('ip', (args) => (arity('ip', args, 1), new IP(cidrOf(args[0], 'ip').addr)), isCIDR);
defineMember('masked', (args) => (arity('masked', args, 1), cidrOf(args[0], 'masked').masked()), isCIDR);
defineMember('prefixLength', (args) => (arity('prefixLength', args, 1), BigInt(cidrOf(args[0], 'prefixLength').bits)), isCIDR);
