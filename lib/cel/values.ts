// JSON in, CEL values out, and back. Kubernetes decodes JSON integers as int64, so `object.spec.replicas + 1`
// is int arithmetic and `string(object.spec.replicas)` is "3"; JSON.parse gives JS numbers, which the engine
// reads as double. toCelValue copies a JSON value with every integral number (|n| < 2^63) as a BigInt, i.e. a
// CEL int; other numbers stay doubles. celValueToJson turns results (BigInt, uint, maps, bytes…) back into JSON.

import { formatDuration, formatTimestamp } from './runtime/time.js';
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint } from './runtime/values.js';
import { toStringValue } from './runtime/functions.js';

const INT64_LIMIT = 2 ** 63;

/** Roots produced by toCelValue: passing one again costs a lookup, not a copy. */
const converted = new WeakSet<object>();

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A JSON key "__proto__" is data; plain assignment would replace the prototype instead.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function convert(value: unknown, memo?: WeakMap<object, unknown>): unknown {
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? BigInt(value) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (memo !== undefined) {
    const seen = memo.get(value);
    if (seen !== undefined) return seen;
  }
  let out: unknown;
  if (Array.isArray(value)) out = value.map((v) => convert(v, memo));
  else if (!isPlainObject(value)) return value;
  else {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(copy, key, convert(value[key], memo));
    out = copy;
  }
  memo?.set(value, out);
  return out;
}

/**
 * A copy of a JSON value (as JSON.parse returns it) in the representation the CEL engine expects: integral
 * numbers become BigInt (CEL int). Objects and arrays are copied; the input is not modified. Passing a value
 * this function returned returns it as is. With `memo`, every JSON object and array converted is remembered, and met
 * again (the same object, by identity) it is not converted twice: for a caller whose JSON values share subtrees
 * and are never changed in place (successive versions of an object being mutated). Limitation: JSON `1.0` arrives as the JS number 1 and becomes an int,
 * where Kubernetes would keep a double; integers beyond 2^53 have already lost precision in JSON.parse.
 */
export function toCelValue(value: unknown, memo?: WeakMap<object, unknown>): unknown {
  if (typeof value === 'object' && value !== null && converted.has(value)) return value;
  const result = convert(value, memo);
  if (typeof result === 'object' && result !== null) converted.add(result);
  return result;
}


function convertInPlace(value: unknown): unknown {
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? BigInt(value) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'number' || (typeof v === 'object' && v !== null)) value[i] = convertInPlace(v);
    }
    return value;
  }
  if (!isPlainObject(value)) return value;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (typeof v === 'number' || (typeof v === 'object' && v !== null)) {
      const c = convertInPlace(v);
      if (c !== v) setOwn(value, key, c);
    }
  }
  return value;
}

/**
 * toCelValue without the copy, for a JSON value nobody else holds (just parsed from bytes, as on a policy worker):
 * its integral numbers are replaced by BigInt in place and the value itself is returned. Saves allocating a second
 * tree per request; never use it on a value that is serialized or read as JSON afterwards.
 */
export function adoptAsCelValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && converted.has(value)) return value;
  const result = convertInPlace(value);
  if (typeof result === 'object' && result !== null) converted.add(result);
  return result;
}

/**
 * A JSON-serializable copy of a CEL result: int and uint become numbers, maps objects, sets arrays, bytes
 * base64, timestamps RFC 3339 strings, durations `"<seconds>s"`, an optional its value (or null when empty).
 */
export function celValueToJson(value: unknown): unknown {
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'object':
      break;
    default:
      return value;
  }
  if (value === null) return null;
  if (value instanceof CelUint) return Number(value.value);
  if (value instanceof CelOptional) return value.hasValue() ? celValueToJson(value.value()) : null;
  if (value instanceof CelDuration) return formatDuration(value);
  if (value instanceof CelTimestamp) return formatTimestamp(value);
  if (value instanceof CelType) return value.name;
  if (value instanceof CelObject) return toStringValue(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value) || value instanceof Set) return Array.from(value as Iterable<unknown>, celValueToJson);
  const out: Record<string, unknown> = {};
  const entries = value instanceof Map ? value.entries() : Object.entries(value);
  for (const [key, v] of entries as Iterable<[unknown, unknown]>) setOwn(out, key instanceof CelUint ? String(key.value) : String(key), celValueToJson(v));
  return out;
}
