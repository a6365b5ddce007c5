// `variables` of one policy evaluation (lib/admission/activation.ts PolicyVariables): lazily evaluated, each at most
// once, read like any map. Its getters are shared by every instance for the same variable list, so V8 gives every
// request's `values` the same hidden class; per-request closures made a new one per request, which held the
// request's CEL values alive through minor GCs (ADR 0005, fourth round).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PolicyVariables } from '../../lib/admission/activation.js';
import type { CompiledVariable } from '../../lib/admission/activation.js';
import { CelActivation, compileExpression } from '../../lib/cel/index.js';

function variable(name: string, expression: string): CompiledVariable {
  const compiled = compileExpression({ expression, environment: 'validatingPolicy', variableNames: ['a', 'b'] });
  assert.ok(compiled.ok, expression);
  return { name, compiled: compiled.compiled };
}

describe('PolicyVariables', () => {
  const variables = [variable('a', 'object.n + 1'), variable('b', 'variables.a * 2')];

  test('values read lazily, in their own keys only, per instance', () => {
    const one = new PolicyVariables(variables, CelActivation.of({ object: { n: 1 } }));
    const two = new PolicyVariables(variables, CelActivation.of({ object: { n: 10 } }));
    assert.deepEqual(Object.keys(one.values), ['a', 'b']);
    assert.equal(two.values['b'], 22n);
    assert.equal(one.values['b'], 4n);
    assert.equal(one.values['a'], 2n);
    assert.equal(JSON.stringify(Object.keys(two.values)), '["a","b"]');
  });

  test('every instance for the same variable list has the same getters (one hidden class)', () => {
    const one = new PolicyVariables(variables, CelActivation.of({ object: { n: 1 } }));
    const two = new PolicyVariables(variables, CelActivation.of({ object: { n: 2 } }));
    for (const name of ['a', 'b']) {
      const g1 = Object.getOwnPropertyDescriptor(one.values, name)?.get;
      const g2 = Object.getOwnPropertyDescriptor(two.values, name)?.get;
      assert.equal(typeof g1, 'function', name);
      assert.equal(g1, g2, name);
    }
  });

  test('an evaluation error is raised on every read', () => {
    const failing = new PolicyVariables([variable('a', 'object.missing.x')], CelActivation.of({ object: {} }));
    assert.throws(() => failing.values['a'], /composited variable "a" fails to evaluate/);
    assert.throws(() => failing.values['a'], /composited variable "a" fails to evaluate/);
  });
});
