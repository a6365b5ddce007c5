// The object between mutations as upstream holds it: as its Go type. After each mutation the MAP dispatcher has the
// patched object decoded into the kind's struct (patch/json_patch.go decodes strictly; the apply patcher converts
// back to the versioned object), and what follows reads it through runtime.DefaultUnstructuredConverter, which omits
// an empty `omitempty` field. Every map field of the built-in types is `omitempty` (k8s.io/api v0.36.3 has none
// without), so a map a mutation left empty or null — the labels after removing the last one, `data: {}` added by a
// patch — is absent for the next expression and the next JSON Patch, and in the object answered.
import { decodeTypes } from './decode-types.generated.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Subtrees already known to hold no empty map field, with the Go type they were pruned as. Successive versions of a
 * request's object share every part no mutation touched (values are never changed in place), so with this only the
 * parts a mutation built are walked again.
 */
export type PrunedSubtrees = WeakMap<object, string>;

/**
 * `object` (of `apiVersion`/`kind`) without empty or null map fields, sharing every unchanged part; the same value
 * when nothing is dropped, or the kind has no Go type here (custom resources stay as sent: unstructured upstream).
 */
export function withoutEmptyMaps(object: unknown, apiVersion: string, kind: string, pruned: PrunedSubtrees = new WeakMap()): unknown {
  const root = decodeTypes().roots[`${apiVersion} ${kind}`];
  if (root === undefined || !isObject(object)) return object;
  return prune(object, root, pruned);
}

/** `value` of Go type `type` (`*T`, `[]T`, `map[string]T`, a schema name, or a scalar) with its empty maps dropped. */
function prune(value: Json, type: string, pruned: PrunedSubtrees): Json {
  if (typeof value !== 'object' || value === null) return value;
  if (pruned.get(value) === type) return value;
  const out = pruneContainer(value, type, pruned);
  if (typeof out === 'object' && out !== null) pruned.set(out, type);
  return out;
}

function pruneContainer(value: Json[] | { [key: string]: Json }, type: string, pruned: PrunedSubtrees): Json {
  const t = type.startsWith('*') ? type.slice(1) : type;
  if (t.startsWith('[]')) {
    if (!Array.isArray(value)) return value;
    let out: Json[] | undefined;
    const element = t.slice(2);
    value.forEach((item, i) => {
      const p = prune(item, element, pruned);
      if (p !== item) (out ??= [...value])[i] = p;
    });
    return out ?? value;
  }
  if (t.startsWith('map[')) {
    if (!isObject(value)) return value;
    const element = t.slice(t.indexOf(']') + 1);
    return pruneEntries(value, () => element, () => false, pruned);
  }
  const struct = decodeTypes().types[t];
  if (struct === undefined || !isObject(value)) return value;
  return pruneEntries(value, (k) => struct.fields[k]?.type, (k, v) => {
    const fieldType = struct.fields[k]?.type ?? '';
    return fieldType.startsWith('map[') && (v === null || (isObject(v) && Object.keys(v).length === 0));
  }, pruned);
}

function pruneEntries(value: Record<string, Json>, typeOf: (key: string) => string | undefined, dropped: (key: string, v: Json) => boolean, pruned: PrunedSubtrees): Record<string, Json> {
  let out: Record<string, Json> | undefined;
  for (const k of Object.keys(value)) {
    const v = value[k]!;
    const type = typeOf(k);
    const p = type === undefined ? v : prune(v, type, pruned);
    if (dropped(k, p)) {
      out ??= { ...value };
      delete out[k];
    } else if (p !== v) {
      out ??= { ...value };
      Object.defineProperty(out, k, { value: p, enumerable: true, writable: true, configurable: true });
    }
  }
  return out ?? value;
}
