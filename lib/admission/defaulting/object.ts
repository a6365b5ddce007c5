// Copy-on-write access for the defaulters. The object being defaulted is shared with the request's other versions
// (values are never changed in place: lib/admission/mutation.ts), so the defaulters read it through drafts: a
// Draft is one place in the object (the value there and how it was reached from the root). Reads see the value as
// defaulted so far; the first write at a place copies that object and every container on its path to the root,
// once, so everything defaulting leaves alone stays the very same value. An object that needs no defaults costs one
// read-only walk and no copy.
import { copyObject, ownValue, setOwn } from '../../json/own.js';
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Container = JsonObject | unknown[];

/** A field value setIfMissing would set: absent, null (Go's nil), or `zero` when given. */
export function isMissing(current: unknown, zero?: unknown): boolean {
  return current === undefined || current === null || (zero !== undefined && current === zero);
}

/**
 * A map or list at one place of the object being defaulted. Children are reached only through `object`/`objects`,
 * which return the same draft for the same place, so two writes below one place build on one copy.
 */
export class Draft {
  #value: Container;
  /** this draft's value is its own copy (or a value the defaulter built), written in place */
  #owned: boolean;
  readonly #parent: Draft | undefined;
  readonly #key: string | number;
  /** the drafts of the places below this one reached so far (a few per map: a plain list is cheaper than a Map) */
  #children: Draft[] | undefined;

  constructor(value: Container, parent?: Draft, key: string | number = '') {
    this.#value = value;
    this.#owned = false;
    this.#parent = parent;
    this.#key = key;
  }

  /** The value here as defaulted so far (the original while nothing below it was written). */
  get value(): Container {
    return this.#value;
  }

  /** The own field `key`, else undefined. */
  get(key: string): unknown {
    return Array.isArray(this.#value) ? undefined : ownValue(this.#value, key);
  }

  has(key: string): boolean {
    return !Array.isArray(this.#value) && Object.hasOwn(this.#value, key);
  }

  /** The field `key` as a draft when it holds a map (a JSON object), else undefined. */
  object(key: string): Draft | undefined {
    const v = this.get(key);
    return isObject(v) ? this.#child(key, v) : undefined;
  }

  /**
   * The maps among the elements of the list at `key` (none when it is not a list), in order. `wanted`: only those it
   * holds for, read as they are now (a defaulter passes the test of what it would write: the others cost no draft).
   */
  objects(key: string, wanted?: (o: JsonObject) => boolean): Draft[] {
    const list = this.get(key);
    if (!Array.isArray(list)) return [];
    let draft: Draft | undefined;
    const out: Draft[] = [];
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (isObject(item) && (wanted === undefined || wanted(item))) out.push((draft ??= this.#child(key, list)).#child(i, item));
    }
    return out;
  }

  /** `value[key] = v` (nothing when it already holds that very value). */
  write(key: string, v: unknown): void {
    if (this.has(key) && (this.#value as JsonObject)[key] === v) return;
    this.#own();
    this.#forget(key);
    setOwn(this.#value as JsonObject, key, v);
  }

  remove(key: string): void {
    if (!this.has(key)) return;
    this.#own();
    this.#forget(key);
    delete (this.#value as JsonObject)[key];
  }

  /** Sets `key` when it is absent or null (Go's nil), or `zero` (Go's zero value, where the defaulter tests it). */
  setIfMissing(key: string, v: unknown, zero?: unknown): void {
    if (isMissing(this.get(key), zero)) this.write(key, v);
  }

  /** The field `key` as a draft, created (empty) when it holds no map: a Go struct field is never nil. */
  structField(key: string): Draft {
    const existing = this.object(key);
    if (existing !== undefined) return existing;
    const created: JsonObject = {};
    this.write(key, created);
    const draft = this.#child(key, created);
    draft.#owned = true;
    return draft;
  }

  #child(key: string | number, value: Container): Draft {
    const children = (this.#children ??= []);
    for (const child of children) if (child.#key === key && child.#value === value) return child;
    const child = new Draft(value, this, key);
    children.push(child);
    return child;
  }

  /** A new value is written at `key`: the drafts below it are of the old one. */
  #forget(key: string): void {
    const children = this.#children;
    if (children === undefined) return;
    for (let i = 0; i < children.length; i++) if (children[i]!.#key === key) children.splice(i--, 1);
  }

  /** Makes this value a copy of its own, placed in its parent's copy. */
  #own(): void {
    if (this.#owned) return;
    const copy: Container = Array.isArray(this.#value) ? [...this.#value] : copyObject(this.#value);
    this.#value = copy;
    this.#owned = true;
    const parent = this.#parent;
    if (parent === undefined) return;
    parent.#own();
    if (Array.isArray(parent.#value)) parent.#value[this.#key as number] = copy;
    else setOwn(parent.#value, this.#key as string, copy);
  }
}

/**
 * The parts of a request's objects known to need no defaults, per part defaulter (a container's, a volume's): a
 * part's defaults depend on the part alone, and successive versions of the object share the parts no mutation
 * touched (values are never changed in place), so a part proved once is not walked again.
 */
export interface DefaultedParts {
  readonly byDefaulter: WeakMap<PartDefaulter, WeakSet<object>>;
}

export type PartDefaulter = (o: Draft) => void;

export function defaultedParts(): DefaultedParts {
  return { byDefaulter: new WeakMap() };
}

/** The memo of the current defaultObject call. */
let parts: DefaultedParts | undefined;

/** Runs `f` on the root draft with `memo` consulted by defaultParts. */
export function withParts(memo: DefaultedParts | undefined, f: () => void): void {
  parts = memo;
  try {
    f();
  } finally {
    parts = undefined;
  }
}

/**
 * `f` for each part of the object in the list at `key` (the containers, the volumes), skipped — without a draft —
 * where the memo knows the part needs nothing.
 */
export function defaultParts(list: Draft, key: string, f: PartDefaulter): void {
  const memo = parts;
  const values = list.get(key);
  if (!Array.isArray(values)) return;
  const known = memo?.byDefaulter.get(f);
  if (known !== undefined && values.every((v) => !isObject(v) || known.has(v))) return;
  for (const o of list.objects(key)) {
    if (known?.has(o.value) === true) continue;
    f(o);
    // the part now holds its defaults: the original when nothing was written, else its copy (every defaulter is
    // idempotent)
    if (memo === undefined) continue;
    let set = memo.byDefaulter.get(f);
    if (set === undefined) memo.byDefaulter.set(f, (set = new WeakSet()));
    set.add(o.value);
  }
}
