// The scheme's defaulting of authentication.k8s.io/v1 TokenRequests (a serviceaccounts/token create), as
// kube-apiserver 1.36 runs it after a MutatingAdmissionPolicy's mutation. Stated from the source: the oracle decodes
// through the internal type, where an absent expirationSeconds is 0 before defaulting can see it.
// upstream: k8s.io/kubernetes pkg/apis/authentication/v1/defaults.go SetDefaults_TokenRequestSpec
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

it('authentication.k8s.io/v1 TokenRequest: expirationSeconds an hour when unset', () => {
  const request = (spec: Record<string, unknown>): { spec: Record<string, unknown> } =>
    defaulted({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name: 'default', namespace: 'default' }, spec });
  assert.deepEqual(request({ audiences: ['api'] }).spec, { audiences: ['api'], expirationSeconds: 3600 });
  assert.equal(request({ expirationSeconds: 600 }).spec['expirationSeconds'], 600);
});
