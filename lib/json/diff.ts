// The JSON Patch that turns one JSON document into another, as fast-json-patch's compare() writes it (the operations
// and their order are the same), without recursion: a document nested 10,000 levels deep must not overflow the call
// stack. Per object or array, the old keys last to first: a changed scalar or a container of another kind is
// replaced, a missing key removed, a container of the same kind descended into at once; then the new keys first to
// last are added. Arrays are compared index by index.

export interface DiffOperation {
  readonly op: 'add' | 'remove' | 'replace';
  readonly path: string;
  readonly value?: unknown;
}

function escapePathComponent(key: string): string {
  return key.includes('/') || key.includes('~') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

function keysOf(value: object): string[] {
  if (!Array.isArray(value)) return Object.keys(value);
  const keys = new Array<string>(value.length);
  for (let i = 0; i < keys.length; i++) keys[i] = String(i);
  return keys;
}

type Container = Record<string, unknown>;

interface Frame {
  readonly from: Container;
  readonly to: Container;
  readonly path: string;
  readonly oldKeys: readonly string[];
  readonly newKeys: readonly string[];
  /** the next old key to compare, counting down */
  t: number;
  deleted: boolean;
}

/** The operations from `from` to `to` (two objects or two arrays); values are the new document's, not copies. */
export function diffJson(from: object, to: object): DiffOperation[] {
  const operations: DiffOperation[] = [];
  const stack: Frame[] = [];
  const enter = (a: object, b: object, path: string): void => {
    if (a === b) return;
    const oldKeys = keysOf(a);
    stack.push({ from: a as Container, to: b as Container, path, oldKeys, newKeys: keysOf(b), t: oldKeys.length - 1, deleted: false });
  };
  enter(from, to, '');
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.t >= 0) {
      const key = f.oldKeys[f.t--]!;
      const oldVal = f.from[key];
      const newVal = Object.hasOwn(f.to, key) ? f.to[key] : undefined;
      if (oldVal === newVal && newVal !== undefined) continue;
      const toIsArray = Array.isArray(f.to);
      if (Object.hasOwn(f.to, key) && !(newVal === undefined && oldVal !== undefined && !toIsArray)) {
        if (typeof oldVal === 'object' && oldVal !== null && typeof newVal === 'object' && newVal !== null && Array.isArray(oldVal) === Array.isArray(newVal)) {
          enter(oldVal, newVal, `${f.path}/${escapePathComponent(key)}`);
        } else if (oldVal !== newVal) {
          operations.push({ op: 'replace', path: `${f.path}/${escapePathComponent(key)}`, value: newVal === undefined ? null : newVal });
        }
      } else if (Array.isArray(f.from) === toIsArray) {
        operations.push({ op: 'remove', path: `${f.path}/${escapePathComponent(key)}` });
        f.deleted = true;
      } else {
        operations.push({ op: 'replace', path: f.path, value: f.to });
      }
      continue;
    }
    stack.pop();
    if (!f.deleted && f.newKeys.length === f.oldKeys.length) continue;
    for (const key of f.newKeys) {
      if (!Object.hasOwn(f.from, key) && f.to[key] !== undefined) operations.push({ op: 'add', path: `${f.path}/${escapePathComponent(key)}`, value: f.to[key] });
    }
  }
  return operations;
}
