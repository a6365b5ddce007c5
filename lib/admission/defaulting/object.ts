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

/**
 * The parts of a request's objects known to need no defaults, per part defaulter (a container's, a volume's): a
 * part's defaults depend on the part alone, and successive versions of the object share the parts no mutation
 * touched (values are never changed in place), so a part proved once is not walked again. `any`: proved for some
 * part defaulter (what a copy may leave uncopied).
 */
export interface DefaultedParts {
  readonly byDefaulter: WeakMap<PartDefaulter, WeakSet<object>>;
  readonly any: WeakSet<object>;
}

export type PartDefaulter = (o: JsonObject) => void;

export function defaultedParts(): DefaultedParts {
  return { byDefaulter: new WeakMap(), any: new WeakSet() };
}

/** The memo of the current defaultObject call, and the parts its copy left uncopied (shared with the original). */
let parts: DefaultedParts | undefined;
let uncopied: ((o: object) => boolean) | undefined;
/**
 * A part left uncopied turned out to need a write (entered by another part defaulter, or written by a kind's own
 * defaulter: neither happens with one object at one place, as every version of an object is built): the caller
 * defaults a whole copy instead.
 */
export const uncopiedPartWritten = new Error('a part shared with the original would be written');

/** Runs `f` on `o` without changing it: whether it would write anything. */
export function wouldChange(f: (o: JsonObject) => void, o: JsonObject, memo?: DefaultedParts): boolean {
  dryRun = true;
  parts = memo;
  try {
    f(o);
    return false;
  } catch (err) {
    if (err === wouldWrite) return true;
    throw err;
  } finally {
    dryRun = false;
    parts = undefined;
  }
}

/**
 * Runs `f` on `o` in place. With `memo`, parts it proved need nothing are skipped, and `shared` says which objects
 * the caller's copy left shared with the original: writing one throws uncopiedPartWritten.
 */
export function defaultInPlace(f: (o: JsonObject) => void, o: JsonObject, memo: DefaultedParts, shared: (o: object) => boolean): void {
  parts = memo;
  uncopied = shared;
  try {
    f(o);
  } finally {
    parts = undefined;
    uncopied = undefined;
  }
}

/** `f(o)` for one part of the object (a container, a volume), skipped when the memo knows it needs nothing. */
export function defaultPart(f: PartDefaulter, o: JsonObject): void {
  const memo = parts;
  if (memo === undefined) return f(o);
  let known = memo.byDefaulter.get(f);
  if (known?.has(o) === true) return;
  if (uncopied?.(o) === true) throw uncopiedPartWritten;
  f(o);
  // reached in a dry run: nothing to write; in place: o now holds its defaults (every defaulter is idempotent)
  if (known === undefined) memo.byDefaulter.set(f, (known = new WeakSet()));
  known.add(o);
  memo.any.add(o);
}

/** `o[key] = value` (nothing when it already holds that very value). */
export function write(o: JsonObject, key: string, value: unknown): void {
  if (Object.hasOwn(o, key) && o[key] === value) return;
  if (dryRun) throw wouldWrite;
  if (uncopied?.(o) === true) throw uncopiedPartWritten;
  setOwn(o, key, value);
}

export function remove(o: JsonObject, key: string): void {
  if (!Object.hasOwn(o, key)) return;
  if (dryRun) throw wouldWrite;
  if (uncopied?.(o) === true) throw uncopiedPartWritten;
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
