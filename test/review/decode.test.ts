// The wire format without a server: parse messages, the JSON fault locator (agrees with JSON.parse on what is
// valid), response encoding (field order, omitempty, uid echo), content type/encoding checks and ?timeout=.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeAdmissionReviewResponse, ReviewError } from '../../lib/review/answer.js';
import { describeJSONSyntaxError, parseAdmissionReview } from '../../lib/review/decode.js';
import { checkContentEncoding, checkContentType, parseGoDuration, requestTimeoutMs } from '../../lib/server/request-checks.js';
import { loadCaptures } from '../server/helpers.js';

describe('parseAdmissionReview', () => {
  test('captures parse to their version, request and the very same body buffer', () => {
    for (const capture of loadCaptures()) {
      const parsed = parseAdmissionReview(capture.body);
      assert.equal(parsed.apiVersion, 'admission.k8s.io/v1');
      assert.equal(parsed.body, capture.body);
      assert.equal(parsed.request.uid, (JSON.parse(capture.body.toString()) as { request: { uid: string } }).request.uid);
      assert.equal(parsed.request.kind.version, 'v1');
    }
  });

  test('faults are ReviewErrors with status 400', () => {
    const err = ((): unknown => {
      try {
        parseAdmissionReview(Buffer.from('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x"}}'));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(err instanceof ReviewError);
    assert.equal(err.status, 400);
    assert.equal(err.message, 'invalid AdmissionReview: request.operation: Required value');
  });
});

describe('describeJSONSyntaxError', () => {
  const cases: Array<[string, number, string]> = [
    ['', 0, 'unexpected end of JSON input'],
    ['{', 1, 'unexpected end of JSON input'],
    ['{"a":1,}', 7, "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', 5, "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 7, `invalid character '"' after object key:value pair`],
    ['[1,2 3]', 5, "invalid character '3' after array element"],
    ['{"a":tru}', 8, "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":01}', 6, "invalid character '1' after object key:value pair"],
    ['{"a":-}', 6, "invalid character '}' in numeric literal"],
    ['{"a":1.}', 7, "invalid character '}' after decimal point in numeric literal"],
    ['{"a":"\\x"}', 7, "invalid character 'x' in string escape code"],
    ['{"a":"\\u12g4"}', 10, "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a":"line\nbreak"}', 10, "invalid character '\\x0a' in string literal"],
    ['{} {}', 3, "invalid character '{' after top-level value"],
    ["{'a':1}", 1, "invalid character '\\'' looking for beginning of object key string"],
    ['\ufeff{}', 0, "invalid character '\ufeff' looking for beginning of value"],
  ];
  for (const [text, position, message] of cases) {
    test(`${JSON.stringify(text)} → ${message} at ${position}`, () => {
      assert.throws(() => JSON.parse(text));
      assert.deepEqual(describeJSONSyntaxError(text), { position, message });
    });
  }

  test('agrees with JSON.parse on every prefix and on single-byte corruptions of the captures', () => {
    const replacements = ['}', ']', ',', ':', '"', '\\', 'x', ' ', '\n', '0', '-', '{', '['];
    let checked = 0;
    for (const capture of loadCaptures().slice(0, 3)) {
      const text = capture.body.toString();
      const variants: string[] = [];
      for (let n = 0; n < text.length; n += 13) variants.push(text.slice(0, n));
      for (let i = 0; i < text.length; i += 17) for (const r of replacements) variants.push(text.slice(0, i) + r + text.slice(i + 1));
      for (const v of variants) {
        let valid = true;
        try {
          JSON.parse(v);
        } catch {
          valid = false;
        }
        const fault = describeJSONSyntaxError(v);
        assert.equal(fault === undefined, valid, `${valid ? 'valid' : 'invalid'} JSON judged otherwise: ${JSON.stringify(v.slice(0, 80))}… ${JSON.stringify(fault)}`);
        checked++;
      }
    }
    assert.ok(checked > 1_000);
  });

  test('deep nesting does not overflow the stack', () => {
    const deep = '['.repeat(200_000) + '}';
    assert.deepEqual(describeJSONSyntaxError(deep), { position: 200_000, message: "invalid character '}' looking for beginning of value" });
  });
});

describe('encodeAdmissionReviewResponse', () => {
  const review = { apiVersion: 'admission.k8s.io/v1' as const, request: { uid: 'u-1' } as never };

  test('minimal allow: uid echoed, allowed set, empty optional fields left out', () => {
    const body = encodeAdmissionReviewResponse(review, { uid: 'other', allowed: true, warnings: [], auditAnnotations: {}, patch: '' });
    assert.equal(body.toString(), '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":true}}');
  });

  test('allowed is false unless set to true', () => {
    const body = encodeAdmissionReviewResponse(review, {});
    assert.equal(body.toString(), '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u-1","allowed":false}}');
  });

  test('field order: uid, allowed, status, warnings, auditAnnotations, patch, patchType', () => {
    const body = encodeAdmissionReviewResponse({ ...review, apiVersion: 'admission.k8s.io/v1beta1' }, {
      patchType: 'JSONPatch', patch: 'W10=', auditAnnotations: { a: 'b' }, warnings: ['w'], status: { code: 403, message: 'no' }, allowed: false,
    });
    assert.deepEqual(Object.keys((JSON.parse(body.toString()) as { response: object }).response), ['uid', 'allowed', 'status', 'warnings', 'auditAnnotations', 'patch', 'patchType']);
    assert.match(body.toString(), /^\{"apiVersion":"admission\.k8s\.io\/v1beta1","kind":"AdmissionReview",/);
  });
});

describe('headers and ?timeout=', () => {
  test('Content-Type application/json with or without parameters', () => {
    checkContentType('application/json');
    checkContentType('application/json; charset=utf-8');
    checkContentType('Application/JSON');
    checkContentType('application/json;charset="UTF-8"');
    checkContentType('application/json; foo=bar');
    assert.throws(() => checkContentType('application/yaml'), (e: ReviewError) => e.status === 415);
    // JSON is UTF-8 (RFC 8259 §8.1): another charset is refused like another type
    for (const charset of ['utf-16', 'UTF-16LE', '"iso-8859-1"']) {
      assert.throws(() => checkContentType(`application/json; charset=${charset}`), (e: ReviewError) => e.status === 415 && e.message.includes(charset.replaceAll('"', '')), charset);
    }
    assert.throws(() => checkContentType(undefined), (e: ReviewError) => e.status === 415);
  });

  test('Content-Encoding: identity or gzip', () => {
    assert.equal(checkContentEncoding(undefined), false);
    assert.equal(checkContentEncoding('identity'), false);
    assert.equal(checkContentEncoding('gzip'), true);
    assert.throws(() => checkContentEncoding('deflate'), (e: ReviewError) => e.status === 415);
  });

  test('Go durations', () => {
    assert.equal(parseGoDuration('5s'), 5_000);
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('1.5s'), 1_500);
    assert.equal(parseGoDuration('250us'), 0.25);
    assert.throws(() => parseGoDuration('5'), /time: invalid duration "5"/);
    assert.throws(() => parseGoDuration('-5s'), /invalid duration/);
  });

  test('requestTimeoutMs: default when absent, capped, 400 when malformed', () => {
    const limits = { defaultTimeoutMs: 10_000, maxTimeoutMs: 30_000 };
    assert.equal(requestTimeoutMs(null, limits), 10_000);
    assert.equal(requestTimeoutMs('', limits), 10_000);
    assert.equal(requestTimeoutMs('5s', limits), 5_000);
    assert.equal(requestTimeoutMs('10s', limits), 10_000);
    assert.equal(requestTimeoutMs('500ms', limits), 500);
    assert.equal(requestTimeoutMs('2m', limits), 30_000);
    assert.throws(() => requestTimeoutMs('soon', limits), (e: ReviewError) => e.status === 400 && /invalid timeout query parameter/.test(e.message));
    assert.throws(() => requestTimeoutMs('0s', limits), (e: ReviewError) => e.status === 400 && /greater than zero/.test(e.message));
  });
});
