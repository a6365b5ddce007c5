import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { staticNameGuard } from '../../lib/admission/guard.js';

const request = (operation: string, name: string, resource = 'validatingadmissionpolicies'): AdmissionRequest => ({
  uid: 'u', operation, name,
  kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
  resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource },
  object: { metadata: { name } },
});

test('API objects named *.static.k8s.io are refused on CREATE and UPDATE with the apiserver Invalid status', () => {
  const v = staticNameGuard(request('CREATE', 'x.static.k8s.io'), true);
  assert.equal(v.allowed, false);
  assert.deepEqual(!v.allowed && v.status, {
    metadata: {}, status: 'Failure',
    message: 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "x.static.k8s.io" is invalid: metadata.name: Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API',
    reason: 'Invalid',
    details: { name: 'x.static.k8s.io', group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "x.static.k8s.io": names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API', field: 'metadata.name' }] },
    code: 422,
  });
  assert.equal(staticNameGuard(request('UPDATE', 'x.static.k8s.io', 'mutatingwebhookconfigurations'), true).allowed, false);
});

test('other names, other operations and other resources pass; with the gate off it only warns', () => {
  assert.deepEqual(staticNameGuard(request('CREATE', 'x.example.com'), true), { allowed: true });
  assert.deepEqual(staticNameGuard(request('DELETE', 'x.static.k8s.io'), true), { allowed: true });
  assert.deepEqual(staticNameGuard({ ...request('CREATE', 'x.static.k8s.io'), resource: { group: '', version: 'v1', resource: 'configmaps' } }, true), { allowed: true });
  assert.deepEqual(staticNameGuard(request('CREATE', 'x.static.k8s.io'), false), {
    allowed: true,
    warning: 'metadata.name: names ending with ".static.k8s.io" will be reserved for static manifest-based configurations when the ManifestBasedAdmissionControlConfig feature gate is enabled',
  });
});
