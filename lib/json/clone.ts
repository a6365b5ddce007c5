// A deep copy of a JSON value without recursion: objects nested 10,000 levels deep (as kube-apiserver decodes them)
// must not overflow the call stack, and a plain loop is several times faster than structuredClone for plain JSON.

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // a JSON key "__proto__" is data; plain assignment would replace the prototype instead
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A deep copy of a JSON value (objects and arrays copied, key order kept; other values shared). */
export function cloneJson<T>(root: T): T {
  if (typeof root !== 'object' || root === null) return root;
  const tasks: Array<readonly [source: unknown[] | Record<string, unknown>, copy: unknown[] | Record<string, unknown>]> = [];
  const copyOf = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const copy = Array.isArray(value) ? new Array<unknown>(value.length) : {};
    tasks.push([value as unknown[] | Record<string, unknown>, copy]);
    return copy;
  };
  const result = copyOf(root);
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    const [source, copy] = task;
    if (Array.isArray(source)) {
      const out = copy as unknown[];
      for (let i = 0; i < source.length; i++) out[i] = copyOf(source[i]);
    } else {
      const out = copy as Record<string, unknown>;
      for (const key of Object.keys(source)) setOwn(out, key, copyOf(source[key]));
    }
  }
  return result as T;
}
