// JSON.stringify for values of any depth. V8's JSON.stringify recurses on the native stack and throws RangeError past
// about 4,000 levels on the main thread, well inside the 10,000 kube-apiserver decodes; the common case stays native
// and only such a value is written by the loop below, to the same text.

/** What JSON.stringify writes for `value` nested past the native stack: same key order, skipped values, nulls. */
function stringifyDeep(root: unknown): string | undefined {
  const out: string[] = [];
  type Frame = { readonly value: unknown[] | Record<string, unknown>; readonly keys: readonly string[] | undefined; index: number; first: boolean };
  const stack: Frame[] = [];
  /** writes a scalar, or opens a container (returns false when the value is skipped in an object) */
  const open = (value: unknown): boolean => {
    if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON: (key: string) => unknown }).toJSON('');
    }
    if (typeof value !== 'object' || value === null) {
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) return false;
      out.push(text);
      return true;
    }
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ value, keys: undefined, index: 0, first: true });
    } else {
      out.push('{');
      stack.push({ value: value as Record<string, unknown>, keys: Object.keys(value), index: 0, first: true });
    }
    return true;
  };
  if (!open(root)) return undefined;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.keys === undefined) {
      const array = frame.value as unknown[];
      if (frame.index >= array.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (!frame.first) out.push(',');
      frame.first = false;
      // in an array, a value JSON has no text for is written null
      if (!open(array[frame.index++])) out.push('null');
    } else {
      if (frame.index >= frame.keys.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.index++]!;
      const mark = out.length;
      out.push(frame.first ? '' : ',', `${JSON.stringify(key)}:`);
      if (open((frame.value as Record<string, unknown>)[key])) frame.first = false;
      else out.length = mark;
    }
  }
  return out.join('');
}

/** JSON.stringify(value), also for values nested deeper than the native stack allows. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const text = stringifyDeep(value);
    if (text === undefined) throw err;
    return text;
  }
}
