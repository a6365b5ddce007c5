// What the registration sends the daemon (lib/replay/scope.ts), as kube-apiserver's webhook plugin matches it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { RegistrationScope } from '../../lib/replay/scope.js';
import { tempDir } from '../helpers/fs.js';

const request = (group: string, resource: string, kind: string, namespace: string): AdmissionRequest => ({
  uid: 'u', kind: { group, version: 'v1', kind }, resource: { group, version: 'v1', resource }, requestKind: { group, version: 'v1', kind },
  requestResource: { group, version: 'v1', resource }, name: 'x', ...(namespace === '' ? {} : { namespace }), operation: 'CREATE',
  userInfo: { username: 'u' }, object: { apiVersion: group === '' ? 'v1' : `${group}/v1`, kind, metadata: { name: 'x' } }, oldObject: null, dryRun: false, options: null,
} as AdmissionRequest);

function registration(name: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
- name: validate.${name}
  clientConfig: {url: "https://127.0.0.1:9443/validate"}
  rules:
  - {operations: [CREATE], apiGroups: ["", admissionregistration.k8s.io], apiVersions: [v1], resources: [configmaps, validatingwebhookconfigurations], scope: "*"}
  matchPolicy: Equivalent
  namespaceSelector: {matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]}
  matchConditions:
  - {name: not-x-ray, expression: "request.name != 'x-ray'"}
  sideEffects: None
  admissionReviewVersions: [v1]
`;
}

test('--registration-file: its rules, namespaceSelector and matchConditions decide what is sent; admission configuration objects only to static webhooks', async () => {
  // upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go ShouldCallHook,
  // k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go IsExemptAdmissionConfigurationResource
  const tmp = tempDir('sad-replay-scope-');
  try {
    const api = join(tmp.dir, 'api.yaml');
    const fixed = join(tmp.dir, 'static.yaml');
    writeFileSync(api, registration('static-admissiond'));
    writeFileSync(fixed, registration('static-admissiond.static.k8s.io'));
    const scope = RegistrationScope.fromFile(api, true);
    assert.deepEqual(await scope.sends('validating', request('', 'configmaps', 'ConfigMap', 'team')), { sent: true });
    assert.deepEqual(await scope.sends('validating', request('', 'configmaps', 'ConfigMap', 'kube-system')), { sent: false, why: 'selector' });
    assert.deepEqual(await scope.sends('validating', request('', 'secrets', 'Secret', 'team')), { sent: false, why: 'rules' });
    assert.deepEqual(await scope.sends('validating', { ...request('', 'configmaps', 'ConfigMap', 'team'), name: 'x-ray' }), { sent: false, why: 'match-conditions' });
    assert.deepEqual(await scope.sends('mutating', request('', 'configmaps', 'ConfigMap', 'team')), { sent: false, why: 'no-webhook' });
    const vwc = request('admissionregistration.k8s.io', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', '');
    assert.deepEqual(await scope.sends('validating', vwc), { sent: false, why: 'admission-configuration' });
    assert.deepEqual(await RegistrationScope.fromFile(fixed, true).sends('validating', vwc), { sent: true });
    assert.throws(() => RegistrationScope.fromFile(join(tmp.dir, 'none.yaml'), true), /registration file ".*none\.yaml": ENOENT/);
  } finally {
    tmp.cleanup();
  }
});
