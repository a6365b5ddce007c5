import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { celValueToJson, compileExpression, toCelValue } from '../../lib/cel/index.js';

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

describe('celValueToJson', () => {
  it('turns CEL results back into JSON values', () => {
    assert.deepEqual(celValueToJson(evaluate("{'n': 3, 'u': dyn(4u), 'l': [dyn(1), dyn('a')], 'd': dyn(duration('90.5s'))}")), {
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
