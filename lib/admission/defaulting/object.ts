// In-place helpers for the defaulters, which work on a private copy of the object.
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets `o[key]` when it is absent or null (Go's nil), or one of `zeros` (Go's zero value the defaulter tests). */
export function setIfMissing(o: JsonObject, key: string, value: unknown, ...zeros: readonly unknown[]): void {
  const v = o[key];
  if (v === undefined || v === null || zeros.includes(v)) o[key] = value;
}

/** `o[key]` as an object, created (empty) when absent: a Go struct field is never nil. */
export function structField(o: JsonObject, key: string): JsonObject {
  const v = o[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  o[key] = created;
  return created;
}
