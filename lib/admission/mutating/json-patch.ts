// JSON Patch as a MutatingAdmissionPolicy applies it: upstream encodes the object and applies the patch with
// gopkg.in/evanphx/json-patch.v4 (Patch.Apply), whose rules differ from RFC 6902 in ways policies can see, and whose
// error texts reach the answer (`JSON Patch: <error>`):
// - a path is split on "/" and its first segment is ignored (it is whatever precedes the first "/");
// - `replace` of a missing object key adds it; `replace` of a missing array index fails;
// - negative array indexes count from the end, in every operation and in the middle of a path; `-` appends for add,
//   and is not an index elsewhere;
// - `add`/`copy` without a value set null; `copy` of a missing key copies null;
// - a failed `test` is not an error: the whole patch is dropped and the object stays as it was;
// - `test` compares objects key by key and requires the same number of keys; null equals null;
// - the root path "": `replace` swaps in the whole document when the value is an object or array (a scalar is
//   silently ignored: v4 wraps a nil error there), `test` compares the whole document.
// Each error reads as upstream's pkg/errors chain, e.g. `remove operation does not apply: doc is missing path:
// "/x": missing value`.

import { cloneJson, copyObject, setOwn } from '../../json/index.js';

export interface PatchOperation {
  readonly op: string;
  readonly path: string;
  /** set only when non-empty, as upstream builds the operation */
  readonly from?: string;
  /** absent when the JSONPatch has no value */
  readonly value?: unknown;
}

type JsonObject = Record<string, unknown>;

/** A failed `test`: upstream applies nothing and reports no error. */
export class PatchTestFailed extends Error {}

/** An operation that cannot be applied; `message` is evanphx's. */
export class PatchError extends Error {}

const missing = 'missing value';
const invalidIndex = 'invalid index referenced';

function wrap(message: string, cause: string): PatchError {
  return new PatchError(`${message}: ${cause}`);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 6901 unescaping as evanphx does it (`~1` then `~0`, in one pass). */
function decodeKey(part: string): string {
  return part.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/** Go's strconv.Atoi, with its error text. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const n = Number.parseInt(key, 10);
  if (!Number.isSafeInteger(n)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  return n;
}

type Container = { readonly kind: 'doc'; readonly value: JsonObject } | { readonly kind: 'ary'; readonly value: unknown[] };

function unableToAccess(idx: number): PatchError {
  return wrap(`Unable to access invalid index: ${idx}`, invalidIndex);
}

/** partialArray's index rule: negative indexes count from the end (SupportNegativeIndices, on by default). */
function arrayIndex(a: readonly unknown[], key: string): number {
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -a.length) throw unableToAccess(idx);
    idx += a.length;
  }
  if (idx >= a.length) throw unableToAccess(idx);
  return idx;
}

function get(c: Container, key: string): unknown {
  if (c.kind === 'doc') return Object.hasOwn(c.value, key) ? c.value[key] : undefined;
  return c.value[arrayIndex(c.value, key)];
}

function set(c: Container, key: string, value: unknown): void {
  if (c.kind === 'doc') setOwn(c.value, key, value);
  else c.value[arrayIndex(c.value, key)] = value;
}

function add(c: Container, key: string, value: unknown): void {
  if (c.kind === 'doc') {
    setOwn(c.value, key, value);
    return;
  }
  if (key === '-') {
    c.value.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (err) {
    throw wrap(`value was not a proper array index: '${key}'`, (err as Error).message);
  }
  const size = c.value.length + 1;
  if (idx >= size || idx < -size) throw unableToAccess(idx);
  if (idx < 0) idx += size;
  c.value.splice(idx, 0, value);
}

function remove(c: Container, key: string): void {
  if (c.kind === 'doc') {
    if (!Object.hasOwn(c.value, key)) throw wrap(`Unable to remove nonexistent key: ${key}`, missing);
    delete c.value[key];
    return;
  }
  let idx = atoi(key);
  const len = c.value.length;
  if (idx >= len || idx < -len) throw unableToAccess(idx);
  if (idx < 0) idx += len;
  c.value.splice(idx, 1);
}

/**
 * evanphx findObject: the container of the path's last segment and that segment, or undefined. With `owned` (an
 * operation that writes), every container on the way that is not yet this patch's own is replaced by a shallow copy
 * first: the patched document shares every untouched subtree with the original, which is never modified.
 */
function findObject(root: Container, path: string, owned?: WeakSet<object>): { container: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let container = root;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    const key = decodeKey(part);
    try {
      next = get(container, key);
    } catch {
      return undefined;
    }
    if (owned !== undefined && (Array.isArray(next) || isObject(next)) && !owned.has(next)) {
      // copyObject keeps a "__proto__" key as data (and, unlike a spread, adds no GC cost when a key is added)
      next = Array.isArray(next) ? [...next] : copyObject(next as Record<string, unknown>);
      owned.add(next as object);
      set(container, key, next);
    }
    if (Array.isArray(next)) container = { kind: 'ary', value: next };
    else if (isObject(next)) container = { kind: 'doc', value: next };
    else return undefined;
  }
  return { container, key: decodeKey(split[split.length - 1]!) };
}

function deepCopy(value: unknown): unknown {
  return value === undefined ? null : cloneJson(value);
}

/**
 * lazyNode.equal, with the document's value on the left: objects match with the same keys, each matching. Pairs are
 * compared from an explicit stack, so values of any depth can be tested.
 */
function equalNode(docValue: unknown, testValue: unknown): boolean {
  const pending: unknown[] = [docValue, testValue];
  while (pending.length > 0) {
    const value = pending.pop();
    const doc = pending.pop();
    if (isObject(doc)) {
      if (!isObject(value)) return false;
      const keys = Object.keys(doc);
      if (keys.length !== Object.keys(value).length) return false;
      for (const k of keys) {
        if (!Object.hasOwn(value, k)) return false;
        if (!(doc[k] === null && value[k] === null)) pending.push(doc[k], value[k]);
      }
    } else if (Array.isArray(doc)) {
      if (!Array.isArray(value) || doc.length !== value.length) return false;
      for (let i = 0; i < doc.length; i++) pending.push(doc[i], value[i]);
    } else if (isObject(value) || Array.isArray(value) || JSON.stringify(doc) !== JSON.stringify(value)) {
      return false;
    }
  }
  return true;
}

function valueOf(op: PatchOperation): unknown {
  return 'value' in op && op.value !== undefined ? cloneJson(op.value) : null;
}

function applyOne(root: Container, op: PatchOperation, owned: WeakSet<object>): void {
  const path = op.path;
  switch (op.op) {
    case 'add': {
      const found = findObject(root, path, owned);
      if (!found) throw wrap(`add operation does not apply: doc is missing path: "${path}"`, missing);
      try {
        add(found.container, found.key, valueOf(op));
      } catch (err) {
        throw wrap(`error in add for path: '${path}'`, (err as Error).message);
      }
      return;
    }
    case 'remove': {
      const found = findObject(root, path, owned);
      if (!found) throw wrap(`remove operation does not apply: doc is missing path: "${path}"`, missing);
      try {
        remove(found.container, found.key);
      } catch (err) {
        throw wrap(`error in remove for path: '${path}'`, (err as Error).message);
      }
      return;
    }
    case 'replace': {
      const found = findObject(root, path, owned);
      if (!found) throw wrap(`replace operation does not apply: doc is missing path: ${path}`, missing);
      try {
        get(found.container, found.key);
      } catch {
        throw wrap(`replace operation does not apply: doc is missing key: ${path}`, missing);
      }
      set(found.container, found.key, valueOf(op));
      return;
    }
    case 'move': {
      if (op.from === undefined) throw wrap('move operation failed to decode from', `operation, missing from field: ${missing}`);
      const source = findObject(root, op.from, owned);
      if (!source) throw wrap(`move operation does not apply: doc is missing from path: ${op.from}`, missing);
      let value: unknown;
      try {
        value = get(source.container, source.key);
        remove(source.container, source.key);
      } catch (err) {
        throw wrap(`error in move for path: '${source.key}'`, (err as Error).message);
      }
      const target = findObject(root, path, owned);
      if (!target) throw wrap(`move operation does not apply: doc is missing destination path: ${path}`, missing);
      try {
        add(target.container, target.key, value === undefined ? null : value);
      } catch (err) {
        throw wrap(`error in move for path: '${path}'`, (err as Error).message);
      }
      return;
    }
    case 'copy': {
      if (op.from === undefined) throw wrap('copy operation failed to decode from', `operation, missing from field: ${missing}`);
      const source = findObject(root, op.from);
      if (!source) throw wrap(`copy operation does not apply: doc is missing from path: ${op.from}`, missing);
      let value: unknown;
      try {
        value = get(source.container, source.key);
      } catch (err) {
        throw wrap(`error in copy for from: '${op.from}'`, (err as Error).message);
      }
      const target = findObject(root, path, owned);
      if (!target) throw wrap(`copy operation does not apply: doc is missing destination path: ${path}`, missing);
      try {
        add(target.container, target.key, deepCopy(value));
      } catch (err) {
        throw wrap('error while adding value during copy', (err as Error).message);
      }
      return;
    }
    case 'test': {
      const found = findObject(root, path);
      if (!found) throw wrap(`test operation does not apply: is missing path: ${path}`, missing);
      let value: unknown;
      try {
        value = get(found.container, found.key);
      } catch (err) {
        throw wrap(`error in test for path: '${path}'`, (err as Error).message);
      }
      const expected = 'value' in op ? op.value : undefined;
      if (value === undefined) {
        if (expected === undefined) return;
        throw new PatchTestFailed(`testing value ${path} failed: test failed`);
      }
      if (expected === undefined || !equalNode(value, expected)) throw new PatchTestFailed(`testing value ${path} failed: test failed`);
      return;
    }
    default:
      throw new PatchError(`Unexpected kind: ${op.op}`);
  }
}

/**
 * Applies the operations to a copy of `document` (a JSON object) and returns it; `document` is not modified (the copy
 * shares what the operations do not touch, so neither may be changed in place afterwards). A failed
 * `test` returns `document` itself. Throws PatchError with evanphx's message.
 */
export interface ApplyOptions {
  /**
   * What a failed `test` does: 'noop' (default) returns `document` unchanged, as the MutatingAdmissionPolicy plugin
   * treats it; 'error' throws PatchError `testing value <path> failed: test failed`, as Patch.Apply reports it to
   * the mutating webhook dispatcher.
   */
  readonly failedTest?: 'noop' | 'error';
}

export function applyJsonPatch(document: unknown, operations: readonly PatchOperation[], options: ApplyOptions = {}): unknown {
  if (!isObject(document)) throw new PatchError('json: cannot unmarshal into Go value of type jsonpatch.partialDoc');
  let root: Container = { kind: 'doc', value: copyObject(document) };
  const owned = new WeakSet<object>([root.value]);
  try {
    for (const op of operations) {
      if (op.path === '' && (op.op === 'replace' || op.op === 'test')) {
        root = applyToRoot(root, op, owned);
        continue;
      }
      applyOne(root, op, owned);
    }
  } catch (err) {
    if (err instanceof PatchTestFailed) {
      if (options.failedTest === 'error') throw new PatchError(err.message);
      return document;
    }
    throw err;
  }
  return root.value;
}

/** `replace` and `test` of the whole document (path ""), as v4's Patch.replace and Patch.test special-case it. */
function applyToRoot(root: Container, op: PatchOperation, owned: WeakSet<object>): Container {
  if (op.op === 'test') {
    if (equalNode(root.value, 'value' in op ? op.value : undefined)) return root;
    throw new PatchTestFailed('testing value  failed: test failed');
  }
  const value = valueOf(op);
  if (Array.isArray(value)) {
    owned.add(value);
    return { kind: 'ary', value };
  }
  if (isObject(value)) {
    owned.add(value);
    return { kind: 'doc', value };
  }
  return root;
}
