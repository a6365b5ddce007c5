// In-place helpers for the defaulters, which work on a private copy of the object.
import { ownValue, setOwn } from '../../json/own.js';
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Every write goes through write/remove, so that a dry run (defaulting an object that needs nothing, the common
// case) can stop at the first change without copying the object first.
const wouldWrite = new Error('defaulting would change the object');
let dryRun = false;

/** Runs `f` on `o` without changing it: whether it would write anything. */
export function wouldChange(f: (o: JsonObject) => void, o: JsonObject): boolean {
  dryRun = true;
  try {
    f(o);
    return false;
  } catch (err) {
    if (err === wouldWrite) return true;
    throw err;
  } finally {
    dryRun = false;
  }
}

/** `o[key] = value` (nothing when it already holds that very value). */
export function write(o: JsonObject, key: string, value: unknown): void {
  if (Object.hasOwn(o, key) && o[key] === value) return;
  if (dryRun) throw wouldWrite;
  setOwn(o, key, value);
}

export function remove(o: JsonObject, key: string): void {
  if (!Object.hasOwn(o, key)) return;
  if (dryRun) throw wouldWrite;
  delete o[key];
}

/** Sets `o[key]` when it is absent or null (Go's nil), or one of `zeros` (Go's zero value the defaulter tests). */
export function setIfMissing(o: JsonObject, key: string, value: unknown, ...zeros: readonly unknown[]): void {
  const v = ownValue(o, key);
  if (v === undefined || v === null || zeros.includes(v)) write(o, key, value);
}

/** `o[key]` as an object, created (empty) when absent: a Go struct field is never nil. */
export function structField(o: JsonObject, key: string): JsonObject {
  const v = ownValue(o, key);
  if (isObject(v)) return v;
  const created: JsonObject = {};
  write(o, key, created);
  return created;
}
