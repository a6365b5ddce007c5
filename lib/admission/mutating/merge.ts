// Server-side-apply merge of an ApplyConfiguration into the object, as MutatingAdmissionPolicy does it
// (S/admission/plugin/policy/mutating/patch/smd.go ApplyStructuredMergeDiff: ObjectToTyped on the patch, the
// atomic check, then structured-merge-diff typed.Merge). Without field ownership the merge only adds and replaces:
// maps and structs are merged key by key, lists by their listType (`atomic` replaced, `set` unioned, `map` merged
// element by element on their listMapKey, the live order kept and new elements appended in applied order), scalars
// and atomic values replaced. A field is removed only where the applied value is null on a scalar.
import { declaresFields, deduced, fieldShape, isAtomicMap, structSchema } from './schema.js';
import type { FieldShape, Shape } from './schema.js';

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function setOwn(target: JsonObject, key: string, value: unknown): void {
  // a JSON key "__proto__" is data
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type ListShape = Extract<FieldShape, { t: 'l' }>;

/** fieldpath's rendering of a list element of an associative list: `[name="x",protocol="TCP"]`. */
function keyPathElement(shape: ListShape, item: unknown): string {
  const keys = shape.k ?? [];
  const values = keys.map((k) => {
    const v = isObject(item) && k in item ? item[k] : shape.d?.[k];
    return `${k}=${JSON.stringify(v)}`;
  });
  return `[${values.join(',')}]`;
}

/** The identity of an associative-list element: its key fields (defaults for omitted ones). */
function elementKey(shape: ListShape, item: unknown): string | undefined {
  const keys = shape.k ?? [];
  const parts: unknown[] = [];
  for (const k of keys) {
    const v = isObject(item) && k in item && item[k] !== null ? item[k] : shape.d?.[k];
    if (v === undefined) return undefined;
    parts.push(v);
  }
  return JSON.stringify(parts);
}

function pathElement(shape: ListShape, index: number, item: unknown): string {
  if (shape.lt === 'map') return keyPathElement(shape, item);
  if (shape.lt === 'set') return `[=${JSON.stringify(item)}]`;
  return `[${index}]`;
}

/** utilerrors / ValidationErrors rendering: one error alone, several under `errors:`. */
export function joinValidationErrors(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0]! : ['errors:', ...errors.map((e) => `  ${e}`)].join('\n');
}

/**
 * What ObjectToTyped reports for an apply configuration: fields its schema does not declare, and associative-list
 * elements without their key. Paths as structured-merge-diff prints them (`.spec.replicasx`).
 */
export function schemaErrors(shape: Shape, value: unknown, path = ''): string[] {
  if (value === null || value === undefined) return [];
  const errors: string[] = [];
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm' || shape.t === 'u')) {
    for (const key of Object.keys(value).sort()) {
      const child = fieldShape(shape, key);
      if (child === undefined) {
        if (declaresFields(shape)) errors.push(`${path}.${key}: field not declared in schema`);
        continue;
      }
      errors.push(...schemaErrors(child, value[key], `${path}.${key}`));
    }
  } else if (Array.isArray(value) && shape.t === 'l') {
    value.forEach((item, i) => {
      if (shape.lt === 'map' && elementKey(shape, item) === undefined) {
        const missing = (shape.k ?? []).find((k) => !(isObject(item) && k in item) && shape.d?.[k] === undefined) ?? '';
        errors.push(`${path}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(missing)} (and doesn't have default value)`);
        return;
      }
      errors.push(...schemaErrors(shape.e, item, `${path}${pathElement(shape, i, item)}`));
    });
  }
  return errors;
}

/**
 * validatePatch's findAtomics: the paths of atomic lists, maps and structs an apply configuration sets (`.spec.selector`,
 * `.spec.initContainers[0].args`). Upstream refuses such a configuration, so that a field left out of an atomic value
 * is never removed by accident.
 */
export function atomicPaths(shape: Shape, value: unknown, path = ''): string[] {
  const found: string[] = [];
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm')) {
    if (isAtomicMap(shape)) found.push(path);
    // upstream descends into declared struct fields only, not into map values
    if (shape.t === 'o') {
      const fields = structSchema(shape.n)?.fields ?? {};
      for (const [key, child] of Object.entries(value)) {
        const fs = fields[key];
        if (fs !== undefined) found.push(...atomicPaths(fs, child, `${path}.${key}`));
      }
    }
  } else if (isObject(value) && shape.t === 'u') {
    // an unknown kind: only metadata has a schema
    if ('metadata' in value) found.push(...atomicPaths(fieldShape(shape, 'metadata')!, value['metadata'], `${path}.metadata`));
  } else if (Array.isArray(value) && shape.t === 'l') {
    if (shape.lt === 'atomic') found.push(path);
    value.forEach((item, i) => found.push(...atomicPaths(shape.e, item, `${path}[${i}]`)));
  }
  return found;
}

function mergeMaps(shape: Shape, lhs: unknown, rhs: JsonObject): unknown {
  const live = isObject(lhs) ? lhs : undefined;
  if (isEmpty(live) && isEmpty(rhs)) return rhs;
  const out: JsonObject = {};
  if (live !== undefined) {
    for (const key of Object.keys(live)) {
      const merged = mergeValue(fieldShape(shape, key) ?? deduced, live[key], Object.hasOwn(rhs, key) ? rhs[key] : undefined);
      if (merged !== undefined) setOwn(out, key, merged);
    }
  }
  for (const key of Object.keys(rhs)) {
    if (live !== undefined && Object.hasOwn(live, key)) continue;
    const merged = mergeValue(fieldShape(shape, key) ?? deduced, undefined, rhs[key]);
    if (merged !== undefined) setOwn(out, key, merged);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function mergeLists(shape: ListShape, lhs: unknown, rhs: unknown[]): unknown {
  const live = Array.isArray(lhs) ? (lhs as unknown[]) : [];
  if (live.length === 0 && rhs.length === 0) return rhs;
  if (shape.lt === 'set') {
    const seen = new Set(live.map((v) => JSON.stringify(v)));
    const out = [...live];
    for (const v of rhs) {
      const k = JSON.stringify(v);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(v);
      }
    }
    return out;
  }
  // listType=map: the live order, each element merged with the applied one of the same key, then new keys
  const applied = new Map<string, unknown>();
  const appliedOrder: string[] = [];
  for (const item of rhs) {
    const k = elementKey(shape, item) ?? JSON.stringify(item);
    if (!applied.has(k)) appliedOrder.push(k);
    applied.set(k, item);
  }
  const out: unknown[] = [];
  const liveKeys = new Set<string>();
  for (const item of live) {
    const k = elementKey(shape, item) ?? JSON.stringify(item);
    if (liveKeys.has(k)) {
      // a duplicate the apply touches is merged into the first one; an untouched duplicate stays
      if (!applied.has(k)) out.push(item);
      continue;
    }
    liveKeys.add(k);
    const merged = applied.has(k) ? mergeValue(shape.e, item, applied.get(k)) : item;
    if (merged !== undefined) out.push(merged);
  }
  for (const k of appliedOrder) {
    if (liveKeys.has(k)) continue;
    const merged = mergeValue(shape.e, undefined, applied.get(k));
    if (merged !== undefined) out.push(merged);
  }
  return out.length > 0 ? out : undefined;
}

/** Merges the applied value into the live one (undefined: absent). Neither input is modified. */
export function mergeValue(shape: Shape, lhs: unknown, rhs: unknown): unknown {
  if (rhs === undefined) return lhs;
  if (rhs === null) {
    // null unsets a scalar; a null struct, map or list leaves the live value alone
    return shape.t === 'o' || shape.t === 'm' || shape.t === 'l' || shape.t === 'u' ? lhs : undefined;
  }
  switch (shape.t) {
    case 'o':
    case 'm':
    case 'u':
      if (!isObject(rhs) || isAtomicMap(shape)) return rhs;
      return mergeMaps(shape, lhs, rhs);
    case 'd':
      // no schema: maps merged, lists and scalars replaced
      return isObject(rhs) && isObject(lhs) ? mergeMaps(shape, lhs, rhs) : rhs;
    case 'l':
      if (!Array.isArray(rhs) || shape.lt === 'atomic') return rhs;
      return mergeLists(shape, lhs, rhs);
    default:
      return rhs;
  }
}
