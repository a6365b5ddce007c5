// Lookups and writes keyed by data. A key from a request or a manifest may be any string, `constructor`,
// `toString` or `__proto__` included (JSON.parse makes each an own property): it must only ever find an own
// property, and writing it must create one (assigning `o['__proto__']` would replace the prototype instead).

/** `o[key]` when it is o's own property, else undefined. */
export function ownValue<T>(o: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Sets the own property `key` of `o`, whatever its name. */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}
