// JSON helpers for values of any depth, checked against the references they stand in for: JSON.stringify,
// fast-json-patch's compare() (the operations /mutate answered with before), a recursive copy and equality, on
// random documents; and each of them on documents nested far deeper than recursion survives on the main thread
// (kube-apiserver decodes objects up to 10,000 levels: sigs.k8s.io/json scanner.go maxNestingDepth).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import jsonPatch from 'fast-json-patch';
import { cloneJson, diffJson, equalJson, stringifyJson } from '../../lib/json/index.js';

/** A small deterministic PRNG, so that failures reproduce. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const keys = ['a', 'b', 'c', 'd~x', 'e/y', '0', '__proto__'];

function randomJson(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth <= 0 || pick < 0.35) {
    const scalars = [null, true, false, 0, -1, 1.5, 'x', '', 'é<&>'];
    return scalars[Math.floor(r() * scalars.length)];
  }
  if (pick < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth - 1));
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (r() < 0.4) Object.defineProperty(out, k, { value: randomJson(r, depth - 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `b` as a mutation of `a`: some values replaced, some removed, some added, the rest shared. */
function mutate(r: () => number, a: unknown, depth: number): unknown {
  if (typeof a !== 'object' || a === null) return r() < 0.3 ? randomJson(r, 2) : a;
  if (r() < 0.1) return randomJson(r, depth);
  if (Array.isArray(a)) {
    const out = a.map((v) => mutate(r, v, depth - 1));
    if (r() < 0.3) out.push(randomJson(r, 2));
    if (r() < 0.3) out.pop();
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(a)) {
    if (r() < 0.15) continue;
    Object.defineProperty(out, k, { value: mutate(r, (a as Record<string, unknown>)[k], depth - 1), enumerable: true, writable: true, configurable: true });
  }
  if (r() < 0.3) out['new'] = randomJson(r, 2);
  return out;
}

/** { a: { a: … 1 } } nested `depth` levels (the outermost object counting as one). */
function deepObject(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 1; i < depth; i++) v = { a: v };
  return { a: v };
}

const deep = 20_000;

describe('stringifyJson', () => {
  test('writes what JSON.stringify writes', () => {
    const r = random(1);
    for (let i = 0; i < 500; i++) {
      const v = randomJson(r, 6);
      assert.equal(stringifyJson(v), JSON.stringify(v));
    }
    const odd = { u: undefined, f: () => 1, d: new Date(0), arr: [undefined, () => 1, 1], n: NaN };
    assert.equal(stringifyJson(odd), JSON.stringify(odd));
  });

  test(`a document ${deep} levels deep, past the native stack, gives the same text`, () => {
    assert.throws(() => JSON.stringify(deepObject(deep)), RangeError, 'the native stringify gives up at this depth');
    const expected = '{"a":'.repeat(deep) + '1' + '}'.repeat(deep);
    assert.equal(stringifyJson(deepObject(deep)), expected);
    // skipped values and array nulls at depth too
    let v: unknown = [undefined, { x: undefined, y: 2 }];
    for (let i = 0; i < deep; i++) v = [v];
    assert.equal(stringifyJson(v), '['.repeat(deep) + '[null,{"y":2}]' + ']'.repeat(deep));
  });
});

describe('diffJson', () => {
  test('the operations and order of fast-json-patch compare()', () => {
    const r = random(2);
    for (let i = 0; i < 1_000; i++) {
      const a = { root: randomJson(r, 5) };
      const b = mutate(r, a, 5) as object;
      if (typeof b !== 'object' || b === null || Array.isArray(b)) continue;
      assert.equal(JSON.stringify(diffJson(a, b)), JSON.stringify(jsonPatch.compare(a, b)), `case ${i}`);
    }
  });

  test(`a change ${deep} levels down is one operation at the full path`, () => {
    const from = deepObject(deep, 1);
    const to = deepObject(deep, 2);
    const ops = diffJson(from, to);
    assert.deepEqual(ops, [{ op: 'replace', path: '/a'.repeat(deep), value: 2 }]);
    // the object as it was, with a deep subtree added under a new key
    const added = { ...from, b: deepObject(deep) };
    const [add] = diffJson(from, added);
    assert.equal(add!.op, 'add');
    assert.equal(add!.path, '/b');
    assert.equal(add!.value, added.b);
  });
});

describe('cloneJson', () => {
  test('a recursive copy, sharing nothing', () => {
    const r = random(3);
    for (let i = 0; i < 300; i++) {
      const v = randomJson(r, 6);
      const c = cloneJson(v);
      assert.ok(isDeepStrictEqual(c, v));
      if (typeof v === 'object' && v !== null) assert.notEqual(c, v);
    }
    const proto = JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>;
    const copy = cloneJson(proto);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype, 'a "__proto__" key stays data');
    assert.deepEqual(Object.keys(copy), ['__proto__']);
  });

  test(`${deep} levels deep`, () => {
    const v = deepObject(deep);
    const c = cloneJson(v);
    assert.equal(stringifyJson(c), stringifyJson(v));
    assert.notEqual(c.a, v.a);
  });
});

describe('equalJson', () => {
  test('agrees with deep equality on JSON, and treats undefined keys as absent', () => {
    const r = random(4);
    for (let i = 0; i < 500; i++) {
      const a = randomJson(r, 5);
      const b = r() < 0.5 ? cloneJson(a) : mutate(r, a, 5);
      assert.equal(equalJson(a, b), isDeepStrictEqual(a, b), JSON.stringify([a, b]));
    }
    assert.equal(equalJson({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(equalJson({ a: null }, {}), false);
    assert.equal(equalJson([1, 2], { 0: 1, 1: 2 }), false);
  });

  test(`${deep} levels deep`, () => {
    assert.equal(equalJson(deepObject(deep), deepObject(deep)), true);
    assert.equal(equalJson(deepObject(deep, 1), deepObject(deep, 2)), false);
  });
});
