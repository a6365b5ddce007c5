// The object between mutations as upstream holds it: as its Go type. After each mutation the MAP dispatcher has the
// patched object decoded into the kind's struct (patch/json_patch.go decodes strictly; the apply patcher converts
// back to the versioned object), and what follows reads it through runtime.DefaultUnstructuredConverter, which omits
// an empty `omitempty` field. Every map field of the built-in types is `omitempty` (k8s.io/api v0.36.3 has none
// without), so a map a mutation left empty or null — the labels after removing the last one, `data: {}` added by a
// patch — is absent for the next expression and the next JSON Patch, and in the object answered.
import { ownValue } from '../../json/own.js';
import { decodeTypes } from './decode-types.generated.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What pruning needs of a Go type, built once per type (not per request or per value): a list's and a map's element,
 * a struct's fields (and which are maps, dropped when empty), or a leaf (scalars, and types without a schema here).
 */
type PruneType =
  | { readonly t: 'leaf' }
  | { readonly t: 'list' | 'map'; readonly element: PruneType }
  | { readonly t: 'struct'; readonly fields: ReadonlyMap<string, PruneField> };

interface PruneField {
  readonly type: PruneType;
  /** a map field: omitted when empty or null */
  readonly map: boolean;
}

const leaf: PruneType = { t: 'leaf' };
const pruneTypes = new Map<string, PruneType>();

/** The schema type a Go type name leads to through pointers, lists and maps (undefined: a scalar). */
function structOf(type: string): string | undefined {
  let t = type;
  for (;;) {
    if (t.startsWith('*')) t = t.slice(1);
    if (t.startsWith('[]')) t = t.slice(2);
    else if (t.startsWith('map[')) t = t.slice(t.indexOf(']') + 1);
    else return Object.hasOwn(decodeTypes().types, t) ? t : undefined;
  }
}

let holdingMaps: ReadonlySet<string> | undefined;

/**
 * The schema types whose values can hold a map field at some depth (their own, or one of a struct reached through
 * pointers, lists and maps): the only ones pruning has anything to drop in. The others — a probe, an env var, a
 * security context — are not walked at all. Computed once for the process, to a fixpoint (types may be recursive).
 */
function typesHoldingMaps(): ReadonlySet<string> {
  if (holdingMaps !== undefined) return holdingMaps;
  const types = decodeTypes().types;
  const holding = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, type] of Object.entries(types)) {
      if (holding.has(name)) continue;
      if (Object.values(type.fields).some((f) => f.type.startsWith('map[') || holding.has(structOf(f.type) ?? ''))) {
        holding.add(name);
        changed = true;
      }
    }
  }
  return (holdingMaps = holding);
}

/** The PruneType of a Go type name (`*T`, `[]T`, `map[string]T`, a schema name, or a scalar). */
function pruneType(type: string): PruneType {
  const t = type.startsWith('*') ? type.slice(1) : type;
  let known = pruneTypes.get(t);
  if (known !== undefined) return known;
  // a value that cannot hold a map field has nothing to prune: a leaf, never walked
  const inner = structOf(t);
  if (inner === undefined || !typesHoldingMaps().has(inner)) known = leaf;
  else if (t.startsWith('[]')) known = { t: 'list', element: pruneType(t.slice(2)) };
  else if (t.startsWith('map[')) known = { t: 'map', element: pruneType(t.slice(t.indexOf(']') + 1)) };
  else if (Object.hasOwn(decodeTypes().types, t)) {
    // registered before its fields, which may lead back to it (recursive types)
    const fields = new Map<string, PruneField>();
    known = { t: 'struct', fields };
    pruneTypes.set(t, known);
    for (const [name, field] of Object.entries(decodeTypes().types[t]!.fields)) {
      fields.set(name, { type: pruneType(field.type), map: field.type.startsWith('map[') });
    }
  } else known = leaf;
  pruneTypes.set(t, known);
  return known;
}

/**
 * Subtrees already known to hold no empty map field, with the Go type they were pruned as. Successive versions of a
 * request's object share every part no mutation touched (values are never changed in place), so with this only the
 * parts a mutation built are walked again.
 */
export type PrunedSubtrees = WeakMap<object, PruneType>;

/**
 * `object` (of `apiVersion`/`kind`) without empty or null map fields, sharing every unchanged part; the same value
 * when nothing is dropped, or the kind has no Go type here (custom resources stay as sent: unstructured upstream).
 */
export function withoutEmptyMaps(object: unknown, apiVersion: string, kind: string, pruned: PrunedSubtrees = new WeakMap()): unknown {
  const root = ownValue(decodeTypes().roots, `${apiVersion} ${kind}`);
  if (root === undefined || !isObject(object)) return object;
  return prune(object, pruneType(root), pruned);
}

/** `value` of Go type `type` with its empty maps dropped. */
function prune(value: Json, type: PruneType, pruned: PrunedSubtrees): Json {
  if (typeof value !== 'object' || value === null || type.t === 'leaf') return value;
  if (pruned.get(value) === type) return value;
  const out = pruneContainer(value, type, pruned);
  if (typeof out === 'object' && out !== null) pruned.set(out, type);
  return out;
}

function pruneContainer(value: Json[] | { [key: string]: Json }, type: Exclude<PruneType, { t: 'leaf' }>, pruned: PrunedSubtrees): Json {
  if (type.t === 'list') {
    if (!Array.isArray(value)) return value;
    let out: Json[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      const p = prune(item, type.element, pruned);
      if (p !== item) (out ??= [...value])[i] = p;
    }
    return out ?? value;
  }
  if (!isObject(value)) return value;
  let out: Record<string, Json> | undefined;
  // for…in, not Object.keys: no array per object (a JSON object has no enumerable inherited keys)
  for (const k in value) {
    const v = value[k]!;
    const field = type.t === 'struct' ? type.fields.get(k) : undefined;
    const element = type.t === 'struct' ? field?.type : type.element;
    const p = element === undefined ? v : prune(v, element, pruned);
    if (field?.map === true && (p === null || (isObject(p) && isEmpty(p)))) {
      out ??= { ...value };
      delete out[k];
    } else if (p !== v) {
      out ??= { ...value };
      Object.defineProperty(out, k, { value: p, enumerable: true, writable: true, configurable: true });
    }
  }
  return out ?? value;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
