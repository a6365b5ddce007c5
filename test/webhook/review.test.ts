// The outgoing AdmissionReview and the checks on the answer, unit by unit: version negotiation, the serialized
// request (matched vs original kind, omitted empty fields), VerifyAdmissionResponse's v1 and v1beta1 rules, and
// ToStatusErr's sanitising.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CallingWebhookError, toStatusErr } from '../../lib/webhook/errors.js';
import { negotiateVersion, serializeReview, verifyResponse } from '../../lib/webhook/review.js';
import type { RawResponse } from '../../lib/webhook/client.js';
import { configMapRequest } from './helpers.js';

const raw = (body: unknown): RawResponse => ({ statusCode: 200, contentType: 'application/json', body: typeof body === 'string' ? body : JSON.stringify(body), postURL: 'https://h/p?timeout=10s' });

function failure(fn: () => unknown): CallingWebhookError {
  try {
    fn();
  } catch (err) {
    if (err instanceof CallingWebhookError) return err;
    throw err;
  }
  throw new Error('expected a CallingWebhookError');
}

describe('the outgoing review', () => {
  test('v1 is preferred; v1beta1 when that is all the webhook accepts; none known: undefined', () => {
    assert.equal(negotiateVersion(['v1beta1', 'v1']), 'v1beta1', 'the webhook\'s order decides, as upstream');
    assert.equal(negotiateVersion(['v1']), 'v1');
    assert.equal(negotiateVersion(['v2', 'v1beta1']), 'v1beta1');
    assert.equal(negotiateVersion(['v2']), undefined);
  });

  test('kind/resource are the matched ones, requestKind/requestResource the original; empty fields are left out', () => {
    const request = configMapRequest({
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      requestKind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' }, requestResource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
      subResource: 'scale', requestSubResource: 'scale', namespace: '', userInfo: { username: 'bob', extra: {} },
    });
    const target = { kind: { group: 'apps', version: 'v1', kind: 'Scale' }, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, subResource: 'scale' };
    const sent = JSON.parse(serializeReview(request, target, { x: 1 }, 'v1beta1', 'u-1').toString('utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(sent), ['kind', 'apiVersion', 'request']);
    assert.equal(sent.apiVersion, 'admission.k8s.io/v1beta1');
    assert.deepEqual(sent.request, {
      uid: 'u-1',
      kind: { group: 'apps', version: 'v1', kind: 'Scale' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      subResource: 'scale',
      requestKind: { group: 'apps', version: 'v1beta1', kind: 'Deployment' },
      requestResource: { group: 'apps', version: 'v1beta1', resource: 'deployments' },
      requestSubResource: 'scale',
      name: 'cm',
      operation: 'CREATE',
      userInfo: { username: 'bob' },
      object: { x: 1 },
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    });
  });
});

describe('verifying the answer', () => {
  const v1 = (response: Record<string, unknown>, extra: Record<string, unknown> = {}) => raw({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response, ...extra });

  test('v1: uid, kind and patch rules, with upstream\'s messages', () => {
    assert.equal(verifyResponse('w', 'u', false, 'v1', v1({ uid: 'u', allowed: true, warnings: ['a'] })).allowed, true);
    assert.equal(failure(() => verifyResponse('w', 'u', false, 'v1', raw({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }))).message,
      'failed calling webhook "w": received invalid webhook response: webhook response was absent');
    assert.equal(failure(() => verifyResponse('w', 'u', false, 'v1', raw({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'u', allowed: true } }))).message,
      'failed calling webhook "w": received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview');
    assert.equal(failure(() => verifyResponse('w', 'u', false, 'v1', v1({ uid: 'u', allowed: true, patchType: 'JSONPatch' }))).message,
      'failed calling webhook "w": received invalid webhook response: validating webhook may not return response.patchType');
    assert.equal(failure(() => verifyResponse('w', 'u', true, 'v1', v1({ uid: 'u', allowed: true, patchType: 'JSONPatch' }))).message,
      'failed calling webhook "w": received invalid webhook response: webhook returned response.patchType but not response.patch');
    const mutated = verifyResponse('w', 'u', true, 'v1', v1({ uid: 'u', allowed: true, patchType: 'JSONPatch', patch: Buffer.from('[]').toString('base64') }));
    assert.equal(mutated.patch?.toString('utf8'), '[]');
    assert.equal(mutated.patchType, 'JSONPatch');
    const err = failure(() => verifyResponse('w', 'u', false, 'v1', v1({ uid: 'x', allowed: true })));
    assert.equal(err.kind, 'wrong_uid');
    assert.equal(err.status.code, 503);
    assert.equal(err.status.message, 'error validating webhook response');
  });

  test('v1beta1: neither uid nor kind is checked; a mutating patch is a JSONPatch', () => {
    const r = verifyResponse('w', 'u', true, 'v1beta1', raw({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { allowed: true, patch: Buffer.from('[]').toString('base64') } }));
    assert.equal(r.allowed, true);
    assert.equal(r.patchType, 'JSONPatch');
    const validating = verifyResponse('w', 'u', false, 'v1beta1', raw({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: 'other', allowed: false, patch: 'W10=' } }));
    assert.equal(validating.allowed, false);
    assert.equal(validating.patch, undefined);
  });

  test('malformed answers: not JSON, not an object, wrong field types', () => {
    assert.match(failure(() => verifyResponse('w', 'u', false, 'v1', raw('nope'))).message, /^failed calling webhook "w": failed to call webhook: couldn't get version\/kind; json parse error: /);
    assert.equal(failure(() => verifyResponse('w', 'u', false, 'v1', raw('[]'))).kind, 'malformed');
    assert.equal(failure(() => verifyResponse('w', 'u', false, 'v1', v1({ uid: 'u', allowed: 'yes' }))).kind, 'malformed');
  });
});

describe('response.status as metav1.Status', () => {
  const v1 = (status: unknown) => raw({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u', allowed: false, status } });
  const decodeError = (status: unknown): string => failure(() => verifyResponse('w', 'u', false, 'v1', v1(status))).reason;

  test('known fields are kept, unknown ones dropped, null ones unset', () => {
    const r = verifyResponse('w', 'u', false, 'v1', v1({
      kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: '1', extra: 'x' }, status: 'Failure', message: 'no', reason: 'Invalid', code: 422, bogus: { a: 1 }, field: null,
      details: { name: 'n', group: 'g', kind: 'k', uid: 'id', retryAfterSeconds: 2, other: true, causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec.x', why: 1 }, null] },
    }));
    assert.deepEqual(r.result, {
      kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: '1' }, status: 'Failure', message: 'no', reason: 'Invalid', code: 422,
      details: { name: 'n', group: 'g', kind: 'k', uid: 'id', retryAfterSeconds: 2, causes: [{ reason: 'FieldValueInvalid', message: 'm', field: 'spec.x' }, {}] },
    });
    assert.deepEqual(verifyResponse('w', 'u', false, 'v1', v1({ code: null, message: null })).result, {});
  });

  test('a field of the wrong type fails the answer with encoding/json\'s message', () => {
    const prefix = 'failed to call webhook: json: cannot unmarshal ';
    assert.equal(decodeError({ code: '403' }), `${prefix}string into Go struct field Status.response.status.code of type int32`);
    assert.equal(decodeError({ code: 403.5 }), `${prefix}number 403.5 into Go struct field Status.response.status.code of type int32`);
    assert.equal(decodeError({ code: 2147483648 }), `${prefix}number 2147483648 into Go struct field Status.response.status.code of type int32`);
    assert.equal(decodeError({ message: {} }), `${prefix}object into Go struct field Status.response.status.message of type string`);
    assert.equal(decodeError({ reason: 1 }), `${prefix}number into Go struct field Status.response.status.reason of type v1.StatusReason`);
    assert.equal(decodeError({ status: true }), `${prefix}bool into Go struct field Status.response.status.status of type string`);
    assert.equal(decodeError({ details: [] }), `${prefix}array into Go struct field Status.response.status.details of type v1.StatusDetails`);
    assert.equal(decodeError({ details: { name: 1 } }), `${prefix}number into Go struct field StatusDetails.response.status.details.name of type string`);
    assert.equal(decodeError({ details: { causes: {} } }), `${prefix}object into Go struct field StatusDetails.response.status.details.causes of type []v1.StatusCause`);
    assert.equal(decodeError({ details: { causes: [{ field: [] }] } }), `${prefix}array into Go struct field StatusCause.response.status.details.causes.field of type string`);
    assert.equal(decodeError({ details: { retryAfterSeconds: '1' } }), `${prefix}string into Go struct field StatusDetails.response.status.details.retryAfterSeconds of type int32`);
    assert.equal(decodeError({ metadata: 'x' }), `${prefix}string into Go struct field Status.response.status.metadata of type v1.ListMeta`);
    const err = failure(() => verifyResponse('w', 'u', false, 'v1', v1({ code: '403' })));
    assert.equal(err.kind, 'malformed');
  });
});

describe('ToStatusErr', () => {
  test('a code under 400 becomes 400, Success becomes Failure, the message names the webhook', () => {
    assert.deepEqual(toStatusErr('w', { status: 'Success', code: 200, message: 'm' }), { status: 'Failure', code: 400, message: 'admission webhook "w" denied the request: m' });
    assert.deepEqual(toStatusErr('w', { reason: 'Forbidden', code: 403 }), { reason: 'Forbidden', code: 403, status: 'Failure', message: 'admission webhook "w" denied the request: Forbidden' });
    assert.deepEqual(toStatusErr('w', null), { status: 'Failure', code: 400, message: 'admission webhook "w" denied the request without explanation' });
  });
});
