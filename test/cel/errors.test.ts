// Runtime error texts of lib/cel against cel-go v0.26.0 and k8s.io/apiserver v0.36: one table per function group,
// each row naming the upstream file (and function) the text comes from. Values reach the expressions through
// `object` (dyn, as admission policies see it), so that the type checker lets the failing call through and the
// error is the runtime's, as it is for a policy reading JSON.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { CelEvaluationError, compileExpression } from '../../lib/cel/index.js';

const object = {
  i: 5,
  big: 9223372036854775807n,
  s: 'abc',
  n: null,
  b: true,
  f: 1.5,
  list: [1, 2],
  mixed: [1, 'a'],
  nested: [[1], [2]],
  m: { a: 1 },
  ts: '2024-03-10T12:30:00Z',
  bad: 'yesterday',
  lab: 'app',
  re: '[',
};

type Row = readonly [expression: string, error: string, source: string];

function evaluationError(expression: string): string {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) return assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  try {
    result.compiled.evaluate({ object });
  } catch (error) {
    assert.ok(error instanceof CelEvaluationError, String(error));
    return error.message;
  }
  return assert.fail(`expected ${JSON.stringify(expression)} to fail`);
}

function table(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const [expression, error, source] of rows) {
      it(`${expression} → ${error}  (${source})`, () => assert.equal(evaluationError(expression), error));
    }
  });
}

table('type conversions', [
  ["int(object.s) == 0", "type conversion error from 'string' to 'int'", 'common/types/string.go String.ConvertToType (strconv.ParseInt)'],
  ["int(object.s + '99999999999999999999') == 0", "type conversion error from 'string' to 'int'", 'common/types/string.go (ParseInt range error)'],
  ["int('+' + string(object.i)) == 5 && int(' 5' + object.s) == 0", "type conversion error from 'string' to 'int'", 'common/types/string.go (ParseInt: sign, no spaces)'],
  ["uint('+' + string(object.i)) == 5u", "type conversion error from 'string' to 'uint'", 'common/types/string.go (strconv.ParseUint: no sign)'],
  ["double(object.s) == 0.0", "type conversion error from 'string' to 'double'", 'common/types/string.go (strconv.ParseFloat)'],
  ["double('1e' + string(object.i * 100)) == 0.0", "type conversion error from 'string' to 'double'", 'common/types/string.go (ParseFloat range error)'],
  ["double('-' + 'nan') == 0.0", "type conversion error from 'string' to 'double'", 'common/types/string.go (ParseFloat: NaN takes no sign)'],
  ["bool(object.s)", "type conversion error from 'string' to 'bool'", 'common/types/string.go (strconv.ParseBool)'],
  ["timestamp(object.bad) == timestamp(0)", "type conversion error from 'string' to 'google.protobuf.Timestamp'", 'common/types/string.go (time.Parse RFC3339)'],
  ["timestamp(object.ts.lowerAscii()) == timestamp(0)", "type conversion error from 'string' to 'google.protobuf.Timestamp'", 'time.Parse: the T and Z of RFC3339 are upper case'],
  ["timestamp('0000' + object.ts.substring(4)) == timestamp(0)", 'timestamp overflow', 'common/types/string.go (errTimestampOverflow)'],
  ["timestamp(object.big) == timestamp(0)", 'timestamp overflow', 'common/types/int.go Int.ConvertToType'],
  ["duration(object.s) == duration('1s')", "type conversion error from 'string' to 'google.protobuf.Duration'", 'common/types/string.go (time.ParseDuration)'],
  ["duration('5 minutes' + object.s) == duration('1s')", "type conversion error from 'string' to 'google.protobuf.Duration'", 'common/types/string.go'],
  ["duration(object.i) == duration('1s')", "type conversion error from 'int' to 'google.protobuf.Duration'", 'common/types/int.go (no duration case; stdlib declares int64_to_duration)'],
  ["int(double(object.big) * 2.0) == 0", 'integer overflow', 'common/types/overflow.go doubleToInt64Checked'],
  ["uint(object.f - 2.0) == 0u", 'unsigned integer overflow', 'common/types/overflow.go doubleToUint64Checked'],
  ["uint(-object.i) == 0u", 'unsigned integer overflow', 'common/types/overflow.go int64ToUint64Checked'],
  ["int(uint(object.big) * 2u) == 0", 'integer overflow', 'common/types/overflow.go uint64ToInt64Checked'],
  ["string(bytes(object.s) + b'\\xff') == ''", 'invalid UTF-8 in bytes, cannot convert to string', 'common/types/bytes.go Bytes.ConvertToType'],
  ['int(object.list) == 0', 'no such overload: int(list)', 'common/decls/decls.go MaybeNoSuchOverload (dynamic dispatch)'],
  ['string(object.n) == ""', 'no such overload: string(null_type)', 'common/decls/decls.go MaybeNoSuchOverload'],
]);

table('arithmetic', [
  ['object.i / 0 == 0', 'division by zero', 'common/types/err.go errDivideByZero'],
  ['object.i % 0 == 0', 'modulus by zero', 'common/types/err.go errModulusByZero'],
  ['object.big + 1 == 0', 'integer overflow', 'common/types/overflow.go addInt64Checked'],
  ['object.big * 2 == 0', 'integer overflow', 'common/types/overflow.go multiplyInt64Checked'],
  ['-(-object.big - 1) == 0', 'integer overflow', 'common/types/overflow.go negateInt64Checked'],
  ['uint(object.i) - 6u == 0u', 'unsigned integer overflow', 'common/types/overflow.go subtractUint64Checked'],
  ["object.i + 's' == ''", 'no such overload', 'common/types/int.go Int.Add (MaybeNoSuchOverloadErr)'],
  ["object.s + 1 == object.n", 'no such overload', 'common/types/string.go String.Add'],
  ['object.m + 1 == 0', 'no such overload: _+_', 'interpreter/interpretable.go evalBinary (map has no Adder trait)'],
  ['object.b + 1 == 0', 'no such overload: _+_', 'interpreter/interpretable.go evalBinary (bool has no Adder trait)'],
  ["object.s * 2 == object.n", 'no such overload', 'common/types/string.go String.Receive (receiver type)'],
  ['object.f % object.i == object.n', 'no such overload: _%_', 'interpreter/interpretable.go evalBinary (double has no Modder trait)'],
  ['-object.b', 'no such overload', 'common/stdlib/standard.go negate binding refuses bool'],
  ['-dyn(uint(object.i)) == object.n', 'no such overload: -_', 'interpreter/interpretable.go evalUnary (uint has no Negator trait)'],
  ["duration('1s') + duration(string(object.big) + 'ns') > duration('0s')", 'integer overflow', 'common/types/overflow.go addDurationChecked'],
]);

table('comparisons and logic', [
  ["double('NaN') < double(object.i)", 'NaN values cannot be ordered', 'common/types/double.go Double.Compare'],
  ["object.i < double('NaN')", 'NaN values cannot be ordered', 'common/types/int.go Int.Compare'],
  ["object.i < 's'", 'no such overload', 'common/types/int.go Int.Compare (MaybeNoSuchOverloadErr)'],
  ['object.list < object.nested', 'no such overload: _<_', 'interpreter/interpretable.go evalBinary (list has no Comparer trait)'],
  ['object.n >= 1', 'no such overload: _>=_', 'interpreter/interpretable.go evalBinary'],
  ['object.i && true', 'no such overload', 'interpreter/interpretable.go evalAnd (MaybeNoSuchOverloadErr)'],
  ['false || object.s', 'no such overload', 'interpreter/interpretable.go evalOr'],
  ['!object.i', 'no such overload', 'common/stdlib/standard.go logical_not binding'],
  ["object.i ? 1 : 2", 'no such overload', 'interpreter/attributes.go conditionalAttribute (ValOrErr)'],
  ['1 in object.i', 'no such overload', 'common/stdlib/standard.go inAggregate'],
]);

table('indexes, keys and fields', [
  ['object.list[5] == 0', 'index out of bounds: 5', 'interpreter/attributes.go resolutionError (missingIndex)'],
  ['object.list[-1] == 0', 'index out of bounds: -1', 'interpreter/attributes.go refQualify'],
  ['[1, 2][object.i] == 0', 'index out of bounds: 5', 'interpreter/attributes.go (a literal list is qualified the same way)'],
  ['object.list[object.f] == 0', 'unsupported index value 1.5 in list', 'common/types/list.go IndexOrError'],
  ['object.list[object.s] == 0', "unsupported index type 'string' in list", 'common/types/list.go IndexOrError'],
  ['object.list.foo == 0', "unsupported index type 'string' in list", 'interpreter/attributes.go refQualify (Lister)'],
  ['has(object.list.foo)', "unsupported index type 'string' in list", 'interpreter/attributes.go refQualify (presence test on a list)'],
  ['object.nope == 0', 'no such key: nope', 'interpreter/attributes.go resolutionError (missingKey)'],
  ["object.m['b'] == 0", 'no such key: b', 'interpreter/attributes.go'],
  ['object.m[object.f] == 0', 'no such key: 1.5', 'interpreter/attributes.go (%v of the key)'],
  ['object.i.foo == 0', 'no such key: foo', 'interpreter/attributes.go refQualify (a value without fields)'],
  ['object.n.foo == 0', 'no such key: foo', 'interpreter/attributes.go refQualify'],
  ['object.s[0] == 0', 'no such key: 0', 'interpreter/attributes.go refQualify'],
  ['dyn(optional.of(object.i).foo) == 0', 'no such key: foo', 'interpreter/attributes.go (non-presence select through an optional)'],
  ['optional.none().value() == 0', 'optional.none() dereference', 'common/types/optional.go'],
]);

table('comprehensions', [
  ['object.i.all(x, x > 0)', "got 'types.Int', expected iterable type", 'interpreter/interpretable.go evalFold'],
  ['object.s.exists(x, true)', "got 'types.String', expected iterable type", 'interpreter/interpretable.go evalFold'],
  ['object.n.map(x, x).size() == 0', "got 'types.Null', expected iterable type", 'interpreter/interpretable.go evalFold'],
  ['object.i.all(k, v, true)', 'unsupported comprehension range type: types.Int', 'interpreter/interpretable.go evalFold (two variables)'],
  ['object.list.all(x, x)', 'no such overload', 'interpreter/interpretable.go evalAnd (all expands to &&)'],
  ['object.list.exists_one(x, x)', 'no such overload', 'interpreter/attributes.go conditional (exists_one expands to ?:)'],
  ['object.list.filter(x, x).size() == 0', 'no such overload', 'interpreter/attributes.go conditional (filter expands to ?:)'],
  ["object.list.all(x, object.m[string(x)] == 1)", 'no such key: 1', 'the first error of && wins'],
]);

table('timestamps and durations', [
  ["timestamp('9999-12-31T23:59:59Z') + duration(object.lab.size() > 0 ? '1s' : '0s') > timestamp(0)", 'timestamp overflow', 'common/types/overflow.go addTimeDurationChecked'],
  ["timestamp('0001-01-01T00:00:00Z') - duration(string(object.i) + 's') < timestamp(0)", 'timestamp overflow', 'common/types/overflow.go subtractTimeDurationChecked'],
  ["timestamp(object.ts).getHours(object.s) == 0", 'unknown time zone abc', 'common/types/timestamp.go timeZone (time.LoadLocation)'],
  ["timestamp(object.ts).getHours(object.s + ':00') == 0", 'strconv.Atoi: parsing "abc": invalid syntax', 'common/types/timestamp.go timeZone (strconv.Atoi)'],
  ['object.i.getHours() == 0', 'no such overload: getHours(int)', 'common/decls/decls.go MaybeNoSuchOverload'],
]);

table('strings and regular expressions', [
  ["object.s.matches(object.re)", 'error parsing regexp: missing closing ]: `[`', 'common/types/string.go String.Match (regexp.MatchString)'],
  ['object.i.matches(object.s)', 'no such overload: matches', 'interpreter/interpretable.go evalBinary (int has no Matcher trait)'],
  ["object.i.matches('a')", 'no such overload', 'interpreter/optimizations.go MatchesRegexOptimization'],
  ["object.s.find(object.re) == ''", 'Illegal regex: error parsing regexp: missing closing ]: `[`', 'k8s pkg/cel/library/regex.go find'],
  ["object.s.findAll(object.re).size() == 0", 'Illegal regex: error parsing regexp: missing closing ]: `[`', 'k8s pkg/cel/library/regex.go findAll'],
  ["object.i.find('a') == ''", 'no such overload', 'k8s pkg/cel/library/regex.go FindRegexOptimization'],
  ["object.i.contains('a')", 'no such overload', 'common/types/string.go StringContains (DisableTypeGuards)'],
  ["object.i.startsWith('a')", 'no such overload', 'common/types/string.go StringStartsWith'],
  ['size(object.i) == 0', 'no such overload: size', 'interpreter/interpretable.go evalUnary (int has no Sizer trait)'],
  ["object.s.charAt(object.i) == ''", 'index out of range: 5', 'ext/strings.go charAt'],
  ["object.s.substring(object.i) == ''", 'index out of range: 5', 'ext/strings.go substr'],
  ["object.s.substring(2, 1) == ''", 'invalid substring range. start: 2, end: 1', 'ext/strings.go substr'],
  ["object.s.indexOf('a', object.i) == 0", 'index out of range: 5', 'ext/strings.go indexOfOffset'],
  ['object.mixed.join() == ""', 'join: invalid input: 1', 'ext/strings.go joinValSeparator'],
  ["object.i.charAt(0) == ''", 'no such overload: charAt(int, int)', 'common/decls/decls.go guardedBinaryOp'],
]);

table('Kubernetes lists and sets libraries', [
  ['object.list.filter(x, x > 5).min() == 0', 'min called on empty list', 'k8s pkg/cel/library/lists.go cmp'],
  ['object.nested.isSorted()', 'no such overload', 'k8s pkg/cel/library/lists.go isSorted (element without Compare)'],
  ['object.mixed.sum() == 0', 'no such overload', 'k8s pkg/cel/library/lists.go sum (Int.Add)'],
  ['[object.big, dyn(1)].sum() == 0', 'integer overflow', 'k8s pkg/cel/library/lists.go sum'],
]);

table('Kubernetes quantity, url, ip, cidr, semver', [
  ["quantity(object.s).isInteger()", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", 'k8s pkg/cel/library/quantity.go stringToQuantity (resource.ErrFormatWrong)'],
  ["quantity('1.5').asInteger() == object.i", 'cannot convert value to integer', 'k8s pkg/cel/library/quantity.go quantityToInteger'],
  ["url(object.s).getHost() == ''", 'URL parse error during conversion from string: parse "abc": invalid URI for request', 'k8s pkg/cel/library/urls.go stringToUrl'],
  ["ip(object.s).family() == 4", 'IP Address "abc" parse error during conversion from string: ParseAddr("abc"): unable to parse IP', 'k8s pkg/cel/library/ip.go parseIPAddr'],
  ["ip('fe80::1%' + object.s).family() == 6", 'IP address "fe80::1%abc" with zone value is not allowed', 'k8s pkg/cel/library/ip.go parseIPAddr'],
  ["cidr(object.s).prefixLength() == 0", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("abc"): no \'/\'', 'k8s pkg/cel/library/cidr.go stringToCIDR / parseCIDR'],
  ["semver(object.s).major() == 0", 'No Major.Minor.Patch elements found', 'k8s pkg/cel/library/semverlib.go (blang/semver Parse)'],
  ["quantity(object.lab) == quantity('1')", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", 'k8s pkg/cel/library/quantity.go'],
]);

// upstream: cel-go v0.26.0 parser/gen/CEL.g4 via ANTLR's error strategy (the expected set at the offending token),
// as kube-apiserver 1.36.3 reports them (answers of the upstream-oracle)
describe('syntax errors name the tokens ANTLR expected where the expression is cut', () => {
  const atoms = "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
  const rows: ReadonlyArray<[string, string]> = [
    ['object.nope(', `mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', ${atoms}}`],
    ['(', `mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', ${atoms}}`],
    ['[', `mismatched input '<EOF>' expecting {'[', ']', '{', '(', '.', ',', '-', '!', '?', ${atoms}}`],
    ['{', `mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', ${atoms}}`],
    ['x[', `mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', ${atoms}}`],
    ['Object{', "mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"],
    ['x.?', "mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}"],
    ['x.', "no viable alternative at input '.'"],
  ];
  for (const [expression, message] of rows) {
    it(expression, () => {
      const result = compileExpression({ expression, environment: 'validatingPolicy' });
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.message, new RegExp(`Syntax error: ${message.replace(/[[\]{}()?.*+^$|\\]/g, '\\$&')}`));
    });
  }
});
