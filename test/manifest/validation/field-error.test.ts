import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  aggregate,
  duplicate,
  FieldError,
  forbidden,
  internalError,
  invalid,
  Named,
  notFound,
  notSupported,
  Path,
  required,
  tooLong,
  tooMany,
} from '../../../lib/manifest/validation/index.js';
import { goJsonMarshal, goQuote, goTrimSpace } from '../../../lib/validation/go-format.js';

describe('FieldError.toString (field.Error.Error)', () => {
  const cases: ReadonlyArray<{ name: string; error: FieldError; text: string }> = [
    { name: 'required without detail', error: required('spec.failurePolicy', ''), text: 'spec.failurePolicy: Required value' },
    { name: 'required with detail', error: required(Path.of('metadata').child('name'), 'name or generateName is required'),
      text: 'metadata.name: Required value: name or generateName is required' },
    { name: 'invalid string is %q-quoted', error: invalid('x', 'a"b\\c\n\t\u0001\u00a0é', 'd'),
      text: 'x: Invalid value: "a\\"b\\\\c\\n\\t\\x01\\u00a0é": d' },
    { name: 'invalid int is plain', error: invalid('webhooks[0].timeoutSeconds', 31, 'the timeout value must be between 1 and 30 seconds'),
      text: 'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds' },
    { name: 'invalid list is json.Marshal-ed', error: invalid('r.operations', ['*', 'CREATE'], "if '*' is present, must not specify other operations"),
      text: `r.operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations` },
    { name: 'invalid struct list keeps field order', error: invalid('a', [{ Key: 'k', ValueExpression: '"<v>"' }], 'm'),
      text: 'a: Invalid value: [{"Key":"k","ValueExpression":"\\"\\u003cv\\u003e\\""}]: m' },
    { name: 'named string type uses JSON, not %q', error: notSupported('f', new Named('<x>&'), ['Fail', 'Ignore']),
      text: 'f: Unsupported value: "\\u003cx\\u003e\\u0026": supported values: "Fail", "Ignore"' },
    { name: 'unsupported without valid values', error: notSupported('f', 'v', []), text: 'f: Unsupported value: "v"' },
    { name: 'duplicate', error: duplicate('webhooks[1].name', 'a.b.c'), text: 'webhooks[1].name: Duplicate value: "a.b.c"' },
    { name: 'forbidden', error: forbidden('metadata.namespace', 'not allowed on this type'), text: 'metadata.namespace: Forbidden: not allowed on this type' },
    { name: 'too long never shows the value', error: tooLong('metadata.annotations', 262144),
      text: 'metadata.annotations: Too long: may not be more than 262144 bytes' },
    { name: 'too long, one byte', error: tooLong('f', 1), text: 'f: Too long: may not be more than 1 byte' },
    { name: 'too many', error: tooMany('webhooks[0].matchConditions', 65, 64),
      text: 'webhooks[0].matchConditions: Too many: 65: must have at most 64 items' },
    { name: 'too many, omitted count', error: tooMany('f', -1, 1), text: 'f: Too many: must have at most 1 item' },
    { name: 'not found', error: notFound('f', 'x'), text: 'f: Not found: "x"' },
    { name: 'internal error', error: internalError('f', 'boom'), text: 'f: Internal error: boom' },
    { name: 'path keys and indexes', error: required(Path.of('spec').child('a', 'b').index(2).key('k'), ''), text: 'spec.a.b[2][k]: Required value' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(c.error.toString(), c.text);
      assert.equal(aggregate([c.error]), c.text);
    });
  }

  it('constructor keeps type, field, value and detail', () => {
    const e = new FieldError('Invalid value', Path.of('spec').child('x'), 3, 'd');
    assert.deepEqual([e.type, e.field, e.value, e.detail], ['Invalid value', 'spec.x', 3, 'd']);
  });
});

describe('aggregate (ErrorList.ToAggregate().Error())', () => {
  it('is empty for no errors', () => assert.equal(aggregate([]), ''));
  it('brackets several errors and drops repeated messages', () => {
    const a = required('a', '');
    const b = invalid('b', 'x', 'bad');
    assert.equal(aggregate([a, b, required('a', '')]), '[a: Required value, b: Invalid value: "x": bad]');
  });
  it('collapses repeats of a single message to that message', () => {
    assert.equal(aggregate([required('a', ''), required('a', '')]), 'a: Required value');
  });
});

describe('Go formatting helpers', () => {
  it('goQuote escapes like strconv.Quote', () => {
    assert.equal(goQuote('\u0007\u007f\u2028\u{1F600}\u{E0001}'), '"\\a\\x7f\\u2028\u{1F600}\\U000e0001"');
  });
  it('goJsonMarshal escapes like encoding/json', () => {
    assert.equal(goJsonMarshal(['\b\f\u0000<>&\u2028', 1, true, null]), '["\\b\\f\\u0000\\u003c\\u003e\\u0026\\u2028",1,true,null]');
  });
  it('goTrimSpace trims unicode.IsSpace, not U+FEFF', () => {
    assert.equal(goTrimSpace('\u0085\u00a0 x \u3000\n'), 'x');
    assert.equal(goTrimSpace('\ufeffx'), '\ufeffx');
  });
});
