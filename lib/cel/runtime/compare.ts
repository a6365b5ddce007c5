// Equality, ordering and map access with cel-go's semantics: heterogeneous equality (values of different types
// are unequal, numbers compare across int, uint and double), cross-type numeric ordering
// (cel.CrossTypeNumericComparisons), strings ordered by code point, and map keys that match across numeric types.

import { CelDuration, CelObject, CelOptional, CelRuntimeError, CelTimestamp, CelType, CelUint, Trait, celError, hasTrait, isPlainObject, noSuchOverloadError, ownValue, traitMismatch, typeName } from './values.js';

const TWO_63 = 9223372036854775808; // 2^63 as a double (== float64(MaxInt64))
const TWO_64 = 18446744073709551616;

function cmpNumber(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  return NaN;
}

function cmpBig(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** cel-go compareIntDouble: the int as a double unless the double is out of int64 range. */
function cmpIntDouble(i: bigint, d: number): number {
  if (Number.isNaN(d)) return NaN;
  if (d < -TWO_63) return 1;
  if (d > TWO_63) return -1;
  return cmpNumber(Number(i), d);
}

function cmpUintDouble(u: bigint, d: number): number {
  if (Number.isNaN(d)) return NaN;
  if (d < 0) return 1;
  if (d > TWO_64) return -1;
  return cmpNumber(Number(u), d);
}

/** Numeric comparison across int (bigint), uint (CelUint) and double; undefined when either is not a number. */
export function compareNumbers(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return cmpBig(a, b);
    if (typeof b === 'number') return cmpIntDouble(a, b);
    if (b instanceof CelUint) return cmpBig(a, b.value);
    return undefined;
  }
  if (typeof a === 'number') {
    if (typeof b === 'number') return cmpNumber(a, b);
    if (typeof b === 'bigint') return -cmpIntDouble(b, a);
    if (b instanceof CelUint) return -cmpUintDouble(b.value, a);
    return undefined;
  }
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return cmpBig(a.value, b.value);
    if (typeof b === 'bigint') return cmpBig(a.value, b);
    if (typeof b === 'number') return cmpUintDouble(a.value, b);
  }
  return undefined;
}

/** A UTF-16 code unit adjusted so that comparing adjusted units orders strings by code point. */
function codePointOrder(u: number): number {
  if (u >= 0xd800 && u <= 0xdfff) return u + 0x2000;
  if (u >= 0xe000) return u - 0x800;
  return u;
}

/** Orders strings by Unicode code point, as Go compares UTF-8 strings. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) < codePointOrder(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** cel-go's Double/Int/Uint.Compare with a NaN operand (common/types/double.go, int.go, uint.go). */
export const NAN_NOT_ORDERED = 'NaN values cannot be ordered';

/**
 * The left operand's Compare method (traits.Comparer): -1, 0 or 1, or the CEL error it returns. Without the
 * method (lists, maps, null, types, the Kubernetes objects) the result is undefined.
 */
export function compareWith(a: unknown, b: unknown): number | CelRuntimeError | undefined {
  if (!hasTrait(a, Trait.Comparer)) return undefined;
  if (typeof a === 'number' && Number.isNaN(a)) return celError(NAN_NOT_ORDERED);
  if (typeof b === 'number' && Number.isNaN(b) && (typeof a === 'number' || typeof a === 'bigint' || a instanceof CelUint)) {
    return celError(NAN_NOT_ORDERED);
  }
  const n = compareNumbers(a, b);
  if (n !== undefined) return n;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return cmpBig(a.nanos, b.nanos);
  if (a instanceof CelDuration && b instanceof CelDuration) return cmpBig(a.nanos, b.nanos);
  return noSuchOverloadError();
}

/**
 * CEL ordering for `<`, `<=`, `>`, `>=` (singletons bound to the Comparer trait, stdlib/standard.go): -1, 0 or 1.
 * Throws cel-go's errors: `NaN values cannot be ordered`, the bare `no such overload` for operands of different
 * kinds, `no such overload: _<_` for a left operand that cannot be ordered.
 */
export function compare(a: unknown, b: unknown, op = '_<_'): number {
  const c = compareWith(a, b);
  if (typeof c === 'number') return c;
  throw c ?? traitMismatch(op, a, Trait.Comparer);
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** CEL `==`: heterogeneous equality (never an error). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (typeof a) {
    case 'bigint':
    case 'number':
      return compareNumbers(a, b) === 0;
    case 'object':
      break;
    default:
      return false;
  }
  if (a instanceof CelUint) return compareNumbers(a, b) === 0;
  if (a === null || typeof b !== 'object' || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.nanos === b.nanos;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.nanos === b.nanos;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (a instanceof CelObject) return b instanceof CelObject && a.constructor === b.constructor && a.equals(b);
  if (a instanceof Map || isPlainObject(a)) return (b instanceof Map || isPlainObject(b)) && mapsEqual(a, b);
  return false;
}

function mapsEqual(a: Map<unknown, unknown> | Record<string, unknown>, b: Map<unknown, unknown> | Record<string, unknown>): boolean {
  if (mapSize(a) !== mapSize(b)) return false;
  for (const [k, v] of mapEntries(a)) {
    const other = mapGet(b, k);
    if (other === undefined || !celEquals(v, other)) return false;
  }
  return true;
}

export type CelMap = Map<unknown, unknown> | Record<string, unknown>;

export function mapSize(m: CelMap): number {
  return m instanceof Map ? m.size : Object.keys(m).length;
}

export function mapKeys(m: CelMap): unknown[] {
  return m instanceof Map ? [...m.keys()] : Object.keys(m);
}

export function mapEntries(m: CelMap): [unknown, unknown][] {
  return m instanceof Map ? [...m.entries()] : Object.entries(m);
}

/** The integral value of a numeric key (int, uint or whole double), for lookups across numeric types. */
function integralKey(key: unknown): bigint | undefined {
  if (typeof key === 'bigint') return key;
  if (key instanceof CelUint) return key.value;
  if (typeof key === 'number' && Number.isInteger(key)) return BigInt(key);
  return undefined;
}

/** The value under `key`, or undefined when absent; numeric keys match across int, uint and double. */
export function mapGet(m: CelMap, key: unknown): unknown {
  if (!(m instanceof Map)) return typeof key === 'string' ? ownValue(m, key) : undefined;
  if (typeof key === 'string' || typeof key === 'boolean') return m.get(key);
  const n = integralKey(key);
  if (n === undefined) return undefined;
  const direct = m.get(n);
  if (direct !== undefined) return direct;
  for (const [k, v] of m) if (k instanceof CelUint && k.value === n) return v;
  return undefined;
}

/** Whether a value may be a map key (int, uint, bool, string). */
export function isValidKey(key: unknown): boolean {
  return typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || key instanceof CelUint;
}

/** Throws cel-go's error for a key that cannot be in a map. */
export function checkKey(key: unknown): void {
  if (!isValidKey(key)) throw celError(`unsupported key type: ${typeName(key)}`);
}
