// The AdmissionReview envelope typed as a Go webhook decodes it. Upstream wording and rules, as read in:
// - k8s.io/apimachinery pkg/runtime/serializer/json/json.go Serializer.unmarshal: a (non-strict) webhook deserializer
//   decodes with sigs.k8s.io/json UnmarshalCaseSensitivePreserveInts and returns its error as is;
// - sigs.k8s.io/json internal/golang/encoding/json/kubernetes_patch.go: UnmarshalTypeError is encoding/json's, whose
//   Error() is `json: cannot unmarshal <Value> into Go struct field <Struct>.<Field> of type <Type>` (its text is kept
//   in decode.go);
// - decode.go addErrorContext (Struct = the innermost struct type's Name(), Field = the JSON field names from the
//   root joined by "."), object() (map values and slice elements add no field name; keys match case-sensitively),
//   literalStore (Value "string"/"number"/"bool", "number <literal>" for integers that do not fit), saveError (the
//   first fault wins);
// - encoding/base64 decodeQuantum and CorruptInputError (`illegal base64 data at input byte <n>`) for []byte.
// The checks that existed before (uid, operation, kind, resource, and the review's kind/apiVersion) keep their own
// messages and run first; this walk covers the rest of the envelope. The wording chosen is the Go decoder's own, not
// an apiserver message: a webhook server built on the apimachinery deserializer answers with exactly this text.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewError } from '../../lib/review/answer.js';
import { parseAdmissionReview } from '../../lib/review/decode.js';
import { base64DecodeError } from '../../lib/review/decode-types.js';
import { minimalReview } from '../server/helpers.js';

const review = (request: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Buffer => Buffer.from(minimalReview(extra, {
  userInfo: { username: 'admin', groups: ['system:masters'] },
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } },
  ...request,
}));

function fault(body: Buffer): ReviewError | undefined {
  try {
    parseAdmissionReview(body);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ReviewError, String(err));
    return err;
  }
}

const thirtyDigits = '123456789012345678901234567890';

describe('AdmissionReview fields typed as a Go webhook decodes them', () => {
  const cases: Array<[string, Buffer, string]> = [
    ['userInfo a string', review({ userInfo: 'x' }), 'json: cannot unmarshal string into Go struct field AdmissionRequest.request.userInfo of type v1.UserInfo'],
    ['userInfo an array', review({ userInfo: [] }), 'json: cannot unmarshal array into Go struct field AdmissionRequest.request.userInfo of type v1.UserInfo'],
    ['userInfo.username a number', review({ userInfo: { username: 5 } }), 'json: cannot unmarshal number into Go struct field UserInfo.request.userInfo.username of type string'],
    ['userInfo.uid a bool', review({ userInfo: { uid: true } }), 'json: cannot unmarshal bool into Go struct field UserInfo.request.userInfo.uid of type string'],
    ['userInfo.groups a string', review({ userInfo: { groups: 'system:masters' } }), 'json: cannot unmarshal string into Go struct field UserInfo.request.userInfo.groups of type []string'],
    ['a userInfo.groups element a number', review({ userInfo: { groups: ['a', 1] } }), 'json: cannot unmarshal number into Go struct field UserInfo.request.userInfo.groups of type string'],
    ['userInfo.extra an array', review({ userInfo: { extra: [] } }), 'json: cannot unmarshal array into Go struct field UserInfo.request.userInfo.extra of type map[string]v1.ExtraValue'],
    ['a userInfo.extra value a string', review({ userInfo: { extra: { k: 'v' } } }), 'json: cannot unmarshal string into Go struct field UserInfo.request.userInfo.extra of type v1.ExtraValue'],
    ['a userInfo.extra value element an object', review({ userInfo: { extra: { k: [{}] } } }), 'json: cannot unmarshal object into Go struct field UserInfo.request.userInfo.extra of type string'],
    ['dryRun a string', review({ dryRun: 'yes' }), 'json: cannot unmarshal string into Go struct field AdmissionRequest.request.dryRun of type bool'],
    ['requestKind a number', review({ requestKind: 7 }), 'json: cannot unmarshal number into Go struct field AdmissionRequest.request.requestKind of type v1.GroupVersionKind'],
    ['requestKind.kind an array', review({ requestKind: { group: '', version: 'v1', kind: ['Pod'] } }), 'json: cannot unmarshal array into Go struct field GroupVersionKind.request.requestKind.kind of type string'],
    ['requestKind.group a bool', review({ requestKind: { group: false } }), 'json: cannot unmarshal bool into Go struct field GroupVersionKind.request.requestKind.group of type string'],
    ['requestResource a string', review({ requestResource: 'pods' }), 'json: cannot unmarshal string into Go struct field AdmissionRequest.request.requestResource of type v1.GroupVersionResource'],
    ['a 30-digit number in requestResource.version', Buffer.from(review().toString().replace('"operation":"CREATE"', `"operation":"CREATE","requestResource":{"group":"","version":${thirtyDigits},"resource":"pods"}`)),
      'json: cannot unmarshal number into Go struct field GroupVersionResource.request.requestResource.version of type string'],
    ['requestSubResource an object', review({ requestSubResource: {} }), 'json: cannot unmarshal object into Go struct field AdmissionRequest.request.requestSubResource of type string'],
    ['subResource a number', review({ subResource: 1 }), 'json: cannot unmarshal number into Go struct field AdmissionRequest.request.subResource of type string'],
    ['name a number', review({ name: 5 }), 'json: cannot unmarshal number into Go struct field AdmissionRequest.request.name of type string'],
    ['namespace a bool', review({ namespace: true }), 'json: cannot unmarshal bool into Go struct field AdmissionRequest.request.namespace of type string'],
    ['response a string', review({}, { response: 'x' }), 'json: cannot unmarshal string into Go struct field AdmissionReview.response of type v1.AdmissionResponse'],
    ['response.uid a number', review({}, { response: { uid: 1 } }), 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.uid of type types.UID'],
    ['response.allowed a string', review({}, { response: { allowed: 'true' } }), 'json: cannot unmarshal string into Go struct field AdmissionResponse.response.allowed of type bool'],
    ['response.status.code not an integer', review({}, { response: { status: { code: 1.5 } } }), 'json: cannot unmarshal number 1.5 into Go struct field Status.response.status.code of type int32'],
    ['response.status.code past int32', review({}, { response: { status: { code: 3_000_000_000 } } }), 'json: cannot unmarshal number 3000000000 into Go struct field Status.response.status.code of type int32'],
    ['response.status.reason a number', review({}, { response: { status: { reason: 1 } } }), 'json: cannot unmarshal number into Go struct field Status.response.status.reason of type v1.StatusReason'],
    ['a response.status.details.causes field a number', review({}, { response: { status: { details: { causes: [{ field: 1 }] } } } }),
      'json: cannot unmarshal number into Go struct field StatusCause.response.status.details.causes.field of type string'],
    ['response.status.metadata.remainingItemCount a string', review({}, { response: { status: { metadata: { remainingItemCount: '1' } } } }),
      'json: cannot unmarshal string into Go struct field ListMeta.response.status.metadata.remainingItemCount of type int64'],
    ['response.patch not base64', review({}, { response: { patch: 'a!bc' } }), 'illegal base64 data at input byte 1'],
    ['response.patch a number', review({}, { response: { patch: 1 } }), 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.patch of type []uint8'],
    ['response.patch an array with a byte out of range', review({}, { response: { patch: [1, 256] } }), 'json: cannot unmarshal number 256 into Go struct field AdmissionResponse.response.patch of type uint8'],
    ['response.patchType a number', review({}, { response: { patchType: 1 } }), 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.patchType of type v1.PatchType'],
    ['a response.auditAnnotations value a number', review({}, { response: { auditAnnotations: { a: 1 } } }), 'json: cannot unmarshal number into Go struct field AdmissionResponse.response.auditAnnotations of type string'],
    ['response.warnings an object', review({}, { response: { warnings: {} } }), 'json: cannot unmarshal object into Go struct field AdmissionResponse.response.warnings of type []string'],
  ];
  for (const [name, body, message] of cases) {
    test(`${name}: 400 ${message}`, () => {
      const err = fault(body);
      assert.ok(err, 'refused');
      assert.equal(err.status, 400);
      assert.equal(err.reason, 'BadRequest');
      assert.equal(err.message, message);
    });
  }

  test('the first fault in document order is reported (saveError keeps the first)', () => {
    assert.equal(fault(review({ name: 1, dryRun: 'x' }))?.message, 'json: cannot unmarshal number into Go struct field AdmissionRequest.request.name of type string');
    assert.equal(fault(review({ dryRun: 'x', name: 1 }))?.message, 'json: cannot unmarshal string into Go struct field AdmissionRequest.request.dryRun of type bool');
  });

  test('the fields checked before keep their messages, and are checked first', () => {
    assert.equal(fault(review({ userInfo: 'x', uid: 7 }))?.message, 'invalid AdmissionReview: request.uid: Invalid value: number: must be a string');
    assert.equal(fault(review({ userInfo: 'x', operation: 1 }))?.message, 'invalid AdmissionReview: request.operation: Invalid value: number: must be a string');
    assert.equal(fault(review({ userInfo: 'x', kind: 'Pod' }))?.message, 'invalid AdmissionReview: request.kind: Invalid value: string: must be an object');
    assert.equal(fault(review({ userInfo: 'x', resource: { version: 'v1' } }))?.message, 'invalid AdmissionReview: request.resource.resource: Required value');
  });

  test('what Go accepts is accepted: null anywhere, other-case and unknown keys, any JSON in RawExtension fields', () => {
    const accepted = [
      review({ userInfo: null, dryRun: null, requestKind: null, name: null, options: null, object: null, oldObject: null }),
      review({ UserInfo: 'x', DryRun: 'yes', unknownField: 1 }, { Response: 7 }),
      review({ options: 'anything', oldObject: [1, 'two'] }),
      review({ userInfo: { username: 'u', uid: 'id', groups: [], extra: { a: ['b'], c: null } } }),
      review({ dryRun: true, requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' }, requestResource: { group: 'apps', version: 'v1', resource: 'deployments' }, requestSubResource: 'scale' }),
      review({}, { response: { uid: 'u', allowed: true, patch: 'W10=', patchType: 'JSONPatch', status: { code: 200, details: { causes: [{ field: 'f' }], retryAfterSeconds: 1 } }, warnings: ['w'], auditAnnotations: { a: 'b' } } }),
    ];
    for (const body of accepted) assert.equal(fault(body), undefined, body.toString());
  });
});

describe('base64 errors as encoding/base64 StdEncoding reports them', () => {
  const cases: Array<[string, string | undefined]> = [
    ['', undefined],
    ['W10=', undefined],
    ['YWJj', undefined],
    ['YQ==', undefined],
    ['YW\nJj', undefined],
    ['a!bc', 'illegal base64 data at input byte 1'],
    ['abc', 'illegal base64 data at input byte 0'],
    ['abcda', 'illegal base64 data at input byte 4'],
    ['a===', 'illegal base64 data at input byte 1'],
    ['ab=', 'illegal base64 data at input byte 3'],
    ['ab=c', 'illegal base64 data at input byte 2'],
    ['YQ==YQ==', 'illegal base64 data at input byte 4'],
    ['é', 'illegal base64 data at input byte 0'],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected ?? 'decodes'}`, () => assert.equal(base64DecodeError(input), expected));
  }
});
