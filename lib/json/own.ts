// Lookups and writes keyed by data. A key from a request or a manifest may be any string, `constructor`,
// `toString` or `__proto__` included (JSON.parse makes each an own property): it must only ever find an own
// property, and writing it must create one (assigning `o['__proto__']` would replace the prototype instead).

/**
 * `o[key]` when it is o's own property, else undefined. For plain records (prototype Object.prototype or null), as
 * every caller's are: all they can inherit is Object.prototype's members, functions but for `__proto__`, so a read
 * that gives anything else is own and needs no second lookup (this runs for every field the hot path reads).
 */
export function ownValue<T>(o: Readonly<Record<string, T>>, key: string): T | undefined {
  const v = o[key];
  if (v === undefined || (typeof v !== 'function' && key !== '__proto__')) return v;
  return Object.hasOwn(o, key) ? v : undefined;
}

/** Sets the own property `key` of `o`, whatever its name. */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/**
 * A shallow copy of a JSON object, own keys in order, `__proto__` kept as data (what `{ ...o }` gives). Written as a
 * loop, not a spread, for copies that get new keys afterwards: in V8 (Node 20) a property added to an object-spread
 * clone keeps the young objects it points to alive through every minor GC until the next full one (they are copied
 * and promoted: ~0.7 MB per scavenge on /mutate's bench, where the defaulters and JSON Patch add keys to copies).
 */
export function copyObject<T>(o: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  // for…in: a JSON object's own keys in Object.keys order (its prototype has no enumerable keys)
  for (const key in o) setOwn(out, key, o[key]);
  return out;
}
