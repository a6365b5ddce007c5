// What happens when a program is built (k8s.io/apiserver pkg/admission/plugin/cel/compile.go: env.Program with the
// base environment's cel.EvalOptions(cel.OptOptimize), pkg/cel/environment/base.go), and the offsets timestamps
// keep (cel-go common/types/timestamp.go, string.go).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { CelEvaluationError, compileExpression } from '../../lib/cel/index.js';

function compileFailure(expression: string): { message: string; errorType: string | undefined } {
  const result = compileExpression({ expression, environment: 'validatingPolicy', expect: 'bool' });
  if (result.ok) return assert.fail(`expected ${JSON.stringify(expression)} not to compile`);
  return { message: result.message, errorType: result.errorType };
}

function value(expression: string, object: unknown = {}): unknown {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) return assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  return result.compiled.evaluate({ object });
}

describe('constant folding when the program is built', () => {
  // interpreter/decorators.go decOptimize → maybeOptimizeConstUnary: a type conversion (overloads
  // IsTypeConversionFunction) of a constant is evaluated by the planner; its error fails env.Program, which
  // compile.go reports as `program instantiation failed: <err>` (apiservercel.ErrorTypeInternal).
  const rows: ReadonlyArray<readonly [string, string]> = [
    ["int('abc') > 0", "type conversion error from 'string' to 'int'"],
    ["uint('-1') > 0u", "type conversion error from 'string' to 'uint'"],
    ["double('x') > 0.0", "type conversion error from 'string' to 'double'"],
    ["bool('maybe')", "type conversion error from 'string' to 'bool'"],
    ['uint(-1) > 0u', 'unsigned integer overflow'],
    ['int(1e99) > 0', 'integer overflow'],
    ['int(18446744073709551615u) > 0', 'integer overflow'],
    ["string(b'\\xff') == ''", 'invalid UTF-8 in bytes, cannot convert to string'],
    // a conversion of a folded conversion is folded too
    ["int(string(double('1.5'))) > 0", "type conversion error from 'string' to 'int'"],
    // unreachable or absorbed at run time, the program still fails to build
    ["true || int('abc') > 0", "type conversion error from 'string' to 'int'"],
    ["[1].all(x, x == int('x'))", "type conversion error from 'string' to 'int'"],
    // constant patterns are compiled (interpreter.MatchesRegexOptimization, library/regex.go Find(All)RegexOptimization)
    ["'abc'.find('[') == ''", 'error parsing regexp: missing closing ]: `[`'],
    ["'abc'.findAll('(', 1).size() == 0", 'error parsing regexp: missing closing ): `(`'],
    ["matches('abc', '[')", 'error parsing regexp: missing closing ]: `[`'],
  ];
  for (const [expression, error] of rows) {
    it(`${expression} fails with program instantiation failed: ${error}`, () => {
      assert.deepEqual(compileFailure(expression), { message: `program instantiation failed: ${error}`, errorType: 'InternalError' });
    });
  }

  it('leaves the literal validators first (cel/validator.go ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals)', () => {
    assert.match(compileFailure("timestamp('yesterday') > timestamp(0)").message, /^compilation failed: ERROR: <input>:1:11: invalid timestamp argument/);
    assert.match(compileFailure("duration('5 minutes') > duration('0s')").message, /^compilation failed: ERROR: <input>:1:10: invalid duration argument/);
    // duration(int) is declared by cel-go v0.26.0 but has no conversion: its literal is invalid too
    assert.match(compileFailure("duration(1) > duration('0s')").message, /^compilation failed: ERROR: <input>:1:10: invalid duration argument/);
    assert.match(compileFailure("'abc'.matches('[')").message, /^compilation failed: ERROR: <input>:1:15: invalid matches argument/);
  });

  it('folds nothing that is not a conversion of a constant: those fail when evaluated', () => {
    for (const [expression, error] of [
      ['int(object.s) > 0', "type conversion error from 'string' to 'int'"],
      ['1 / 0 > 0', 'division by zero'],
      ["'abc'.find(object.s + '[') == ''", 'Illegal regex: error parsing regexp: missing closing ]: `[`'],
    ] as const) {
      const result = compileExpression({ expression, environment: 'validatingPolicy' });
      assert.ok(result.ok, expression);
      assert.throws(() => result.compiled.evaluate({ object: { s: 'abc' } }), (e: unknown) => e instanceof CelEvaluationError && e.message === error);
    }
  });

  it('evaluates folded constants to their values', () => {
    assert.equal(value("int('42') + int(2.9) + int(uint('3'))"), 47n);
    assert.equal(value("'abc'.matches('^a') && 'abc'.find('b+') == 'b'"), true);
  });
});

describe('timestamps keep the offset they were parsed with', () => {
  // Timestamp.ConvertToType(StringType) is t.Format(time.RFC3339Nano) of the time.Time time.Parse returned.
  it('string() shows the parsed offset; a zero offset is Z', () => {
    assert.equal(value("string(timestamp('2024-03-10T12:30:00.5+02:00'))"), '2024-03-10T12:30:00.5+02:00');
    assert.equal(value("string(timestamp('2024-03-10T12:30:00-07:30'))"), '2024-03-10T12:30:00-07:30');
    assert.equal(value("string(timestamp('2024-03-10T12:30:00+00:00'))"), '2024-03-10T12:30:00Z');
    assert.equal(value('string(timestamp(object.t))', { t: '2024-03-10T12:30:00.123456789+05:45' }), '2024-03-10T12:30:00.123456789+05:45');
  });

  it('arithmetic keeps the location (overflow.go addTimeDurationChecked: time.Unix(…).In(x.Location()))', () => {
    assert.equal(value("string(timestamp('2024-03-10T23:30:00+02:00') + duration('1h'))"), '2024-03-11T00:30:00+02:00');
    assert.equal(value("string(duration('1h') + timestamp('2024-03-10T23:30:00+02:00'))"), '2024-03-11T00:30:00+02:00');
    assert.equal(value("string(timestamp('2024-03-10T00:30:00+02:00') - duration('1h'))"), '2024-03-09T23:30:00+02:00');
    assert.equal(value("string(timestamp(timestamp('2024-03-10T00:30:00+02:00')))"), '2024-03-10T00:30:00+02:00');
    // timestamp(int) is in UTC (time.Unix(i, 0).UTC())
    assert.equal(value('string(timestamp(1710066600))'), '2024-03-10T10:30:00Z');
  });

  it('getters are in UTC unless given a zone (stdlib/standard.go passes "UTC")', () => {
    const t = "timestamp('2024-03-10T01:30:00.250+02:00')";
    assert.equal(value(`${t}.getHours()`), 23n);
    assert.equal(value(`${t}.getDate()`), 9n);
    assert.equal(value(`${t}.getDayOfMonth()`), 8n);
    assert.equal(value(`${t}.getDayOfWeek()`), 6n);
    assert.equal(value(`${t}.getMilliseconds()`), 250n);
    assert.equal(value(`${t}.getHours('+02:00')`), 1n);
    assert.equal(value(`${t}.getHours('Europe/Berlin')`), 0n);
    assert.equal(value(`${t}.getMinutes('-03:30')`), 0n);
  });

  it('compares, subtracts and converts instants, whatever their offsets', () => {
    assert.equal(value("timestamp('2024-03-10T12:30:00+02:00') == timestamp('2024-03-10T10:30:00Z')"), true);
    assert.equal(value("timestamp('2024-03-10T12:30:00+02:00') < timestamp('2024-03-10T11:30:00Z')"), true);
    assert.equal(value("timestamp('2024-03-10T12:30:00+02:00') - timestamp('2024-03-10T10:30:00Z') == duration('0s')"), true);
    assert.equal(value("int(timestamp('1970-01-01T02:00:00+02:00'))"), 0n);
  });

  it('parses as Go time.Parse(time.RFC3339) does', () => {
    assert.equal(value("string(timestamp('2024-03-10T1:30:00Z'))"), '2024-03-10T01:30:00Z');
    assert.equal(value("string(timestamp('2024-03-10T01:30:00,5Z'))"), '2024-03-10T01:30:00.5Z');
    assert.equal(value("string(timestamp('2024-03-10T01:30:00.1234567891Z'))"), '2024-03-10T01:30:00.123456789Z');
    // an in-range instant whose local year is 0000 formats as Go does
    assert.equal(value("string(timestamp('0000-12-31T23:00:00-01:00'))"), '0000-12-31T23:00:00-01:00');
  });
});
