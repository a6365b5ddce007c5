// JSON in, CEL values out, and back. Kubernetes decodes JSON integers as int64, so `object.spec.replicas + 1`
// is int arithmetic and `string(object.spec.replicas)` is "3"; JSON.parse gives JS numbers, which the engine
// reads as double. toCelValue copies a JSON value with every integral number (|n| < 2^63) as a BigInt, i.e. a
// CEL int; other numbers stay doubles. celValueToJson turns results (BigInt, uint, maps, bytes…) back into JSON.

import { formatDuration, formatTimestamp } from './runtime/time.js';
import { CelDuration, CelObject, CelOptional, CelTimestamp, CelType, CelUint, isPlainObject } from './runtime/values.js';
import { toStringValue } from './runtime/functions.js';
import { copyJson, setOwn } from '../json/index.js';

const INT64_LIMIT = 2 ** 63;

/** Roots produced by toCelValue: passing one again costs a lookup, not a copy. */
const converted = new WeakSet<object>();

function celNumber(value: number): number | bigint {
  return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? BigInt(value) : value;
}

/** Below this depth the conversion recurses; deeper subtrees are copied with an explicit stack (copyJson). */
const RECURSION_DEPTH = 200;

/**
 * JSON to CEL values. Recursive while shallow, which is every object the apiserver sends in practice and several
 * times faster than the general copy (no task list, no callbacks); a subtree deeper than RECURSION_DEPTH is handed
 * to copyJson, whose explicit stack copes with objects nested 10,000 levels (as kube-apiserver accepts). Same copy:
 * key order kept, class instances and scalars shared.
 */
function convert(value: unknown, depth: number): unknown {
  if (typeof value === 'number') return celNumber(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= RECURSION_DEPTH) return copyJson(value, { number: celNumber });
  if (Array.isArray(value)) {
    const items = value as unknown[];
    const out = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) out[i] = convert(items[i], depth + 1);
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  // for…in: a JSON object's own keys in Object.keys order (its prototype has no enumerable keys)
  for (const key in value) setOwn(out, key, convert(value[key], depth + 1));
  return out;
}

/**
 * A copy of a JSON value (as JSON.parse returns it) in the representation the CEL engine expects: integral
 * numbers become BigInt (CEL int). Objects and arrays are copied; the input is not modified. Passing a value
 * this function returned returns it as is (jsonToCelValueAfter converts successive versions of an object, sharing
 * what they share). Limitation: JSON `1.0` arrives as the JS number 1 and becomes an int,
 * where Kubernetes would keep a double; integers beyond 2^53 have already lost precision in JSON.parse.
 */
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && converted.has(value)) return value;
  const result = convert(value, 0);
  if (typeof result === 'object' && result !== null) converted.add(result);
  return result;
}

/** One version of a JSON value with its CEL values, as jsonToCelValueAfter returns them. */
export interface ConvertedVersion {
  readonly json: unknown;
  readonly cel: unknown;
}

/**
 * convert, taking from `previous` (an earlier version of the same value and its conversion) every subtree the two
 * share at the same place: a walk of the new version alongside the old one.
 * Successive versions of an object being mutated share every part no mutation touched, at the place it was; a part
 * that moved (a list element shifted by an insert) is converted again, to the same values.
 */
function convertAfter(value: unknown, previous: unknown, previousCel: unknown, depth: number): unknown {
  if (value === previous && typeof value === 'object' && value !== null) return previousCel;
  if (typeof value === 'number') return celNumber(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= RECURSION_DEPTH || typeof previous !== 'object' || previous === null) return convert(value, depth);
  if (Array.isArray(value)) {
    if (!Array.isArray(previous)) return convert(value, depth);
    const before = previousCel as unknown[];
    const items = value as unknown[];
    const out = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      out[i] = typeof item === 'object' && item !== null && i < previous.length ? convertAfter(item, previous[i], before[i], depth + 1) : convert(item, depth + 1);
    }
    return out;
  }
  if (!isPlainObject(value) || Array.isArray(previous)) return convert(value, depth);
  const old = previous as Record<string, unknown>;
  const before = previousCel as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const field = value[key];
    // a JSON container is never an inherited member of Object.prototype, so `old[key]` needs no own-property test
    // here: it is the same object only where `old` holds it as its own field, and `before` has that key too
    setOwn(out, key, typeof field === 'object' && field !== null ? convertAfter(field, old[key], before[key], depth + 1) : typeof field === 'number' ? celNumber(field) : field);
  }
  return out;
}

/**
 * jsonToCelValue by difference: the CEL values of `json`, sharing with `previous` (the version converted before it,
 * whose `cel` this function or jsonToCelValue returned) the conversion of every subtree the two have in common at
 * the same place. Neither `json` nor `previous` is modified; the result shares containers with `previous.cel`.
 */
export function jsonToCelValueAfter(json: unknown, previous: ConvertedVersion | undefined): unknown {
  return previous === undefined ? convert(json, 0) : convertAfter(json, previous.json, previous.cel, 0);
}

/** convert, in place; iterative for the same reason. */
function convertInPlace(root: unknown): unknown {
  if (typeof root === 'number') return celNumber(root);
  if (typeof root !== 'object' || root === null) return root;
  const pending: object[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        if (typeof v === 'number') value[i] = celNumber(v);
        else if (typeof v === 'object' && v !== null) pending.push(v);
      }
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (typeof v === 'number') {
          const c = celNumber(v);
          if (c !== v) setOwn(value, key, c);
        } else if (typeof v === 'object' && v !== null) pending.push(v);
      }
    }
  }
  return root;
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

/** leafToJson's answer for a container, whose JSON is built from its entries. */
const CONTAINER: unique symbol = Symbol('container');

/** A leaf's JSON, or CONTAINER (no wrapper object per leaf: a result has many). */
function leafToJson(value: unknown): unknown {
  for (;;) {
    switch (typeof value) {
      case 'bigint':
        return Number(value);
      case 'object':
        break;
      default:
        return value;
    }
    if (value === null) return null;
    if (!(value instanceof CelOptional)) break;
    if (!value.hasValue()) return null;
    value = value.value();
  }
  if (value instanceof CelUint) return Number(value.value);
  if (value instanceof CelDuration) return formatDuration(value);
  if (value instanceof CelTimestamp) return formatTimestamp(value);
  if (value instanceof CelType) return value.name;
  if (value instanceof CelObject) return toStringValue(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return CONTAINER;
}

/**
 * A JSON-serializable copy of a CEL result: int and uint become numbers, maps objects, sets arrays, bytes
 * base64, timestamps RFC 3339 strings, durations `"<seconds>s"`, an optional its value (or null when empty).
 * Iterative, so that a result as deep as the objects it came from cannot overflow the call stack.
 */
export function celValueToJson(root: unknown): unknown {
  const tasks: Array<readonly [source: object, out: unknown[] | Record<string, unknown>]> = [];
  const jsonOf = (value: unknown): unknown => {
    const leaf = leafToJson(value);
    if (leaf !== CONTAINER) return leaf;
    let source = value as object;
    while (source instanceof CelOptional) source = source.value() as object;
    const out = Array.isArray(source) || source instanceof Set ? [] : {};
    tasks.push([source, out]);
    return out;
  };
  const result = jsonOf(root);
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    const [source, out] = task;
    if (Array.isArray(out)) {
      for (const item of source as Iterable<unknown>) out.push(jsonOf(item));
    } else {
      if (source instanceof Map) {
        for (const [key, v] of source as Map<unknown, unknown>) setOwn(out, key instanceof CelUint ? String(key.value) : String(key), jsonOf(v));
      } else {
        // for…in, not Object.entries: no pair per entry (a map value's only enumerable keys are its own)
        const entries = source as Record<string, unknown>;
        for (const key in entries) setOwn(out, key, jsonOf(entries[key]));
      }
    }
  }
  return result;
}
