// How replay reads the apiserver's answer from an audit Event's responseStatus (lib/replay/logged.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isGeneratedName, loggedAnswer } from '../../lib/replay/logged.js';

const cause = "ValidatingAdmissionPolicy 'p.static.k8s.io' with binding 'b.static.k8s.io' denied request: no";

test('admission denials are told by their message, whatever the code; other failures are not replayed', () => {
  // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/errors/statuserror.go ToStatusErr
  assert.deepEqual(loggedAnswer({ code: 413, status: 'Failure', reason: 'RequestEntityTooLarge', message: `admission webhook "validate.x" denied the request: configmaps "a" is forbidden: ${cause}`, details: { name: 'a', kind: 'configmaps' } }),
    { denied: { code: 413, reason: 'RequestEntityTooLarge', message: `configmaps "a" is forbidden: ${cause}`, webhook: 'validate.x', name: 'a' } });
  assert.deepEqual(loggedAnswer({ code: 400, message: 'admission webhook "w.example.com" denied the request without explanation' }),
    { denied: { code: 400, reason: '', message: '', webhook: 'w.example.com', name: '' } });
  // upstream: k8s.io/apiserver/pkg/admission/plugin/policy/validating/dispatcher.go, in-tree (KEP-5793 static manifests)
  assert.ok('denied' in loggedAnswer({ code: 422, reason: 'Invalid', message: `configmaps "a" is forbidden: ${cause}` }));
  assert.ok('denied' in loggedAnswer({ code: 401, reason: 'Unauthorized', message: "configmaps \"a\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: no" }));
  // upstream: k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go (MutatingAdmissionPolicy)
  assert.ok('denied' in loggedAnswer({ code: 403, reason: 'Forbidden', message: "policy 'm' with binding 'mb' denied request: bad" }));
  assert.ok('denied' in loggedAnswer({ code: 403, reason: 'Forbidden', message: 'policy "m" denied request: bad' }));

  assert.deepEqual(loggedAnswer({ code: 201 }), { admitted: true });
  assert.deepEqual(loggedAnswer(undefined), { admitted: true });
  assert.deepEqual(loggedAnswer({ code: 403, reason: 'Forbidden', message: 'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "a"' }), { failed: '403 Forbidden' });
  assert.deepEqual(loggedAnswer({ code: 409, reason: 'AlreadyExists', message: 'configmaps "a" already exists' }), { failed: '409 AlreadyExists' });
  assert.deepEqual(loggedAnswer({ code: 422, reason: 'Invalid', message: 'Pod "x" is invalid: spec.containers[0].image: Required value' }), { failed: '422 Invalid' });
  assert.deepEqual(loggedAnswer({ code: 500, reason: 'InternalError', message: 'Internal error occurred: failed calling webhook "validate.x": connection refused' }), { failed: '500 InternalError' });
});

test('a generated name is the generateName, cut to 58 characters, and 5 more (names.SimpleNameGenerator)', () => {
  assert.equal(isGeneratedName('web-x7k2p', 'web-'), true);
  assert.equal(isGeneratedName('web-', 'web-'), false, 'a mutating denial names the prefix itself');
  assert.equal(isGeneratedName('other-x7k2p', 'web-'), false);
  const long = 'a'.repeat(70);
  assert.equal(isGeneratedName(`${'a'.repeat(58)}b2c4d`, long), true);
});
