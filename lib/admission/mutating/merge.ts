// Server-side-apply merge of an ApplyConfiguration into the object, as MutatingAdmissionPolicy does it
// (S/admission/plugin/policy/mutating/patch/smd.go ApplyStructuredMergeDiff: ObjectToTyped on the patch, the
// atomic check, then structured-merge-diff typed.Merge). Without field ownership the merge only adds and replaces:
// maps and structs are merged key by key, lists by their listType (`atomic` replaced, `set` unioned, `map` merged
// element by element on their listMapKey, the live order kept and new elements appended in applied order), scalars
// and atomic values replaced. A field is removed only where the applied value is null on a scalar.
import { ownValue, setOwn, stringifyJson } from '../../json/index.js';
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

type ListShape = Extract<FieldShape, { t: 'l' }>;

/** The schema's default of an associative list's key field. */
function defaultOf(shape: ListShape, key: string): unknown {
  return shape.d === undefined ? undefined : ownValue(shape.d, key);
}

/** fieldpath's rendering of a list element of an associative list: `[name="x",protocol="TCP"]`. */
function keyPathElement(shape: ListShape, item: unknown): string {
  const keys = shape.k ?? [];
  const values = keys.map((k) => {
    const v = isObject(item) && Object.hasOwn(item, k) ? item[k] : defaultOf(shape, k);
    return `${k}=${stringifyJson(v)}`;
  });
  return `[${values.join(',')}]`;
}

/**
 * The identity of an associative-list element: its key fields (defaults for omitted ones), as a string that only
 * the same key values give. Keys that are all strings (names, mostly) are written length-prefixed after a NUL, which
 * no JSON text (the other keys, and mergeLists' fallback for an element without its key) starts with.
 */
function elementKey(shape: ListShape, item: unknown): string | undefined {
  const keys = shape.k ?? [];
  const parts: unknown[] = [];
  let strings = true;
  for (const k of keys) {
    const v = isObject(item) && Object.hasOwn(item, k) && item[k] !== null ? item[k] : defaultOf(shape, k);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') strings = false;
    parts.push(v);
  }
  if (!strings) return stringifyJson(parts);
  let key = '\u0000';
  for (const part of parts as string[]) key += `${part.length}:${part}`;
  return key;
}

function pathElement(shape: ListShape, index: number, item: unknown): string {
  if (shape.lt === 'map') return keyPathElement(shape, item);
  if (shape.lt === 'set') return `[=${stringifyJson(item)}]`;
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
export function schemaErrors(shape: Shape, value: unknown): string[] {
  return schemaFits(shape, value) ? [] : collectSchemaErrors(shape, value, '');
}

/**
 * Whether collectSchemaErrors finds nothing, checked without the sorted keys and the paths its messages need: the
 * common case, an apply configuration that fits its schema, costs one walk without building a string per field.
 */
function schemaFits(shape: Shape, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm' || shape.t === 'u')) {
    for (const key of Object.keys(value)) {
      const child = fieldShape(shape, key);
      if (child === undefined) {
        if (declaresFields(shape)) return false;
        continue;
      }
      if (!schemaFits(child, value[key])) return false;
    }
  } else if (Array.isArray(value) && shape.t === 'l') {
    // duplicates are told by the path element, as collectSchemaErrors tells them
    const seen = shape.lt === 'map' || shape.lt === 'set' ? new Set<string>() : undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (shape.lt === 'map' && elementKey(shape, item) === undefined) return false;
      if (seen !== undefined) {
        const element = pathElement(shape, i, item);
        if (seen.has(element)) return false;
        seen.add(element);
      }
      if (!schemaFits(shape.e, item)) return false;
    }
  }
  return true;
}

function collectSchemaErrors(shape: Shape, value: unknown, path: string): string[] {
  if (value === null || value === undefined) return [];
  const errors: string[] = [];
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm' || shape.t === 'u')) {
    for (const key of Object.keys(value).sort()) {
      const child = fieldShape(shape, key);
      if (child === undefined) {
        if (declaresFields(shape)) errors.push(`${path}.${key}: field not declared in schema`);
        continue;
      }
      errors.push(...collectSchemaErrors(child, value[key], `${path}.${key}`));
    }
  } else if (Array.isArray(value) && shape.t === 'l') {
    // an apply configuration is converted without typed.AllowDuplicates (patch/smd.go): a key or set value twice is
    // an error (structured-merge-diff v6 typed/validate.go visitListItems)
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (shape.lt === 'map' && elementKey(shape, item) === undefined) {
        const missing = (shape.k ?? []).find((k) => !(isObject(item) && Object.hasOwn(item, k)) && defaultOf(shape, k) === undefined) ?? '';
        errors.push(`${path}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(missing)} (and doesn't have default value)`);
        return;
      }
      const element = pathElement(shape, i, item);
      if (shape.lt === 'map' || shape.lt === 'set') {
        if (seen.has(element)) errors.push(`${path}: duplicate entries for key ${element}`);
        seen.add(element);
      }
      errors.push(...collectSchemaErrors(shape.e, item, `${path}${element}`));
    });
  }
  return errors;
}

/**
 * validatePatch's findAtomics: the paths of atomic lists, maps and structs an apply configuration sets (`.spec.selector`,
 * `.spec.initContainers[0].args`). Upstream refuses such a configuration, so that a field left out of an atomic value
 * is never removed by accident.
 */
export function atomicPaths(shape: Shape, value: unknown): string[] {
  return setsAtomic(shape, value) ? collectAtomicPaths(shape, value, '') : [];
}

/** Whether collectAtomicPaths finds any, without building the paths (the common case: none). */
function setsAtomic(shape: Shape, value: unknown): boolean {
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm')) {
    if (isAtomicMap(shape)) return true;
    if (shape.t !== 'o') return false;
    const fields = structSchema(shape.n)?.fields ?? {};
    for (const key of Object.keys(value)) {
      const fs = ownValue(fields, key);
      if (fs !== undefined && setsAtomic(fs, value[key])) return true;
    }
    return false;
  }
  if (isObject(value) && shape.t === 'u') return 'metadata' in value && setsAtomic(fieldShape(shape, 'metadata')!, value['metadata']);
  if (Array.isArray(value) && shape.t === 'l') {
    if (shape.lt === 'atomic') return true;
    for (const item of value) if (setsAtomic(shape.e, item)) return true;
  }
  return false;
}

function collectAtomicPaths(shape: Shape, value: unknown, path: string): string[] {
  const found: string[] = [];
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm')) {
    if (isAtomicMap(shape)) found.push(path);
    // upstream descends into declared struct fields only, not into map values
    if (shape.t === 'o') {
      const fields = structSchema(shape.n)?.fields ?? {};
      for (const [key, child] of Object.entries(value)) {
        const fs = ownValue(fields, key);
        if (fs !== undefined) found.push(...collectAtomicPaths(fs, child, `${path}.${key}`));
      }
    }
  } else if (isObject(value) && shape.t === 'u') {
    // an unknown kind: only metadata has a schema
    if ('metadata' in value) found.push(...collectAtomicPaths(fieldShape(shape, 'metadata')!, value['metadata'], `${path}.metadata`));
  } else if (Array.isArray(value) && shape.t === 'l') {
    if (shape.lt === 'atomic') found.push(path);
    value.forEach((item, i) => found.push(...collectAtomicPaths(shape.e, item, `${path}[${i}]`)));
  }
  return found;
}

// The merge keeps an explicit stack of the maps and lists being merged: a live object and an applied one can overlap
// as deep as objects go (10,000 levels), deeper than recursion can follow on the main thread.

/** One child to merge: its map key (maps only) and what to merge; `as is` when the value is taken unchanged. */
type MergeJob = { readonly key?: string } & ({ readonly shape: Shape; readonly lhs: unknown; readonly rhs: unknown } | { readonly asIs: unknown });

/** A map or list being merged: the children's results, in order, become the merged container. */
interface MergeFrame {
  readonly list: boolean;
  readonly jobs: readonly MergeJob[];
  readonly results: unknown[];
  /** the live map or list (undefined: none) */
  readonly live: JsonObject | unknown[] | undefined;
}

type MergeStep = { readonly value: unknown } | { readonly frame: MergeFrame };

const frame = (list: boolean, jobs: MergeJob[], live: JsonObject | unknown[] | undefined): MergeStep => ({ frame: { list, jobs, results: [], live } });

/**
 * A map's merge: a job for each key the configuration sets, live keys first in their order, then new keys in the
 * configuration's order. A field the configuration does not set keeps its live value (mergeStep's first case):
 * finishMap takes those from the live map, so the many fields an apply configuration leaves alone cost no job.
 */
function mergeMaps(shape: Shape, lhs: unknown, rhs: JsonObject): MergeStep {
  const live = isObject(lhs) ? lhs : undefined;
  if (isEmpty(live) && isEmpty(rhs)) return { value: rhs };
  const jobs: MergeJob[] = [];
  if (live !== undefined) {
    for (const key in live) {
      if (Object.hasOwn(rhs, key) && rhs[key] !== undefined) jobs.push({ key, shape: fieldShape(shape, key) ?? deduced, lhs: live[key], rhs: rhs[key] });
    }
  }
  for (const key in rhs) {
    if (live !== undefined && Object.hasOwn(live, key)) continue;
    jobs.push({ key, shape: fieldShape(shape, key) ?? deduced, lhs: undefined, rhs: rhs[key] });
  }
  return frame(false, jobs, live);
}

function mergeLists(shape: ListShape, lhs: unknown, rhs: unknown[]): MergeStep {
  const live = Array.isArray(lhs) ? (lhs as unknown[]) : [];
  if (live.length === 0 && rhs.length === 0) return { value: rhs };
  if (shape.lt === 'set') {
    const seen = new Set(live.map((v) => stringifyJson(v)));
    const out = [...live];
    for (const v of rhs) {
      const k = stringifyJson(v);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(v);
      }
    }
    return { value: out };
  }
  // listType=map: the live order, each element merged with the applied one of the same key, then new keys
  const applied = new Map<string, unknown>();
  const appliedOrder: string[] = [];
  for (const item of rhs) {
    const k = elementKey(shape, item) ?? stringifyJson(item);
    if (!applied.has(k)) appliedOrder.push(k);
    applied.set(k, item);
  }
  const jobs: MergeJob[] = [];
  const liveKeys = new Set<string>();
  for (const item of live) {
    const k = elementKey(shape, item) ?? stringifyJson(item);
    if (liveKeys.has(k)) {
      // a duplicate the apply touches is merged into the first one; an untouched duplicate stays
      if (!applied.has(k)) jobs.push({ asIs: item });
      continue;
    }
    liveKeys.add(k);
    jobs.push(applied.has(k) ? { shape: shape.e, lhs: item, rhs: applied.get(k) } : { asIs: item });
  }
  for (const k of appliedOrder) {
    if (!liveKeys.has(k)) jobs.push({ shape: shape.e, lhs: undefined, rhs: applied.get(k) });
  }
  return frame(true, jobs, Array.isArray(lhs) ? (lhs as unknown[]) : undefined);
}

/** One step of the merge: the merged value, or the map or list whose children must be merged first. */
function mergeStep(shape: Shape, lhs: unknown, rhs: unknown): MergeStep {
  if (rhs === undefined) return { value: lhs };
  if (rhs === null) {
    // null unsets a scalar; a null struct, map or list leaves the live value alone
    return { value: shape.t === 'o' || shape.t === 'm' || shape.t === 'l' || shape.t === 'u' ? lhs : undefined };
  }
  switch (shape.t) {
    case 'o':
    case 'm':
    case 'u':
      if (!isObject(rhs) || isAtomicMap(shape)) return { value: rhs };
      return mergeMaps(shape, lhs, rhs);
    case 'd':
      // no schema: maps merged, lists and scalars replaced
      return isObject(rhs) && isObject(lhs) ? mergeMaps(shape, lhs, rhs) : { value: rhs };
    case 'l':
      if (!Array.isArray(rhs) || shape.lt === 'atomic') return { value: rhs };
      return mergeLists(shape, lhs, rhs);
    default:
      return { value: rhs };
  }
}

/**
 * Whether the merge left the live list as it was: the same elements, in the same places. It is then the result
 * itself, so a configuration that changes nothing changes no value's identity (the request's memos of CEL values,
 * pruning, defaulting and decoding, keyed by identity, keep holding).
 */
function listUnchanged(f: MergeFrame): boolean {
  const list = f.live as unknown[] | undefined;
  if (list === undefined || list.length !== f.results.length) return false;
  for (let i = 0; i < list.length; i++) if (f.results[i] !== list[i]) return false;
  return true;
}

/**
 * The merged map: the live keys in their order (merged where the configuration sets them, else as they were), then
 * the new keys; absent values left out, and an empty result absent itself. The live map itself when every key kept
 * its value and none was added or dropped (see listUnchanged).
 */
function finishMap(f: MergeFrame): unknown {
  const live = f.live as JsonObject | undefined;
  const out: JsonObject = {};
  let count = 0;
  let changed = false;
  let j = 0;
  if (live !== undefined) {
    for (const key in live) {
      let value = live[key];
      if (j < f.jobs.length && f.jobs[j]!.key === key) {
        const merged = f.results[j++];
        if (merged !== value) changed = true;
        value = merged;
      }
      if (value === undefined) continue;
      setOwn(out, key, value);
      count++;
    }
  }
  for (; j < f.jobs.length; j++) {
    const value = f.results[j];
    if (value === undefined) continue;
    setOwn(out, f.jobs[j]!.key!, value);
    count++;
    changed = true;
  }
  if (count === 0) return undefined;
  return changed ? out : live;
}

/** The merged container: absent children left out, and an empty result absent itself. */
function finish(f: MergeFrame): unknown {
  if (!f.list) return finishMap(f);
  if (listUnchanged(f)) return f.live;
  const out = f.results.filter((v) => v !== undefined);
  return out.length > 0 ? out : undefined;
}

/** Merges the applied value into the live one (undefined: absent). Neither input is modified. */
export function mergeValue(shape: Shape, lhs: unknown, rhs: unknown): unknown {
  const first = mergeStep(shape, lhs, rhs);
  if ('value' in first) return first.value;
  const stack: MergeFrame[] = [first.frame];
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.results.length < f.jobs.length) {
      const job = f.jobs[f.results.length]!;
      if ('asIs' in job) {
        f.results.push(job.asIs);
        continue;
      }
      const next = mergeStep(job.shape, job.lhs, job.rhs);
      if ('value' in next) f.results.push(next.value);
      else stack.push(next.frame);
      continue;
    }
    stack.pop();
    const merged = finish(f);
    if (stack.length === 0) return merged;
    stack[stack.length - 1]!.results.push(merged);
  }
}
