// cel-go's parser limits, which Kubernetes leaves at their defaults (k8s.io/apiserver pkg/cel/environment/base.go
// sets no parser option), and how compile errors read through Kubernetes' compiler
// (pkg/admission/plugin/cel/compile.go CompileCELExpression: `compilation failed: ` + issues.String()):
// - cel-go parser/parser.go NewParser defaults: expressionSizeCodePointLimit 100,000, maxRecursionDepth 250;
//   Parser.Parse: `expression code point size exceeds limit: size: %d, limit %d` at common.NoLocation;
//   recursionListener.EnterEveryRule: `expression recursion limit exceeded: %d`; checkAndIncrementRecursionDepth:
//   `max recursion depth exceeded`; both via parseErrors.internalError (NoLocation);
// - common/error.go ToDisplayString: NoLocation (line -1, column -1) prints as `<input>:-1:0` with no snippet;
// - parser.go VisitLogicalNot / VisitNegate: a run of `!` or `-` is one rule, an even count drops them all;
// - parser/helper.go logicManager.balancedTree: `&&` / `||` chains are balanced, not limited;
// - no limit on list elements, map entries or call arguments (the engine's own caps are lifted).
// The recursion vectors at depth 32 are cel-go's own (parser/parser_test.go testCases, run with MaxRecursionDepth(32)).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { compileExpression } from '../../lib/cel/index.js';
import type { CompileResult, ExpectedResult } from '../../lib/cel/index.js';
import { celParseIssues, MAX_RECURSION_DEPTH } from '../../lib/cel/grammar/syntax-errors.js';
import { EXPRESSION_SIZE_CODE_POINT_LIMIT } from '../../lib/cel/limits.js';

function compile(expression: string, expect: ExpectedResult = 'any'): CompileResult {
  return compileExpression({ expression, environment: 'validatingPolicy', expect });
}

function evaluates(expression: string, expected: unknown, activation: Record<string, unknown> = {}): void {
  const result = compile(expression);
  if (!result.ok) assert.fail(result.message.slice(0, 300));
  assert.deepEqual(result.compiled.evaluate(activation), expected);
}

function fails(expression: string, message: string): void {
  const result = compile(expression, 'bool');
  assert.equal(result.ok, false, 'compiles');
  if (!result.ok) {
    assert.equal(result.message, message);
    assert.equal(result.errorType, 'Invalid');
  }
}

const noLocation = (message: string): string => `compilation failed: ERROR: <input>:-1:0: ${message}`;
const nested = (n: number, open: string, inner: string, close: string): string => open.repeat(n) + inner + close.repeat(n);

describe('the expression size limit: 100,000 code points', () => {
  it('is cel-go\'s default, which Kubernetes keeps', () => {
    assert.equal(EXPRESSION_SIZE_CODE_POINT_LIMIT, 100_000);
    assert.equal(MAX_RECURSION_DEPTH, 250);
  });

  it('accepts 100,000 and refuses 100,001 and 150,000 with cel-go\'s text', () => {
    const sized = (n: number): string => `'${'a'.repeat(n - 8)}' != ''`;
    assert.equal(sized(100_000).length, 100_000);
    evaluates(sized(100_000), true);
    fails(sized(100_001), noLocation('expression code point size exceeds limit: size: 100001, limit 100000'));
    fails(sized(150_000), noLocation('expression code point size exceeds limit: size: 150000, limit 100000'));
  });

  it('counts code points, not UTF-16 units', () => {
    // 60,000 emoji: 120,000 UTF-16 units, 60,008 code points
    evaluates(`'${'😀'.repeat(60_000)}' != ''`, true);
    fails(`'${'😀'.repeat(100_000)}' != ''`, noLocation('expression code point size exceeds limit: size: 100008, limit 100000'));
  });
});

describe('no cap on literal sizes or arguments', () => {
  it('takes list literals of 1,001 and 30,000 elements', () => {
    const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    evaluates(`${list(1001)}.size()`, 1001n);
    evaluates(`[${Array(30_000).fill('7').join(',')}].size()`, 30_000n);
  });

  it('takes map literals of 2,000 entries and calls with 40 arguments', () => {
    evaluates(`{${Array.from({ length: 2000 }, (_, i) => `${i}: ${i}`).join(', ')}}[1999]`, 1999n);
    evaluates(`[${Array.from({ length: 40 }, () => "'a'").join(', ')}].join('').size()`, 40n);
    evaluates(`'${'%s'.repeat(40)}'.format([${Array.from({ length: 40 }, () => "'a'").join(', ')}])`, 'a'.repeat(40));
  });
});

describe('runs of ! and unary -', () => {
  it('20,000 `!` compile as one operator or none, without recursion', () => {
    evaluates(`${'!'.repeat(20_000)}true`, true);
    evaluates(`${'!'.repeat(20_001)}true`, false);
    evaluates(`${'! '.repeat(49_000)}false`, false);
  });

  it('an even run is no operator at all: `!!1` is an int, `--x` is x', () => {
    fails('!!1', 'must evaluate to bool but got int');
    evaluates('--1 == 1', true);
    evaluates(`${'-'.repeat(30_000)}2 == 2`, true);
    evaluates(`${'-'.repeat(30_001)}2 == -2`, true);
    fails('!!!1', "compilation failed: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'\n | !!!1\n | ^");
  });

  it('a `!` after a `-`, or a `-` after a `!` that is no literal\'s sign, is a syntax error', () => {
    // the sign of a literal: valid syntax (here a type error, at the `!`)
    fails('!-1', "compilation failed: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'\n | !-1\n | ^");
    fails('-!true', "compilation failed: ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'\n | -!true\n | .^");
  });
});

describe('the grammar\'s recursion limit: 250 open rules of one kind', () => {
  it('takes 249 nested parentheses, lists, calls and ternaries; refuses 250', () => {
    for (const [open, inner, close] of [['(', 'true', ')'], ['[', '1', ']'], ['string(', '1', ')']] as const) {
      const ok = compile(nested(249, open, inner, close));
      assert.ok(ok.ok || !ok.message.includes('recursion'), `249 × ${open}`);
      fails(nested(250, open, inner, close), noLocation('expression recursion limit exceeded: 250'));
    }
    const ternaries = (n: number): string => `${'true ? false : '.repeat(n)}true`;
    evaluates(ternaries(249), false);
    fails(ternaries(250), noLocation('expression recursion limit exceeded: 250'));
  });

  it('20,000 open parentheses are refused, not a stack overflow', () => {
    fails(nested(20_000, '(', 'true', ')'), noLocation('expression recursion limit exceeded: 250'));
    fails('('.repeat(40_000), noLocation('expression recursion limit exceeded: 250'));
    fails(nested(20_000, '[', '', ']'), noLocation('expression recursion limit exceeded: 250'));
  });

  it('counts the extra relation and calc rules ANTLR opens for right operands', () => {
    // each level opens calc three times (the operand, the right of `+`, the right of `*`): 83 levels fit, 84 do not
    const arithmetic = (n: number): string => `${'1 + 1 * ('.repeat(n)}1${')'.repeat(n)} > 0`;
    evaluates(arithmetic(82), true);
    fails(arithmetic(84), noLocation('expression recursion limit exceeded: 250'));
  });
});

describe('the parser visitor\'s depth limit: 250', () => {
  it('takes 250 selects, indexes, calls and operators in a chain; refuses 251', () => {
    const selects = (n: number): string => `object${'.a'.repeat(n)} == 1`;
    assert.equal(compile(selects(249)).ok, true);
    fails(selects(251), noLocation('max recursion depth exceeded'));
    const sum = (n: number): string => Array(n + 1).fill('1').join(' + ');
    evaluates(sum(250), 251n);
    fails(`${sum(251)} > 0`, noLocation('max recursion depth exceeded'));
    fails(`${Array(30_000).fill('1').join('+')} > 0`, noLocation('max recursion depth exceeded'));
    fails(`'a'${'.lowerAscii()'.repeat(251)} == 'a'`, noLocation('max recursion depth exceeded'));
  });

  it('does not count `&&` and `||`: 14,000 terms compile, balanced, and evaluate as one chain', () => {
    const terms = (n: number, term: (i: number) => string): string => Array.from({ length: n }, (_, i) => term(i)).join('&&');
    evaluates(terms(14_000, () => 'true'), true);
    evaluates(terms(14_000, (i) => (i === 12_345 ? 'false' : 'true')), false);
    evaluates(Array(14_000).fill('false').join('||'), false);
    // errors: false wins wherever it is; otherwise the first error, left to right
    evaluates(`object.a == 1 && ${terms(5000, () => 'true')} && false`, false, { object: {} });
    const result = compile(`${terms(5000, () => 'true')} && object.a == 1 && object.b == 1`);
    assert.ok(result.ok);
    assert.throws(() => result.compiled.evaluate({ object: {} }), /no such key: a/);
  });
});

describe('cel-go\'s own recursion vectors (MaxRecursionDepth(32))', () => {
  // cel-go reports the limit as the parse's only error
  function verdict(expression: string): string | undefined {
    const issues = celParseIssues(expression, { maxRecursionDepth: 32 }).map((i) => i.message);
    assert.ok(issues.length <= 1, issues.join('; '));
    return issues[0];
  }
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    [nested(32, '[', "'not fine'", ']'), 'expression recursion limit exceeded: 32'],
    [nested(31, '[', "'fine'", ']'), undefined],
    [Array.from({ length: 34 }, (_, i) => i + 1).join(' + '), 'max recursion depth exceeded'],
    ['a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F.G.H', 'max recursion depth exceeded'],
    [`a${Array.from({ length: 33 }, (_, i) => `[${i + 1}]`).join('')}`, 'max recursion depth exceeded'],
    [`a < ${Array.from({ length: 33 }, (_, i) => i + 1).join(' < ')}`, 'max recursion depth exceeded'],
    [Array(14).fill(`a${Array.from({ length: 20 }, (_, i) => `[${i + 1}]`).join('')}`).join(' !=\n'), 'max recursion depth exceeded'],
    ['y!=y!=y!=y!=y!=y!=y!=y!=y!=-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y\n\t\t!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y\n\t\t!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y\n\t\t!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y\n\t\t!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y\n\t\t!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y!=-y!=-y-y!=-y', 'max recursion depth exceeded'],
    ['a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.A.B.C.D.E.F', undefined],
  ];
  for (const [expression, expected] of cases) {
    it(`${expression.replaceAll('\n', ' ').slice(0, 60)}… → ${expected ?? 'parses'}`, () => {
      assert.equal(verdict(expression), expected);
    });
  }
});
