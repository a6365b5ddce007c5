// The generated evaluation (lib/cel/runtime/codegen.ts) against the planner's closures it replaces: for each
// expression and object, the same value or the same error, and the same cost, also where the cost limit stops it.
// Neither is upstream; the closures are what the conformance and differential suites have held to cel-go
// (interpreter/interpretable.go evalAnd/evalOr/evalFold, whose absorption and order both follow).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

import { CelActivation } from '../../lib/cel/activation.js';
import { CONSTRUCT_GLOBALS, parseExpression } from '../../lib/cel/compile.js';
import { DECLARATIONS } from '../../lib/cel/declarations.js';
import { EvalState, plan } from '../../lib/cel/runtime/index.js';
import type { Plan } from '../../lib/cel/runtime/index.js';
import type { CelEnvironment } from '../../lib/cel/types.js';

const BENCH = new URL('../../../testdata/bench/', import.meta.url);

function plans(expression: string, environment: CelEnvironment): { closures: Plan; generated: Plan } {
  const parsed = parseExpression({ expression, environment });
  if ('failure' in parsed) return assert.fail(`${expression}: ${JSON.stringify(parsed.failure)}`);
  const options = { variables: new Set(DECLARATIONS[environment].variables), extraGlobals: CONSTRUCT_GLOBALS };
  return { closures: plan(parsed.program.ast, { ...options, generate: 'never' }), generated: plan(parsed.program.ast, { ...options, generate: 'always' }) };
}

function outcome(p: Plan, context: CelActivation, costLimit: number | undefined): unknown {
  const s = new EvalState(context as unknown as Record<string, unknown>, p.slotCount, { costLimit });
  try {
    return { value: p.evaluate(s), cost: s.cost };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error), cost: s.cost };
  }
}

function assertSame(expression: string, objects: readonly unknown[], environment: CelEnvironment = 'validatingPolicy', costLimit?: number): void {
  const { closures, generated } = plans(expression, environment);
  assert.equal(closures.generated, false);
  assert.equal(generated.generated, true, `${expression}: not generated`);
  for (const object of objects) {
    const context = CelActivation.of({ object, oldObject: null, request: { operation: 'CREATE', name: 'p' } });
    assert.deepStrictEqual(outcome(generated, context, costLimit), outcome(closures, context, costLimit), `${expression} on ${JSON.stringify(object)}`);
  }
}

const pod = JSON.parse(readFileSync(new URL('pod-review.json', BENCH), 'utf8')).request.object as Record<string, unknown>;

/** The bench pod and pods that break the policies' assumptions: missing fields, wrong types, lists as maps. */
const OBJECTS: readonly unknown[] = [
  pod,
  {},
  { metadata: { labels: { app: 'a', team: 7 } }, spec: { containers: [] } },
  { spec: { containers: [{ name: 'a', securityContext: 'privileged' }, { name: 'b', securityContext: { privileged: true } }] } },
  { spec: { containers: [{ name: 'a', securityContext: { privileged: 'yes' } }, { name: 'b', securityContext: { privileged: false } }] } },
  { spec: { containers: { a: { name: 'a' } }, initContainers: [{ name: 'i', image: 'x:latest', ports: [{ hostPort: 0 }, { hostPort: 8080 }] }] } },
  { spec: { containers: [{ name: 'a', image: 7, ports: 'none', securityContext: { capabilities: { add: ['NET_BIND_SERVICE', 'SYS_ADMIN'], drop: ['ALL'] } } }] } },
  { metadata: { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } }, spec: { containers: [null, { name: 'b' }] } },
  // field names a JavaScript object inherits
  JSON.parse('{"constructor": "c", "toString": "t", "__proto__": {"x": 1}, "spec": {"containers": []}}'),
];

function benchExpressions(folder: string): string[] {
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if ((k === 'expression' || k === 'messageExpression' || k === 'valueExpression') && typeof x === 'string') out.push(x);
        else collect(x);
      }
    }
  };
  const dir = new URL(`${folder}/`, BENCH);
  for (const file of readdirSync(dir)) for (const doc of parseAllDocuments(readFileSync(new URL(file, dir), 'utf8'))) collect(doc.toJS());
  return out;
}

describe('generated evaluation agrees with the closures', () => {
  it('on every expression of the bench policies, generated', () => {
    const expressions = benchExpressions('policies');
    assert.ok(expressions.length >= 40);
    for (const e of expressions) assertSame(e, OBJECTS);
  });

  it('on the bench mutating policies (message constructions, JSON patches)', () => {
    for (const e of benchExpressions('mutating-policies')) assertSame(e, OBJECTS, e.includes('Object{') || e.includes('JSONPatch{') ? 'mutatingPolicy' : 'validatingPolicy');
  });

  // absorption and its order: evalAnd / evalOr / evalFold (cel-go interpreter/interpretable.go)
  const rows = [
    'object.spec.containers.all(c, c.securityContext.privileged)',
    'object.spec.containers.exists(c, c.securityContext.privileged)',
    "[1, 'a', true].all(x, x > 0)",
    "[0, 'a'].exists(x, x == 0)",
    "['a', 0].exists(x, x > 0)",
    "{'a': 1, 'b': 2}.all(k, k != 'c')",
    'dyn(1).all(x, true)',
    "true ? 1 : 'a'",
    "dyn(1) ? 1 : 'a'",
    'object.missing ? 1 : 2',
    'dyn(1) && true',
    'true && dyn(1)',
    'false && dyn(1)',
    'dyn(1) || true',
    'object.x || true',
    'object.x && false',
    'object.x || object.y',
    'dyn(1) || object.y',
    'object.y || dyn(1)',
    '!dyn(1)',
    "'a' in ['a', 'b']",
    "'a' in {'a': 1}",
    'dyn(1) in dyn(2)',
    "'ab' + 'cd' == 'abcd' && [1] + [2] == [1, 2] && 1 + 2 == 3 && 1 - 2 == -1 && 2 * 3 == 6 && 7 % 2 == 1",
    '7 / 0 == 1',
    "1.5 < 2.0 && dyn(1) < 'a'",
    "object.metadata.labels['app'] == 'a'",
    "object.metadata.labels[?'app'].orValue('') == 'a'",
    "object.metadata.?labels.orValue({}).size() > 0",
    '[1, 2][5] == 0',
    "size(object.spec.containers) > 0 && object.spec.containers.size() > 0 && 'abc'.startsWith('a')",
    "'abc'.matches('b') && matches('abc', 'b') && int('12') + 1 == 13",
    'string(object.spec.containers.size()) == "2"',
    'dyn(object.spec).containers.size() >= 0',
    'type(1) == int && type(object) == map',
    "authorizer.path('/x').check('get').allowed()",
    '-object.spec.priority < 0',
    '.object.spec.containers.all(c, .object.spec.containers.exists(d, d.name == c.name))',
    'foo(1)',
    'object.spec.containers.foo()',
    'has(object.spec.containers[0].name) && has(object.spec)',
    "object.spec.containers.exists_one(c, c.name == 'a') || object.spec.containers.filter(c, has(c.name)).map(c, c.name).size() > 0",
    "{'a': 1, 'b': 2}.all(k, v, v > 0) && [3, 4].exists(i, v, i == 1 && v == 4)",
    // delegated closures inside a generated loop read its variable from the slot
    'object.spec.containers.all(c, !has(c.ports) || c.ports.map(p, p.containerPort).exists(x, x == c.ports[0].containerPort))',
    'object.spec.containers.all(c, [c.name, c.image].all(s, s != ""))',
    "cel.bind(cs, object.spec.containers, cs.all(c, c.name != '') && size(cs) > 0)",
    'cel.bind(x, 1, [x].all(y, y == x) && cel.bind(z, x + 1, [z, x].exists(w, w == 2)))',
    "object.spec.containers.all(c, c.image.startsWith('registry.example/') || c.image.contains('@'))",
    "object.spec.containers.all(c, object.spec.containers.exists(d, d.name == c.name && c.all(k, k != '')))",
    // map, filter, exists_one: a non-bool predicate is the bare error, nothing absorbed
    'object.spec.containers.map(c, c.name)',
    'object.spec.containers.map(c, has(c.ports), c.ports.size())',
    'object.spec.containers.filter(c, c.securityContext.privileged)',
    '[1, 2, 3].filter(x, dyn(x))',
    "[1, 2, 3].map(x, dyn(x), x)",
    "{'a': 1, 'b': 2}.map(k, k + 'x') == ['ax', 'bx'] && {'a': 1}.filter(k, k == 'a') == ['a']",
    "[1, 2, 2].exists_one(x, x == 2) || [1, 'a'].exists_one(x, x == 1) || [1].existsOne(x, dyn(x))",
    'object.spec.containers.map(c, c.ports.map(p, p.containerPort)).size() >= 0',
    '[[1, 2], [3]].map(l, l.filter(x, x > 1)) == [[2], [3]]',
    'object.spec.containers.filter(c, has(c.image)).exists_one(c, c.image.endsWith(":latest"))',
    // inherited members are no fields; own fields of those names are
    "has(object.constructor) && object.constructor == 'c'",
    'has(object.toString) || has(object.valueOf)',
    'object.valueOf == 1',
    "object.toString == 't'",
    'has(object.__proto__) && object.__proto__.x == 1',
    'object.hasOwnProperty',
  ];
  it('on absorption, errors, operators, calls and nested comprehensions', () => {
    for (const e of rows) assertSame(e, OBJECTS);
  });

  it('moves an expression to its generated function once it runs hot, back when it cools, and not at a few evaluations', async () => {
    const parsed = parseExpression({ expression: 'object.spec.containers.all(c, has(c.name))', environment: 'validatingPolicy' });
    if ('failure' in parsed) return assert.fail(JSON.stringify(parsed.failure));
    const variables = new Set(DECLARATIONS.validatingPolicy.variables);
    const context = CelActivation.of({ object: pod }) as unknown as Record<string, unknown>;
    const evaluateTimes = (p: Plan, n: number): void => {
      for (let i = 0; i < n; i++) assert.equal(p.evaluate(new EvalState(context, p.slotCount, undefined)), true);
    };
    let reparsed = 0;
    const reparse = () => {
      reparsed++;
      return parsed.program.ast;
    };
    const hot = plan(parsed.program.ast, { variables, reparse });
    assert.equal(hot.generated, false);
    evaluateTimes(hot, 2000);
    // built in a turn of its own, from the AST parsed again
    for (let i = 0; i < 100 && !hot.generated; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(hot.generated, true);
    assert.equal(reparsed, 1);
    evaluateTimes(hot, 10);
    // 600 evaluations at 125 a second: a run of 256 of them takes longer than two seconds, which makes a cold
    // expression stay on the closures and moves a hot one back to them
    const slow = plan(parsed.program.ast, { variables, reparse });
    for (let i = 0; i < 6; i++) {
      evaluateTimes(slow, 100);
      evaluateTimes(hot, 100);
      const until = performance.now() + 800;
      while (performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(slow.generated, false);
    assert.equal(hot.generated, false);
    // hot again: the function built before, not built again
    evaluateTimes(hot, 1000);
    assert.equal(hot.generated, true);
    assert.equal(reparsed, 1);
    assert.equal(plan(parsed.program.ast, { variables, generate: 'never' }).generated, false);
  });

  it('where the cost limit stops the evaluation, at the same cost', () => {
    const e = 'object.spec.containers.all(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, x * y > 0)))';
    for (const limit of [10, 100, 1000, 5000]) assertSame(e, OBJECTS, 'validatingPolicy', limit);
    const m = 'object.spec.containers.map(c, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter(y, x * y > 0))).size() > 0';
    for (const limit of [10, 100, 1000, 5000]) assertSame(m, OBJECTS, 'validatingPolicy', limit);
  });
});
