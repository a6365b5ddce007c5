// JSON helpers for conversions: the objects are the JSON the apiserver serialized from its typed objects, and a
// conversion produces the JSON Go's encoding/json would write for the other version's typed object (fields in Go
// order, `omitempty` honoured, zero structs written out, zero Times as null).
import { stringifyJson } from '../../json/index.js';
import { setOwn } from '../../json/own.js';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A struct-valued field (never nil in Go): the object, or `{}` for a missing/null one. */
export function struct(v: unknown): JsonObject {
  return isObject(v) ? v : {};
}

/** A pointer or slice field: undefined when nil. */
export function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** `out[key] = value` unless Go's omitempty would drop it (nil, "", 0, false, an empty slice); not for struct values,
 * which Go always writes. */
export function setOmitEmpty(out: JsonObject, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

/** A pointer field (`*T` with omitempty): written when non-nil, whatever its value. */
export function setPointer(out: JsonObject, key: string, value: unknown): void {
  if (value !== undefined && value !== null) out[key] = value;
}

/** A metav1.Time / MicroTime field: its string, or null for the zero time (how it marshals). */
export function time(v: unknown): unknown {
  return typeof v === 'string' ? v : null;
}

/** A string field's value, "" when missing. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** An int32/int64 field's value, 0 when missing. */
export function int(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** A non-pointer resource.Quantity: its canonical string, "0" for the zero quantity. */
export function quantity(v: unknown): unknown {
  return typeof v === 'string' || typeof v === 'number' ? v : '0';
}

/**
 * Go's json.Marshal of a JSON value whose keys are already in Go's order: JSON.stringify plus the HTML-safe escapes
 * encoding/json applies inside strings (<, >, &, U+2028, U+2029; they cannot occur outside strings).
 */
export function goMarshal(value: unknown): string {
  return stringifyJson(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A map[string]string as Go writes it: keys sorted. */
export function sortedMap(map: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(map).sort()) setOwn(out, k, map[k]!);
  return out;
}
