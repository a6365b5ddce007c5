// The Kubernetes CEL libraries and cel-go extensions lib/cel evaluates, with the examples of their upstream
// documentation (k8s.io/apiserver/pkg/cel/library, cel-go ext) compiled and run as a ValidatingAdmissionPolicy
// expression would be.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { celValueToJson, compileExpression, CelEvaluationError } from '../../lib/cel/index.js';

const activation = {
  object: {
    metadata: { name: 'web', labels: { app: 'web', team: 'payments' } },
    spec: { replicas: 3, containers: [{ name: 'app', image: 'registry.example.com/web:1.2' }, { name: 'sidecar', image: 'docker.io/proxy:2' }] },
  },
};

function evaluate(expression: string): unknown {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  return result.compiled.evaluate(activation);
}

function evaluationError(expression: string): string {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (!result.ok) assert.fail(`expected ${JSON.stringify(expression)} to compile, got: ${result.message}`);
  try {
    result.compiled.evaluate(activation);
  } catch (error) {
    assert.ok(error instanceof CelEvaluationError);
    return error.message;
  }
  return assert.fail(`expected ${JSON.stringify(expression)} to fail`);
}

function compileError(expression: string): string {
  const result = compileExpression({ expression, environment: 'validatingPolicy' });
  if (result.ok) assert.fail(`expected ${JSON.stringify(expression)} not to compile`);
  return result.message;
}

/** Each expression must evaluate to true. */
function holds(title: string, expressions: readonly string[]): void {
  describe(title, () => {
    for (const expression of expressions) {
      it(expression, () => assert.equal(evaluate(expression), true));
    }
  });
}

holds('library.Lists', [
  '[1, 2, 3].isSorted()',
  "['a', 'b', 'b', 'c'].isSorted()",
  '![2.0, 1.0].isSorted()',
  '[1].isSorted()',
  '[].isSorted()',
  '[1, 3].sum() == 4',
  '[1.0, 3.0].sum() == 4.0',
  "[duration('1m'), duration('1s')].sum() == duration('1m1s')",
  '[].sum() == 0',
  '[1, 3].min() == 1',
  '[1, 3].max() == 3',
  '[1].min() == 1',
  "['b', 'a'].min() == 'a'",
  '[1, 2, 2, 3].indexOf(2) == 1',
  "['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
  '[1.0].indexOf(1.1) == -1',
  "[].indexOf('string') == -1",
  "object.spec.containers.map(c, c.name).indexOf('sidecar') == 1",
]);

describe('library.Lists errors', () => {
  it('min and max of an empty list', () => {
    assert.equal(evaluationError('[].min() == 1'), 'min called on empty list');
    assert.equal(evaluationError('dyn([]).max() == 1'), 'max called on empty list');
  });
});

holds('ext.Lists version 3 (cel-go ext/lists.go; base.go 1.34)', [
  '[1, 2, 3, 4].slice(1, 3) == [2, 3]',
  '[[1], [2, 3]].flatten() == [1, 2, 3]',
  '[dyn(1), dyn([dyn(2), dyn([3])])].flatten(2) == [1, 2, 3]',
  '[3, 1, 2].sort() == [1, 2, 3]',
  "['b', 'a'].sort() == ['a', 'b']",
  "object.spec.containers.sortBy(c, c.name).map(c, c.name) == ['app', 'sidecar']",
  "['ccc', 'a', 'bb'].sortBy(s, -s.size()) == ['ccc', 'bb', 'a']",
  'lists.range(3) == [0, 1, 2]',
  'lists.range(0) == []',
  '[1, 2, 3].reverse() == [3, 2, 1]',
  '[1, 2, 1, 3, 2].distinct() == [1, 2, 3]',
]);

describe('ext.Lists errors', () => {
  it('slice bounds, with ext/lists.go texts', () => {
    assert.equal(evaluationError('[1, 2].slice(2, 1) == []'), 'cannot slice(2, 1), start index must be less than or equal to end index');
    assert.equal(evaluationError('[1, 2].slice(0, 3) == []'), 'cannot slice(0, 3), list is length 2');
    assert.equal(evaluationError('[1, 2].slice(-1, 1) == []'), 'cannot slice(-1, 1), negative indexes not supported');
  });
  it('sort keys of different types', () => {
    assert.equal(evaluationError("[dyn(1), dyn('a')].sort() == []"), 'list elements must have the same type');
  });
});

holds('library.Regex (RE2 syntax, linear time)', [
  "'abc 123'.find('[0-9]+') == '123'",
  "'abc 123'.find('xyz') == ''",
  "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
  "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
  "'123 abc 456'.findAll('xyz') == []",
  // Go's FindAllString skips an empty match right after a match
  "'123 abc 456'.findAll('[0-9]*') == ['123', '', '', '', '', '456']",
  "'ABC'.matches('(?i)abc')",
  "object.spec.containers.all(c, c.image.matches('^[a-z.]+/'))",
]);

describe('regular expressions', () => {
  it('rejects invalid pattern literals at compile time (cel.ValidateRegexLiterals)', () => {
    assert.match(compileError("object.metadata.name.matches('a(')"), /<input>:1:30: invalid matches argument/);
  });
  it('reports invalid dynamic patterns at run time with Go wording', () => {
    assert.equal(evaluationError("object.metadata.name.matches(object.metadata.name + '(')"), 'error parsing regexp: missing closing ): `web(`');
  });
  it('runs in linear time where a backtracking engine would not (ReDoS)', () => {
    const started = performance.now();
    assert.equal(evaluate(`'${'a'.repeat(5000)}!'.matches('^(a+)+$')`), false);
    assert.ok(performance.now() - started < 1000);
  });
});

holds('library.URLs', [
  "url('https://user:pass@example.com:80/path?query=val#fragment').getHost() == 'example.com:80'",
  "url('/absolute-path').getScheme() == ''",
  "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
  "isURL('/absolute-path')",
  "!isURL('https://a:b:c/')",
  "!isURL('../relative-path')",
  "url('https://example.com/').getScheme() == 'https'",
  "url('https://example.com:80/').getHost() == 'example.com:80'",
  "url('https://example.com/').getHost() == 'example.com'",
  "url('https://[::1]:80/').getHost() == '[::1]:80'",
  "url('https://[::1]/').getHost() == '[::1]'",
  "url('/path').getHost() == ''",
  "url('https://example.com:80/').getHostname() == 'example.com'",
  "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
  "url('https://[::1]:80/').getHostname() == '::1'",
  "url('/path').getHostname() == ''",
  "url('https://example.com:80/').getPort() == '80'",
  "url('https://example.com/').getPort() == ''",
  "url('/path').getPort() == ''",
  "url('https://example.com/path').getEscapedPath() == '/path'",
  "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
  "url('https://example.com').getEscapedPath() == ''",
  "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
  "url('https://example.com/path?key with spaces=value with spaces').getQuery() == {'key with spaces': ['value with spaces']}",
  "url('https://example.com/path?').getQuery() == {}",
  "url('https://example.com/path').getQuery() == {}",
]);

describe('library.URLs errors', () => {
  it('url() of an invalid URL', () => {
    assert.equal(evaluationError("url('../relative-path') == url('/')"), 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request');
  });
});

holds('library.Quantity', [
  "quantity('1.5G') == quantity('1500M')",
  "isQuantity('1.3G')",
  "isQuantity('1.3Gi')",
  "!isQuantity('1,3G')",
  "isQuantity('10000k')",
  "!isQuantity('200K')",
  "!isQuantity('Three')",
  "!isQuantity('Mi')",
  "quantity('50000000G').isInteger()",
  "quantity('50k').isInteger()",
  "!quantity('9999999999999999999999999999999999999G').isInteger()",
  "quantity('50k').asInteger() == 50000",
  "quantity('50k').sub(20000).asApproximateFloat() == 30000.0",
  "quantity('50k').add(quantity('20k')) == quantity('70k')",
  "quantity('50k').add(20) == quantity('50020')",
  "quantity('50k').sub(quantity('20k')) == quantity('30k')",
  "quantity('50k').sub(20000) == quantity('30k')",
  "quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')",
  "quantity('200M').compareTo(quantity('0.2G')) == 0",
  "quantity('50M').compareTo(quantity('50Mi')) == -1",
  "quantity('50Mi').compareTo(quantity('50M')) == 1",
  "quantity('150Mi').isGreaterThan(quantity('100Mi'))",
  "!quantity('50Mi').isGreaterThan(quantity('100Mi'))",
  "quantity('50M').isLessThan(quantity('100M'))",
  "!quantity('100M').isLessThan(quantity('50M'))",
  "quantity('-5').sign() == -1 && sign(quantity('0')) == 0",
  "quantity('1m').asApproximateFloat() == 0.001",
  "quantity('1e3') == quantity('1k')",
  // values below 1n are rounded up to 1n, as resource.ParseQuantity does
  "quantity('0.1n') == quantity('1n')",
]);

describe('library.Quantity errors', () => {
  it('quantity() and asInteger() failures', () => {
    assert.equal(evaluationError("quantity('200K') == quantity('1')"), "unable to parse quantity's suffix");
    assert.equal(
      evaluationError("quantity('Three') == quantity('1')"),
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    assert.equal(evaluationError("quantity('9999999999999999999999999999999999999G').asInteger() == 1"), 'cannot convert value to integer');
  });
});

holds('library.IP', [
  "ip('127.0.0.1').family() == 4",
  "ip('::1').family() == 6",
  "isIP('127.0.0.1')",
  "isIP('::1')",
  "!isIP('127.0.0.256')",
  "!isIP(':::1')",
  "!isIP('::ffff:1.2.3.4')",
  "!isIP('fe80::1%eth0')",
  "!isIP('127.0.0.01')",
  "ip.isCanonical('127.0.0.1')",
  "ip.isCanonical('2001:db8::abcd')",
  "!ip.isCanonical('2001:DB8::ABCD')",
  "!ip.isCanonical('2001:db8::0:0:0:abcd')",
  "ip('0.0.0.0').isUnspecified()",
  "!ip('127.0.0.1').isUnspecified()",
  "ip('::').isUnspecified()",
  "ip('127.0.0.1').isLoopback()",
  "!ip('192.168.0.1').isLoopback()",
  "ip('::1').isLoopback()",
  "!ip('2001:db8::abcd').isLoopback()",
  "ip('224.0.0.1').isLinkLocalMulticast()",
  "!ip('224.0.1.1').isLinkLocalMulticast()",
  "ip('ff02::1').isLinkLocalMulticast()",
  "!ip('fd00::1').isLinkLocalMulticast()",
  "ip('169.254.169.254').isLinkLocalUnicast()",
  "!ip('192.168.0.1').isLinkLocalUnicast()",
  "ip('fe80::1').isLinkLocalUnicast()",
  "!ip('fd80::1').isLinkLocalUnicast()",
  "ip('192.168.0.1').isGlobalUnicast()",
  "!ip('255.255.255.255').isGlobalUnicast()",
  "ip('2001:db8::abcd').isGlobalUnicast()",
  "!ip('ff00::1').isGlobalUnicast()",
  "string(ip('2001:db8:0:0::1')) == '2001:db8::1'",
  "ip('10.0.0.1') == ip('10.0.0.1') && ip('10.0.0.1') != ip('10.0.0.2')",
  'type(ip("10.0.0.1")) == net.IP',
]);

describe('library.IP errors', () => {
  it('ip() of an invalid address', () => {
    assert.equal(evaluationError("ip('127.0.0.256').family() == 4"), 'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255');
    assert.equal(evaluationError("ip('::ffff:1.2.3.4').family() == 6"), 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
  });
});

holds('library.CIDR', [
  "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
  "!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))",
  "cidr('192.168.0.0/24').containsIP('192.168.0.1')",
  "!cidr('192.168.0.0/24').containsIP('192.168.1.1')",
  "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))",
  "!cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))",
  "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')",
  "!cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')",
  "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
  "cidr('192.168.0.1/24').ip().family() == 4",
  "cidr('::1/128').ip() == ip('::1')",
  "cidr('::1/128').ip().family() == 6",
  "cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24')",
  "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
  "cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()",
  "cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()",
  "cidr('192.168.0.0/16').prefixLength() == 16",
  "cidr('::1/128').prefixLength() == 128",
  "isCIDR('192.168.0.0/16')",
  "isCIDR('::1/128')",
  "!isCIDR('192.168.0.0/33')",
  "!isCIDR('::1/129')",
  "string(cidr('2001:db8::/32')) == '2001:db8::/32'",
]);

holds('library.Semver', [
  "semver('1.0.0') == semver('1.0.0')",
  "semver('0.1.0-alpha.1').major() == 0",
  "semver('v1.0.0', true) == semver('1.0.0')",
  "semver('1.0', true) == semver('1.0.0')",
  "semver('01.01.01', true) == semver('1.1.1')",
  "isSemver('1.0.0')",
  "!isSemver('hello')",
  "!isSemver('v1.0')",
  "isSemver('v1.0', true)",
  "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
  "semver('1.2.3').compareTo(semver('1.2.3')) == 0",
  "semver('1.2.3').compareTo(semver('2.0.0')) == -1",
  "semver('1.2.3').compareTo(semver('0.1.2')) == 1",
  "semver('1.2.3').isLessThan(semver('1.3.0'))",
  "semver('1.0.0-alpha').isLessThan(semver('1.0.0'))",
  "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
  "semver('1.0.0-beta.11').isGreaterThan(semver('1.0.0-beta.2'))",
  "semver('1.0.0+build.1') == semver('1.0.0+build.2')",
]);

describe('library.Semver errors', () => {
  it('semver() of an invalid version', () => {
    assert.equal(evaluationError("semver('200K').major() == 1"), 'No Major.Minor.Patch elements found');
    assert.equal(evaluationError("semver('01.1.1').major() == 1"), 'Major number must not contain leading zeroes "01"');
  });
});

describe('library.Format', () => {
  it('validate() returns none for a valid value', () => {
    for (const expression of [
      "format.dns1123Label().validate('my-label-name')",
      "format.dns1123Subdomain().validate('apiextensions.k8s.io')",
      "format.dns1035Label().validate('my-label-name')",
      "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')",
      "format.dns1123LabelPrefix().validate('my-label-prefix-')",
      "format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')",
      "format.dns1035LabelPrefix().validate('my-label-prefix-')",
      "format.labelValue().validate('my_value')",
      "format.uri().validate('http://example.com')",
      "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')",
      "format.byte().validate('aGVsbG8=')",
      "format.date().validate('2021-01-01')",
      "format.datetime().validate('2021-01-01T00:00:00Z')",
      "format.named('dns1123Label').value().validate('abc')",
    ]) {
      assert.equal(evaluate(`!${expression}.hasValue()`), true, expression);
    }
  });
  it('validate() returns the upstream messages for an invalid value', () => {
    assert.deepEqual(celValueToJson(evaluate("format.dns1123Label().validate('ABC')")), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(celValueToJson(evaluate("format.dns1123Label().validate('a.b')")), ['must not contain dots']);
    assert.deepEqual(celValueToJson(evaluate("format.uri().validate('foo')")), ['parse "foo": invalid URI for request']);
    assert.deepEqual(celValueToJson(evaluate("format.uuid().validate('x')")), ['does not match the UUID format']);
    assert.deepEqual(celValueToJson(evaluate("format.byte().validate('!')")), ['invalid base64']);
    assert.deepEqual(celValueToJson(evaluate("format.date().validate('2021-02-29')")), ['invalid date']);
    assert.deepEqual(celValueToJson(evaluate("format.datetime().validate('yesterday')")), ['invalid datetime']);
    assert.equal(evaluate("format.named('nope').hasValue()"), false);
    assert.equal(evaluate("format.dns1123Label().validate(object.metadata.name).orValue([]).size() == 0"), true);
  });
});

holds('ext.Sets', [
  'sets.contains([1, 2, 3, 4], [2, 3])',
  '!sets.contains([1, 2], [3])',
  'sets.contains([1], [])',
  'sets.equivalent([1, 2, 3], [3, 2, 1, 1])',
  '!sets.equivalent([1], [1, 2])',
  'sets.intersects([1], [1, 2])',
  '!sets.intersects([1], [2])',
]);

holds('ext.Strings (Kubernetes: version 2)', [
  "'hello'.charAt(4) == 'o'",
  "'hello'.charAt(5) == ''",
  "'hello mellow'.indexOf('') == 0",
  "'hello mellow'.indexOf('ello') == 1",
  "'hello mellow'.indexOf('jello') == -1",
  "'hello mellow'.indexOf('', 2) == 2",
  "'hello mellow'.indexOf('ello', 2) == 7",
  "'hello mellow'.lastIndexOf('') == 12",
  "'hello mellow'.lastIndexOf('ello') == 7",
  "'hello mellow'.lastIndexOf('ello', 6) == 1",
  "'TacoCat'.lowerAscii() == 'tacocat'",
  "'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'",
  "'TacoCat'.upperAscii() == 'TACOCAT'",
  "'hello hello'.replace('he', 'we') == 'wello wello'",
  "'hello hello'.replace('he', 'we', -1) == 'wello wello'",
  "'hello hello'.replace('he', 'we', 1) == 'wello hello'",
  "'hello hello'.replace('he', 'we', 0) == 'hello hello'",
  "'hello hello'.replace('', '_') == '_h_e_l_l_o_ _h_e_l_l_o_'",
  "'hello hello hello'.split(' ') == ['hello', 'hello', 'hello']",
  "'hello hello hello'.split(' ', 0) == []",
  "'hello hello hello'.split(' ', 1) == ['hello hello hello']",
  "'hello hello hello'.split(' ', 2) == ['hello', 'hello hello']",
  "'tacocat'.substring(4) == 'cat'",
  "'tacocat'.substring(0, 4) == 'taco'",
  "'  \\ttrim\\n    '.trim() == 'trim'",
  "['hello', 'mellow'].join() == 'hellomellow'",
  "['hello', 'mellow'].join(' ') == 'hello mellow'",
  "[].join('/') == ''",
  "'this is a string: %s\\nand an integer: %d'.format(['str', 42]) == 'this is a string: str\\nand an integer: 42'",
  "'%f'.format([3.14]) == '3.140000'",
  "'5 in binary: %b'.format([5]) == '5 in binary: 101'",
  "'26 in hex: %x'.format([26]) == '26 in hex: 1a'",
  "'30 in octal: %o'.format([30]) == '30 in octal: 36'",
  "'%s replicas'.format([object.spec.replicas]) == '3 replicas'",
  'strings.quote(\'single-quote with "double quote"\') == \'"single-quote with \\\\"double quote\\\\""\'',
]);

describe('ext.Strings version 2 has no reverse (added in version 3)', () => {
  it('rejects reverse() on strings like Kubernetes (ext.Strings v2 has none; ext.Lists v3 reverses lists only)', () => {
    assert.match(compileError("'abc'.reverse() == 'cba'"), /found no matching overload for 'reverse' applied to 'string\.\(\)'/);
  });
});

holds('two-variable comprehensions (ext.TwoVarComprehensions)', [
  "{'a': 1}.all(k, v, v > 0)",
  "object.metadata.labels.all(k, v, k.size() > 2 && v != '')",
  "object.metadata.labels.exists(k, v, k == 'team' && v == 'payments')",
  "[10, 20].all(i, v, v > i)",
  "[1, 2, 3].existsOne(i, v, v == 2)",
  "[0, 5, 3].exists_one(i, v, i == v)",
  "[1, 2].transformList(i, v, v * 2) == [2, 4]",
  "[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]",
  "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}",
  "{'a': 1, 'b': 2}.transformMap(k, v, v > 1, v) == {'b': 2}",
  "['x', 'y'].transformMap(i, v, v) == {0: 'x', 1: 'y'}",
  "{'a': 1, 'b': 2}.transformMapEntry(k, v, {v: k}) == {1: 'a', 2: 'b'}",
  "object.spec.containers.transformMapEntry(i, c, {c.name: c.image})['app'] == 'registry.example.com/web:1.2'",
]);

describe('two-variable comprehension errors', () => {
  it('transformMapEntry with a repeated key', () => {
    assert.equal(evaluationError("{'a': 1, 'b': 1}.transformMapEntry(k, v, {v: k}) == {}"), 'insert failed: key 1 already exists');
  });
});

holds('optionals and cel.bind', [
  'object.?spec.?replicas.orValue(1) == 3',
  'object.?spec.?paused.orValue(false) == false',
  "object.metadata.?labels[?'app'] == optional.of('web')",
  "optional.ofNonZeroValue('').orValue('default') == 'default'",
  'optional.of(1).optMap(x, x + 1) == optional.of(2)',
  'optional.none().optFlatMap(x, optional.of(x)) == optional.none()',
  "[?object.metadata.?annotations, ?optional.of(dyn(1))] == [1]",
  "{?'a': optional.none(), 'b': 2} == {'b': 2}",
  'cel.bind(n, object.spec.containers.size(), n * n) == 4',
  'has(object.metadata.labels.app)',
  "has({'a': 1}.a) && !has({'a': 1}.b)",
]);

// upstream: github.com/google/cel-go@v0.26.0 cel/library.go decorateOptionalOr: evalOptionalOr and evalOptionalOrValue
// return a receiver that is not an optional unchanged, and `or` returns its alternative as evaluated. The checker
// still refuses a receiver statically known not to be an optional. Results confirmed by running cel-go v0.26.0.
describe('or and orValue on values that are not optionals (cel-go v0.26.0)', () => {
  holds('the receiver comes back unchanged', [
    "object.spec.containers.orValue([]) == object.spec.containers",
    "object.spec.containers.orValue([]).size() == 2",
    "object.metadata.labels.orValue({}) == {'app': 'web', 'team': 'payments'}",
    'object.spec.replicas.orValue(1) == 3',
    "dyn(object.metadata.name.orValue(1)) == 'web'",
    'dyn([1]).orValue([2]) == [1]',
    'object.spec.containers.or(optional.none()) == object.spec.containers',
    'dyn(object.spec.replicas.or(optional.of(1))) == 3',
    'object.spec.replicas.orValue(1 / 0) == 3',
  ]);
  holds("or's alternative is returned as it evaluates", [
    'dyn(optional.none().or(dyn(1))) == 1',
    'dyn(dyn(optional.none()).or(dyn(1))) == 1',
    'dyn(optional.of(2)).orValue(1) == 2',
  ]);
  it('an error in the receiver is still the error', () => {
    assert.equal(evaluationError('object.spec.missing.orValue(1) == 1'), 'no such key: missing');
  });
  it('a receiver statically not an optional is still refused at compile time', () => {
    assert.match(compileError('request.userInfo.groups.orValue([])'), /found no matching overload for 'orValue' applied to 'list\(string\)\.\(list\(dyn\)\)'/);
    assert.match(compileError('[1].or(optional.none())'), /found no matching overload for 'or' applied to 'list\(int\)\.\(optional_type\(dyn\)\)'/);
  });
});

holds('core semantics Kubernetes policies hit', [
  // heterogeneous equality and cross-type numeric comparison
  'dyn(1) == 1.0 && dyn(1u) == 1 && 1 < 1.5 && 2u > 1',
  "[dyn(1), dyn('a')] == [dyn(1), dyn('a')]",
  'object.spec.replicas == 3.0',
  // int64 arithmetic is checked
  '9223372036854775807 - 1 + 1 == 9223372036854775807',
  // timestamps with nanoseconds and durations
  "timestamp('2024-01-01T00:00:00.000000001Z') > timestamp('2024-01-01T00:00:00Z')",
  "timestamp('2024-01-01T00:00:00Z') + duration('1h') > timestamp('2024-01-01T00:30:00Z')",
  "duration('1h30m').getMinutes() == 90",
  "timestamp('2024-03-10T10:00:00Z').getHours('America/Los_Angeles') == 3",
  "string(timestamp('2024-01-01T00:00:00Z')) == '2024-01-01T00:00:00Z'",
  // errors are absorbed by && / || like cel-go
  '(1 / 0 == 1) || true',
  '!((1 / 0 == 1) && false)',
  "object.spec.containers.exists(c, c.nope == 1) || true",
  // int-keyed maps
  "{1: 'one', 2: 'two'}[1] == 'one' && {1: 'one'}.exists(k, k == 1)",
]);

describe('core semantics errors', () => {
  it('int64 overflow and division by zero', () => {
    assert.equal(evaluationError('9223372036854775807 + 1 == 0'), 'integer overflow');
    assert.equal(evaluationError('-(-9223372036854775808) == 0'), 'integer overflow');
    assert.equal(evaluationError('(-9223372036854775808) / -1 == 0'), 'integer overflow');
    assert.equal(evaluationError('int(double(object.spec.replicas) * 1e99) == 0'), 'integer overflow');
    assert.equal(evaluationError('object.spec.replicas / 0 == 0'), 'division by zero');
    assert.equal(evaluationError('object.spec.replicas % 0 == 0'), 'modulus by zero');
    assert.equal(evaluationError('0u - 1u == 0u'), 'unsigned integer overflow');
  });
  it('missing keys and fields', () => {
    assert.equal(evaluationError('object.spec.nope == 1'), 'no such key: nope');
    assert.equal(evaluationError("object.metadata.labels['nope'] == 'x'"), 'no such key: nope');
    assert.equal(evaluationError('object.spec.containers[5].name == "x"'), 'index out of bounds: 5');
  });
});

describe('composition variables', () => {
  it('absorb the error of a lazily evaluated variable in || like any CEL error', () => {
    const failing = compileExpression({ expression: 'object.spec.nope == 1', environment: 'validatingPolicy' });
    const uses = compileExpression({ expression: 'variables.bad || true', environment: 'validatingPolicy', variableNames: ['bad'] });
    assert.ok(failing.ok && uses.ok);
    const variables = {};
    Object.defineProperty(variables, 'bad', { enumerable: true, get: () => failing.compiled.evaluate(activation) });
    assert.equal(uses.compiled.evaluate({ ...activation, variables }), true);
  });
});

describe('has() on JSON nulls', () => {
  it('is false for a field of a null value, as cel-go presence tests are', () => {
    const result = compileExpression({ expression: 'has(object.spec.securityContext.privileged)', environment: 'validatingPolicy' });
    assert.ok(result.ok);
    assert.equal(result.compiled.evaluate({ object: { spec: { securityContext: null } } }), false);
    assert.equal(result.compiled.evaluate({ object: { spec: { securityContext: { privileged: false } } } }), true);
  });
});
