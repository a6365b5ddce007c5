// Attribute access as cel-go qualifies attributes (interpreter/attributes.go refQualify, resolutionError;
// common/types/list.go IndexOrError): field selection, indexing and presence tests, their optional forms, and
// their errors (`no such key: k`, `index out of bounds: 5`, `unsupported index type 'string' in list`).

import { mapGet } from './compare.js';
import type { CelMap } from './compare.js';
import { TWO_63, formatDouble, goValueText } from './numbers.js';
import { CelObject, CelOptional, CelRuntimeError, CelUint, MAX_INT64, celError, isMap, isPlainObject, ownValue, typeName } from './values.js';

/** A key or index as cel-go's messages print it (`%v`). */
export const keyText = goValueText;

/** interpreter/attributes.go resolutionError: a missing map key, or a qualifier on a value without fields. */
function noSuchKey(key: unknown): CelRuntimeError {
  return celError(`no such key: ${keyText(key)}`);
}

/**
 * types.IndexOrError (common/types/list.go): a list index as an int, or its error: an int, a whole double or a
 * uint within int64 are indexes; another double or uint is `unsupported index value`, another type
 * `unsupported index type`.
 */
function indexOrError(i: unknown): bigint {
  if (typeof i === 'bigint') return i;
  if (typeof i === 'number') {
    if (Number.isInteger(i) && i > -TWO_63 && i < TWO_63) return BigInt(i);
    throw celError(`unsupported index value ${formatDouble(i)} in list`);
  }
  if (i instanceof CelUint) {
    if (i.value <= MAX_INT64) return i.value;
    throw celError(`unsupported index value ${i.value} in list`);
  }
  throw celError(`unsupported index type '${typeName(i)}' in list`);
}

/**
 * The value of field `f` of a map (or message-like object); throws `no such key` when absent, or when the value
 * has no fields at all (refQualify, interpreter/attributes.go); a list reads `f` as an index.
 */
export function selectField(v: unknown, f: string): unknown {
  if (typeof v === 'object' && v !== null) {
    const ctor = (v as { constructor?: unknown }).constructor;
    if (ctor === Object || ctor === undefined) {
      const r = ownValue(v as Record<string, unknown>, f);
      if (r === undefined) throw noSuchKey(f);
      return r;
    }
    if (v instanceof Map) {
      const r = mapGet(v, f);
      if (r === undefined) throw noSuchKey(f);
      return r;
    }
    if (v instanceof CelOptional) return optionalSelect(v, f, false);
    if (isPlainObject(v)) {
      const r = ownValue(v, f);
      if (r === undefined) throw noSuchKey(f);
      return r;
    }
    if (v instanceof CelObject) {
      const r = (v as CelObject & { field?: (name: string) => unknown }).field?.(f);
      if (r !== undefined) return r;
      throw noSuchKey(f);
    }
  }
  if (Array.isArray(v)) indexOrError(f);
  throw noSuchKey(f);
}

/**
 * `x.?f`, and `x.f` on an optional x: optional of the field, none when absent or x is none. `x.?f` tests presence
 * (refQualify): a value without fields gives none, where `x.f` is `no such key`; a list reads `f` as an index.
 */
export function optionalSelect(v: unknown, f: string, presence = true): CelOptional {
  if (v instanceof CelOptional) {
    if (!v.hasValue()) return v;
    v = v.value();
  }
  if (isMap(v)) {
    const r = mapGet(v as CelMap, f);
    return r === undefined ? CelOptional.NONE : CelOptional.of(r);
  }
  if (!presence) return CelOptional.of(selectField(v, f));
  if (Array.isArray(v)) indexOrError(f);
  if (v instanceof CelObject) {
    const r = (v as CelObject & { field?: (name: string) => unknown }).field?.(f);
    return r === undefined ? CelOptional.NONE : CelOptional.of(r);
  }
  return CelOptional.NONE;
}

/**
 * presence test of has(x.f): false for a value without fields (null…), as cel-go's presence-test qualifier; on a
 * list, the field name is still an index of the wrong type (refQualify).
 */
export function hasField(v: unknown, f: string): boolean {
  if (v instanceof CelOptional) {
    if (!v.hasValue()) return false;
    v = v.value();
  }
  if (isMap(v)) return mapGet(v as CelMap, f) !== undefined;
  if (Array.isArray(v)) indexOrError(f);
  if (v instanceof CelObject) return (v as CelObject & { field?: (name: string) => unknown }).field?.(f) !== undefined;
  return false;
}

/** A list index: `index out of bounds: <index as written>` outside the list (attributes.go missingIndex). */
function listIndex(list: readonly unknown[], i: unknown): number {
  const n = indexOrError(i);
  if (n < 0n || n >= BigInt(list.length)) throw celError(`index out of bounds: ${keyText(i)}`);
  return Number(n);
}

/** `x[k]`: as cel-go qualifies an attribute (refQualify): a value that is not a container has no keys. */
export function index(v: unknown, k: unknown): unknown {
  if (Array.isArray(v)) return v[listIndex(v, k)];
  if (isMap(v)) {
    const r = mapGet(v as CelMap, k);
    if (r === undefined) throw noSuchKey(k);
    return r;
  }
  if (v instanceof CelOptional) return optionalIndex(v, k, false);
  throw noSuchKey(k);
}

/** `x[?k]`, and `x[k]` on an optional x (which, on a value without keys, is `no such key` rather than none) */
export function optionalIndex(v: unknown, k: unknown, presence = true): CelOptional {
  if (v instanceof CelOptional) {
    if (!v.hasValue()) return v;
    v = v.value();
  }
  if (Array.isArray(v)) {
    const n = indexOrError(k);
    return n >= 0n && n < BigInt(v.length) ? CelOptional.of(v[Number(n)]) : CelOptional.NONE;
  }
  if (isMap(v)) {
    const r = mapGet(v as CelMap, k);
    return r === undefined ? CelOptional.NONE : CelOptional.of(r);
  }
  if (!presence) throw noSuchKey(k);
  return CelOptional.NONE;
}
