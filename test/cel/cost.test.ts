// The runtime cost budget (Kubernetes' per-call limit, 1,000,000) and the deadline / abort hooks: a runaway
// evaluation ends with an error, not a hung worker.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { CelEvaluationError, compileExpression, COST_LIMIT_EXCEEDED, OPERATION_INTERRUPTED, PER_CALL_COST_LIMIT } from '../../lib/cel/index.js';
import type { CompiledExpression, EvaluationOptions } from '../../lib/cel/index.js';

function compiled(expression: string): CompiledExpression {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) assert.fail(result.message);
  return result.compiled;
}

const items = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function failsWith(program: CompiledExpression, activation: Record<string, unknown>, options: EvaluationOptions | undefined, message: string): void {
  assert.throws(
    () => program.evaluate(activation, options),
    (error: unknown) => {
      assert.ok(error instanceof CelEvaluationError);
      assert.equal(error.message, message);
      return true;
    },
  );
}

/** Nested comprehensions over object.items: n × n iterations. */
const quadratic = compiled('object.items.all(x, object.items.all(y, x + y >= 0))');

describe('runtime cost budget', () => {
  it('is 1,000,000 per call, as Kubernetes celconfig.PerCallLimit', () => {
    assert.equal(PER_CALL_COST_LIMIT, 1_000_000);
  });

  it('lets ordinary evaluations through', () => {
    assert.equal(quadratic.evaluate({ object: { items: items(100) } }), true);
  });

  it('stops an evaluation over budget with upstream wording', () => {
    const started = performance.now();
    failsWith(quadratic, { object: { items: items(2000) } }, undefined, COST_LIMIT_EXCEEDED);
    assert.equal(COST_LIMIT_EXCEEDED, 'operation cancelled: actual cost limit exceeded');
    // it stops at the budget, long before the 4,000,000 iterations are done
    assert.ok(performance.now() - started < 2000);
  });

  it('charges string and list work by size', () => {
    const big = 'x'.repeat(100_000);
    const program = compiled("object.items.all(i, object.text.contains('y') == false)");
    // 1,000 × (1 + 100,000 × 0.1) ≈ 10,000,000
    failsWith(program, { object: { items: items(1000), text: big } }, undefined, COST_LIMIT_EXCEEDED);
    assert.equal(program.evaluate({ object: { items: items(10), text: big } }), true);
  });

  it('takes a smaller limit per call', () => {
    failsWith(quadratic, { object: { items: items(20) } }, { costLimit: 100 }, COST_LIMIT_EXCEEDED);
  });

  it('is not absorbed by || or by the quantifiers the way CEL errors are', () => {
    const program = compiled('object.items.exists(x, object.items.all(y, x + y >= 0) && false) || true');
    failsWith(program, { object: { items: items(2000) } }, undefined, COST_LIMIT_EXCEEDED);
  });

  it('covers the map, filter and two-variable macros too', () => {
    const program = compiled('object.items.map(x, object.items.filter(y, y > x).size()).size() > 0');
    failsWith(program, { object: { items: items(2000) } }, undefined, COST_LIMIT_EXCEEDED);
    const twoVar = compiled('object.items.transformList(i, x, object.items.all(j, y, i + j >= 0)).size() > 0');
    failsWith(twoVar, { object: { items: items(2000) } }, undefined, COST_LIMIT_EXCEEDED);
  });
});

describe('deadline and abort', () => {
  it('refuses to start after the deadline', () => {
    failsWith(compiled('true'), {}, { deadline: Date.now() - 1 }, OPERATION_INTERRUPTED);
  });

  it('stops a long evaluation at the deadline', () => {
    const started = Date.now();
    failsWith(quadratic, { object: { items: items(3000) } }, { costLimit: Infinity, deadline: started + 30 }, OPERATION_INTERRUPTED);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  it('stops when the signal is aborted, or when the interrupt check says so', () => {
    const controller = new AbortController();
    controller.abort();
    failsWith(quadratic, { object: { items: items(10) } }, { signal: controller.signal }, OPERATION_INTERRUPTED);
    let calls = 0;
    const interrupted = (): boolean => ++calls > 3;
    failsWith(quadratic, { object: { items: items(3000) } }, { costLimit: Infinity, interrupted }, OPERATION_INTERRUPTED);
  });

  it('does not get in the way of a fast evaluation', () => {
    assert.equal(quadratic.evaluate({ object: { items: items(10) } }, { deadline: Date.now() + 60_000 }), true);
  });
});

// upstream: each cel-go Program.ContextEval starts from a fresh EvalState and cost tracker (cel-go interpreter);
// here a compiled expression keeps one state and begins it again per evaluation (lib/cel/compile.ts MeteredRun).
describe('one evaluation state per compiled expression, begun again each time', () => {
  const sum = compiled('object.items.all(x, object.items.exists(y, y == x))');
  const cost = (activation: Record<string, unknown>, options?: EvaluationOptions): number => {
    const meter = { cost: 0 };
    sum.evaluate(activation, { ...options, meter });
    return meter.cost;
  };

  it('charges each evaluation from zero, after one that ran out of budget or was interrupted', () => {
    const first = cost({ object: { items: items(20) } });
    assert.equal(cost({ object: { items: items(20) } }), first);
    failsWith(sum, { object: { items: items(2000) } }, { costLimit: 1000 }, COST_LIMIT_EXCEEDED);
    failsWith(sum, { object: { items: items(20) } }, { deadline: Date.now() - 1 }, OPERATION_INTERRUPTED);
    assert.equal(cost({ object: { items: items(20) } }), first);
    assert.equal(sum.evaluate({ object: { items: items(5) } }, { costLimit: PER_CALL_COST_LIMIT }), true);
  });

  it('gives comprehension variables no value from an evaluation before', () => {
    const last = compiled('object.items.map(x, x).size() == 0 || object.items.all(x, x >= 0)');
    assert.equal(last.evaluate({ object: { items: items(3) } }), true);
    assert.equal(last.evaluate({ object: { items: [] } }), true);
    assert.equal(last.evaluate({ object: { items: [-1] } }), false);
  });
});
