// Equality of JSON values as apiequality.Semantic.DeepEqual sees the Go values they decode to: object keys with
// undefined values do not count, null and a missing value are equal, arrays compare element by element. Without
// recursion, for objects nested 10,000 levels deep.

/** Whether `a` and `b` are equal JSON values. */
export function equalJson(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') {
      if ((x ?? null) !== (y ?? null)) return false;
      continue;
    }
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ya = y as unknown[];
      if (x.length !== ya.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], ya[i]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    // for…in, not Object.keys: no array per object (a JSON object has no enumerable inherited keys)
    let count = 0;
    for (const key in xo) {
      const xv = xo[key];
      if (xv === undefined) continue;
      if (!Object.hasOwn(yo, key)) return false;
      count++;
      pending.push(xv, yo[key]);
    }
    for (const key in yo) if (yo[key] !== undefined) count--;
    if (count !== 0) return false;
  }
  return true;
}
