// Arithmetic and numeric conversions with cel-go's checks (int64 and uint64 overflow, division and modulus by
// zero), and Go's float formatting (`%g` for string(double), exact round-half-even for `%f` / `%e`).

import { parseGoFloat } from './strconv.js';
import {
  CelDuration,
  CelTimestamp,
  CelUint,
  MAX_INT64,
  MAX_UINT64,
  MIN_INT64,
  Trait,
  celError,
  checkInt,
  duration,
  noSuchOverload,
  noSuchOverloadError,
  timestamp,
  traitMismatch,
  typeName,
  uint,
} from './values.js';

const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;

// The operators are bound as cel-go's singletons (common/stdlib/standard.go): the left operand's method decides,
// so a right operand of the wrong type is the bare `no such overload` of that method, and a left operand without
// the method is `no such overload: _+_` (values.ts traitMismatch).

export function add(a: unknown, b: unknown): unknown {
  switch (typeof a) {
    case 'bigint':
      if (typeof b === 'bigint') return checkInt(a + b);
      break;
    case 'number':
      if (typeof b === 'number') return a + b;
      break;
    case 'string':
      if (typeof b === 'string') return a + b;
      break;
    case 'object':
      if (a instanceof CelUint && b instanceof CelUint) return uint(a.value + b.value);
      if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 ? b : b.length === 0 ? a : a.concat(b);
      if (a instanceof Uint8Array && b instanceof Uint8Array) {
        const out = new Uint8Array(a.length + b.length);
        out.set(a, 0);
        out.set(b, a.length);
        return out;
      }
      // time.Time keeps its location through arithmetic (overflow.go addTimeDurationChecked)
      if (a instanceof CelDuration) {
        if (b instanceof CelDuration) return duration(a.nanos + b.nanos);
        if (b instanceof CelTimestamp) return timestamp(b.nanos + a.nanos, b.offset);
      }
      if (a instanceof CelTimestamp && b instanceof CelDuration) return timestamp(a.nanos + b.nanos, a.offset);
      break;
    default:
  }
  throw traitMismatch('_+_', a, Trait.Adder);
}

export function subtract(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a - b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof CelUint && b instanceof CelUint) return uint(a.value - b.value);
  if (a instanceof CelDuration && b instanceof CelDuration) return duration(a.nanos - b.nanos);
  if (a instanceof CelTimestamp) {
    if (b instanceof CelDuration) return timestamp(a.nanos - b.nanos, a.offset);
    if (b instanceof CelTimestamp) return duration(a.nanos - b.nanos);
  }
  throw traitMismatch('_-_', a, Trait.Subtractor);
}

export function multiply(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkInt(a * b);
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof CelUint && b instanceof CelUint) return uint(a.value * b.value);
  throw traitMismatch('_*_', a, Trait.Multiplier);
}

export function divide(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw celError('division by zero');
    return checkInt(a / b);
  }
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  if (a instanceof CelUint && b instanceof CelUint) {
    if (b.value === 0n) throw celError('division by zero');
    return new CelUint(a.value / b.value);
  }
  throw traitMismatch('_/_', a, Trait.Divider);
}

export function modulo(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) throw celError('modulus by zero');
    if (b === -1n && a === MIN_INT64) throw celError('integer overflow');
    return a % b;
  }
  if (a instanceof CelUint && b instanceof CelUint) {
    if (b.value === 0n) throw celError('modulus by zero');
    return new CelUint(a.value % b.value);
  }
  throw traitMismatch('_%_', a, Trait.Modder);
}

export function negate(a: unknown): unknown {
  if (typeof a === 'bigint') return checkInt(-a);
  if (typeof a === 'number') return -a;
  // Duration.Negate (a dyn duration); bool has the trait but the binding refuses it.
  if (a instanceof CelDuration) return duration(-a.nanos);
  if (typeof a === 'boolean') throw noSuchOverloadError();
  throw traitMismatch('-_', a, Trait.Negator);
}

// ---- conversions ----

/** String.ConvertToType's failure (common/types/string.go). */
function conversionError(to: string): Error {
  return celError(`type conversion error from 'string' to '${to}'`);
}

/** int(x) */
export function toInt(v: unknown): bigint {
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      // doubleToInt64Checked (overflow.go): the double must lie strictly inside int64's range
      if (!Number.isFinite(v) || v <= -TWO_63 || v >= TWO_63) throw celError('integer overflow');
      return BigInt(Math.trunc(v));
    case 'string':
      return parseIntString(v);
    case 'object':
      if (v instanceof CelUint) {
        if (v.value > MAX_INT64) throw celError('integer overflow');
        return v.value;
      }
      if (v instanceof CelTimestamp) return v.seconds;
      if (v instanceof CelDuration) return v.nanos;
      break;
    default:
  }
  throw noSuchOverload('int', v);
}

/** strconv.ParseInt(s, 10, 64): an optional sign and decimal digits; out of range is a failure too. */
function parseIntString(s: string): bigint {
  if (!/^[-+]?[0-9]+$/.test(s)) throw conversionError('int');
  const n = BigInt(s);
  if (n > MAX_INT64 || n < MIN_INT64) throw conversionError('int');
  return n;
}

/** uint(x) */
export function toUint(v: unknown): CelUint {
  switch (typeof v) {
    case 'bigint':
      if (v < 0n) throw celError('unsigned integer overflow');
      return new CelUint(v);
    case 'number':
      // doubleToUint64Checked (overflow.go)
      if (!Number.isFinite(v) || v < 0 || v >= TWO_64) throw celError('unsigned integer overflow');
      return new CelUint(BigInt(Math.trunc(v)));
    case 'string': {
      // strconv.ParseUint(s, 10, 64): digits only, no sign
      if (!/^[0-9]+$/.test(v)) throw conversionError('uint');
      const n = BigInt(v);
      if (n > MAX_UINT64) throw conversionError('uint');
      return new CelUint(n);
    }
    case 'object':
      if (v instanceof CelUint) return v;
      break;
    default:
  }
  throw noSuchOverload('uint', v);
}

/** double(x) */
export function toDouble(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return v;
    case 'bigint':
      return Number(v);
    case 'string': {
      const d = parseGoFloat(v);
      if (d === undefined) throw conversionError('double');
      return d;
    }
    case 'object':
      if (v instanceof CelUint) return Number(v.value);
      break;
    default:
  }
  throw noSuchOverload('double', v);
}

/** bool(x) */
export function toBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    // strconv.ParseBool
    switch (v) {
      case '1':
      case 't':
      case 'T':
      case 'true':
      case 'TRUE':
      case 'True':
        return true;
      case '0':
      case 'f':
      case 'F':
      case 'false':
      case 'FALSE':
      case 'False':
        return false;
      default:
        throw conversionError('bool');
    }
  }
  throw noSuchOverload('bool', v);
}

// ---- float formatting ----

interface Decimal {
  /** decimal digits without leading zeros ('0' for zero) */
  readonly digits: string;
  /** value = digits × 10^-scale */
  readonly scale: number;
}

const view = new DataView(new ArrayBuffer(8));

/** The exact decimal expansion of a finite, non-negative double. */
function exactDecimal(x: number): Decimal {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const exponentBits = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (exponentBits === 0) exp = -1074;
  else {
    mantissa |= 1n << 52n;
    exp = exponentBits - 1075;
  }
  if (mantissa === 0n) return { digits: '0', scale: 0 };
  if (exp >= 0) return { digits: (mantissa << BigInt(exp)).toString(), scale: 0 };
  // m / 2^k == m * 5^k / 10^k
  const k = -exp;
  return { digits: (mantissa * 5n ** BigInt(k)).toString(), scale: k };
}

/** Rounds an integer digit string `digits / 10^drop` half-to-even; returns the rounded integer. */
function roundHalfEven(digits: string, drop: number): bigint {
  if (drop <= 0) return BigInt(digits) * 10n ** BigInt(-drop);
  const n = BigInt(digits);
  const unit = 10n ** BigInt(drop);
  let q = n / unit;
  const r = n - q * unit;
  const twice = r * 2n;
  if (twice > unit || (twice === unit && (q & 1n) === 1n)) q += 1n;
  return q;
}

function specialFloat(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return undefined;
}

/** Go's `%.<prec>f` (exact, round half to even). */
export function formatFixed(x: number, prec: number): string {
  const special = specialFloat(x);
  if (special !== undefined) return special;
  const negative = x < 0 || Object.is(x, -0);
  const { digits, scale } = exactDecimal(Math.abs(x));
  const q = roundHalfEven(digits, scale - prec).toString().padStart(prec + 1, '0');
  const whole = q.slice(0, q.length - prec);
  const frac = q.slice(q.length - prec);
  return `${negative ? '-' : ''}${whole}${prec > 0 ? `.${frac}` : ''}`;
}

/** Go's `%.<prec>e` (exact, round half to even, at least two exponent digits). */
export function formatScientific(x: number, prec: number): string {
  const special = specialFloat(x);
  if (special !== undefined) return special;
  const negative = x < 0 || Object.is(x, -0);
  const { digits, scale } = exactDecimal(Math.abs(x));
  let mantissa: string;
  let exponent: number;
  if (digits === '0') {
    mantissa = '0'.repeat(prec + 1);
    exponent = 0;
  } else {
    exponent = digits.length - 1 - scale;
    let rounded = roundHalfEven(digits, digits.length - (prec + 1)).toString();
    if (rounded.length > prec + 1) {
      // 9.99… rounded up to 10.0…
      rounded = rounded.slice(0, prec + 1);
      exponent += 1;
    }
    mantissa = rounded.padEnd(prec + 1, '0');
  }
  const e = Math.abs(exponent).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${mantissa[0]}${prec > 0 ? `.${mantissa.slice(1)}` : ''}e${exponent < 0 ? '-' : '+'}${e}`;
}

/** Shortest round-trip digits and decimal exponent of a finite non-zero |x|: x = 0.d1d2… × 10^point. */
function shortest(x: number): { digits: string; exponent: number } {
  const [m, e] = Math.abs(x).toExponential().split('e') as [string, string];
  return { digits: m.replace('.', ''), exponent: Number(e) };
}

/** Go's `%g` with the shortest precision (cel-go's string(double)). */
export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { digits, exponent } = shortest(x);
  if (exponent < -4 || exponent >= 6) {
    const e = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  return sign + plainDigits(digits, exponent);
}

/** Digits d1d2… with the decimal point after position exponent+1, without an exponent. */
function plainDigits(digits: string, exponent: number): string {
  const point = exponent + 1;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Go's strconv.FormatFloat(x, 'f', -1, 64): shortest digits, never an exponent. */
export function formatDoublePlain(x: number): string {
  if (x === 0) return '0';
  const { digits, exponent } = shortest(x);
  return (x < 0 ? '-' : '') + plainDigits(digits, exponent);
}

export { TWO_63, TWO_64 };

/** A scalar CEL value as Go's `%v` prints it in cel-go's messages (keys, indexes, join's input); others by type. */
export function goValueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return formatDouble(v);
  if (v instanceof CelUint) return v.value.toString();
  return typeName(v);
}
