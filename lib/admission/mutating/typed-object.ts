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
 * `object` (of `apiVersion`/`kind`) without empty or null map fields, sharing every unchanged part; the same value
 * when nothing is dropped, or the kind has no Go type here (custom resources stay as sent: unstructured upstream).
 */
export function withoutEmptyMaps(object: unknown, apiVersion: string, kind: string): unknown {
  const root = decodeTypes().roots[`${apiVersion} ${kind}`];
  if (root === undefined || !isObject(object)) return object;
  return prune(object, root);
}

/** `value` of Go type `type` (`*T`, `[]T`, `map[string]T`, a schema name, or a scalar) with its empty maps dropped. */
function prune(value: Json, type: string): Json {
  const t = type.startsWith('*') ? type.slice(1) : type;
  if (t.startsWith('[]')) {
    if (!Array.isArray(value)) return value;
    let out: Json[] | undefined;
    value.forEach((item, i) => {
      const pruned = prune(item, t.slice(2));
      if (pruned !== item) (out ??= [...value])[i] = pruned;
    });
    return out ?? value;
  }
  if (t.startsWith('map[')) {
    if (!isObject(value)) return value;
    const element = t.slice(t.indexOf(']') + 1);
    return pruneEntries(value, () => element, () => false);
  }
  const struct = decodeTypes().types[t];
  if (struct === undefined || !isObject(value)) return value;
  return pruneEntries(value, (k) => struct.fields[k]?.type, (k, v) => {
    const fieldType = struct.fields[k]?.type ?? '';
    return fieldType.startsWith('map[') && (v === null || (isObject(v) && Object.keys(v).length === 0));
  });
}

function pruneEntries(value: Record<string, Json>, typeOf: (key: string) => string | undefined, dropped: (key: string, v: Json) => boolean): Record<string, Json> {
  let out: Record<string, Json> | undefined;
  for (const k of Object.keys(value)) {
    const v = value[k]!;
    const type = typeOf(k);
    const pruned = type === undefined ? v : prune(v, type);
    if (dropped(k, pruned)) {
      out ??= { ...value };
      delete out[k];
    } else if (pruned !== v) {
      out ??= { ...value };
      Object.defineProperty(out, k, { value: pruned, enumerable: true, writable: true, configurable: true });
    }
  }
  return out ?? value;
}
