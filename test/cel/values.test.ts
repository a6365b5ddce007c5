import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { CelActivation, celValueToJson, compileExpression, toCelValue } from '../../lib/cel/index.js';
import { adoptAsCelValue, jsonToCelValueAfter } from '../../lib/cel/values.js';

function evaluate(expression: string): unknown {
  const result = compileExpression({ expression, environment: 'mutatingPolicy' });
  if (!result.ok) assert.fail(result.message);
  return result.compiled.evaluate({});
}

describe('toCelValue', () => {
  it('turns integral numbers into BigInt (CEL int) and keeps the rest', () => {
    const input = { a: 1, b: -2, c: 0.5, d: [3, 'x', true, null], e: { f: 1e3 }, g: 2 ** 64 };
    assert.deepEqual(toCelValue(input), { a: 1n, b: -2n, c: 0.5, d: [3n, 'x', true, null], e: { f: 1000n }, g: 2 ** 64 });
    assert.deepEqual(input.d, [3, 'x', true, null]);
  });

  it('keeps a "__proto__" key as data', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}}') as object;
    const out = toCelValue(input) as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  it('returns its own results unchanged', () => {
    const once = toCelValue({ a: 1 });
    assert.equal(toCelValue(once), once);
  });
});

describe('jsonToCelValueAfter', () => {
  const deepFreeze = <T>(v: T): T => {
    if (typeof v === 'object' && v !== null) for (const child of Object.values(v)) deepFreeze(child);
    return Object.freeze(v);
  };

  it('converts as toCelValue does, key order kept, the inputs untouched (frozen here)', () => {
    const text = '{"z": 1, "a": [2, {"k": 0.5, "j": 3}], "2": "x", "1": null, "__proto__": {"n": 4}}';
    const first = deepFreeze(JSON.parse(text) as Record<string, unknown>);
    const out = jsonToCelValueAfter(first, undefined);
    assert.deepEqual(out, toCelValue(JSON.parse(text)));
    assert.deepEqual(Object.keys(out as object), Object.keys(JSON.parse(text) as object));
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    // against an earlier version that has none of its keys, `__proto__` and `constructor` included
    const next = deepFreeze(JSON.parse('{"__proto__": {"m": 5}, "constructor": {"c": 6}, "toString": [7]}') as object);
    const after = jsonToCelValueAfter(next, { json: deepFreeze({ other: { o: 1 } }), cel: { other: { o: 1n } } });
    assert.deepEqual(after, toCelValue(JSON.parse('{"__proto__": {"m": 5}, "constructor": {"c": 6}, "toString": [7]}')));
    assert.deepEqual(Object.keys(after as object), ['__proto__', 'constructor', 'toString']);
    assert.equal(Object.getPrototypeOf(after), Object.prototype);
  });

  it('shares the conversion of what the earlier version holds at the same place, also past the depth where it stops recursing', () => {
    // 250 levels: the conversion recurses 200 levels, then goes on with an explicit stack (json/clone.ts)
    let nested: unknown = { n: 1 };
    for (let i = 0; i < 250; i++) nested = i % 2 === 0 ? { a: nested } : [nested];
    const v1 = deepFreeze({ spec: { x: nested, y: { m: 2 }, list: [{ p: 1 }, { q: 2 }] }, meta: { l: 'a' } });
    const c1 = jsonToCelValueAfter(v1, undefined) as Record<string, Record<string, unknown>>;
    assert.deepEqual(c1, toCelValue(v1));
    let leaf: unknown = c1['spec']!['x'];
    while (typeof leaf === 'object' && leaf !== null && !('n' in leaf)) leaf = Array.isArray(leaf) ? leaf[0] : (leaf as { a: unknown }).a;
    assert.deepEqual(leaf, { n: 1n });
    const v2 = deepFreeze({ ...v1, meta: { l: 'b' } });
    const c2 = jsonToCelValueAfter(v2, { json: v1, cel: c1 }) as Record<string, Record<string, unknown>>;
    assert.equal(c2['spec'], c1['spec'], 'the unchanged subtree is the same CEL value');
    assert.notEqual(c2['meta'], c1['meta']);
    assert.deepEqual(c2, toCelValue(v2));
    // a new spec: its unchanged fields and list elements at the same place are shared; one moved is converted again
    const [p, q] = v1.spec.list;
    const v3 = deepFreeze({ ...v2, spec: { ...v2.spec, y: { m: 3 }, list: [q, p, { r: 3 }] } });
    const c3 = jsonToCelValueAfter(v3, { json: v2, cel: c2 }) as Record<string, Record<string, unknown>>;
    assert.equal(c3['spec']!['x'], c1['spec']!['x']);
    assert.equal(c3['meta'], c2['meta']);
    const list1 = c1['spec']!['list'] as unknown[];
    const list3 = c3['spec']!['list'] as unknown[];
    assert.notEqual(list3[0], list1[1], 'moved: converted again');
    assert.deepEqual(c3, toCelValue(v3));
  });
});

describe('adoptAsCelValue', () => {
  it('converts like toCelValue, in place', () => {
    const text = '{"a": 1, "b": -2, "c": 0.5, "d": [3, "x", true, null, [4]], "e": {"f": 1e3}, "g": 18446744073709551616}';
    const input = JSON.parse(text) as Record<string, unknown>;
    const out = adoptAsCelValue(input);
    assert.equal(out, input);
    assert.deepEqual(out, toCelValue(JSON.parse(text)));
    assert.equal(adoptAsCelValue(out), out);
  });

  it('keeps a "__proto__" key as data and the prototype untouched', () => {
    const input = JSON.parse('{"__proto__": {"x": 1}, "n": 2}') as Record<string, unknown>;
    adoptAsCelValue(input);
    assert.deepEqual(Object.keys(input), ['__proto__', 'n']);
    assert.equal(Object.getPrototypeOf(input), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(input, '__proto__')?.value, { x: 1n });
  });

  it('gives the same answers through CelActivation.adopt as through CelActivation.of', () => {
    const pod = '{"spec": {"replicas": 3, "containers": [{"name": "a", "ports": [{"containerPort": 80}]}]}}';
    const compiled = compileExpression({ expression: 'object.spec.replicas + 1 == 4 && object.spec.containers[0].ports[0].containerPort == 80', environment: 'validatingPolicy' });
    if (!compiled.ok) assert.fail(compiled.message);
    assert.equal(compiled.compiled.evaluate(CelActivation.adopt({ object: JSON.parse(pod) })), true);
    assert.equal(compiled.compiled.evaluate(CelActivation.of({ object: JSON.parse(pod) })), true);
    assert.equal(compiled.compiled.evaluate({ object: JSON.parse(pod) }), true);
  });
});

describe('celValueToJson', () => {
  it('turns CEL results back into JSON values', () => {
    assert.deepEqual(celValueToJson(evaluate("{'n': dyn(3), 'u': dyn(4u), 'l': dyn([dyn(1), dyn('a')]), 'd': dyn(duration('90.5s'))}")), {
      n: 3,
      u: 4,
      l: [1, 'a'],
      d: '90.5s',
    });
    // RFC 3339 as Kubernetes (metav1.Time) and protobuf's JSON mapping write it: fractional seconds only when set.
    assert.equal(celValueToJson(evaluate("timestamp('2024-01-02T03:04:05Z')")), '2024-01-02T03:04:05Z');
    assert.equal(celValueToJson(evaluate("timestamp('2024-01-02T03:04:05.120Z')")), '2024-01-02T03:04:05.12Z');
    assert.equal(celValueToJson(evaluate("b'ab'")), 'YWI=');
    assert.equal(celValueToJson(evaluate('optional.of(2)')), 2);
    assert.equal(celValueToJson(evaluate('optional.none()')), null);
  });
});

describe('values nested as deep as kube-apiserver decodes (10,000 levels; 20,000 here)', () => {
  // sigs.k8s.io/json scanner.go maxNestingDepth = 10000: an object the apiserver sends can be that deep, and the
  // conversions run on the main thread for /mutate, whose stack recursion exhausts after a few thousand levels.
  const depth = 20_000;
  const deep = (leaf: unknown): { a: unknown } => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { a: v } : [v];
    return { a: v };
  };
  const leafOf = (v: unknown): unknown => {
    while (typeof v === 'object' && v !== null) v = Array.isArray(v) ? v[0] : (v as { a: unknown }).a;
    return v;
  };

  it('toCelValue, adoptAsCelValue and celValueToJson', () => {
    const converted = toCelValue(deep(7));
    assert.equal(leafOf(converted), 7n, 'the integer 10,000 levels down is a CEL int');
    const adopted = adoptAsCelValue(deep(7));
    assert.equal(leafOf(adopted), 7n);
    assert.equal(leafOf(celValueToJson(converted)), 7);
  });
});
