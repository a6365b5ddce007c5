// The scheme's defaulting of admissionregistration.k8s.io/v1 policies, bindings and webhook configurations
// (kube-apiserver 1.36, after a MutatingAdmissionPolicy's mutation: static policies do intercept these kinds);
// expected objects are upstream-oracle's `mutate` answers for the objects given. A webhook service's port (443) is
// stated from the source: the oracle decodes through the internal type, where an absent one is 0 before defaulting.
// upstream: k8s.io/kubernetes pkg/apis/admissionregistration/v1/defaults.go SetDefaults_ValidatingWebhook,
// SetDefaults_MutatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference, SetDefaults_ValidatingAdmissionPolicySpec,
// SetDefaults_MutatingAdmissionPolicySpec, SetDefaults_MatchResources
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const group = 'admissionregistration.k8s.io/v1';
const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
const matchDefaults = { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} };

describe('admissionregistration.k8s.io/v1', () => {
  it('ValidatingAdmissionPolicy / MutatingAdmissionPolicy: failurePolicy Fail, match constraints, every rule\'s scope', () => {
    const vap = defaulted({ apiVersion: group, kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: [rule], excludeResourceRules: [rule] }, validations: [{ expression: 'true' }] } });
    assert.deepEqual(vap.spec, {
      matchConstraints: { resourceRules: [{ ...rule, scope: '*' }], excludeResourceRules: [{ ...rule, scope: '*' }], ...matchDefaults }, validations: [{ expression: 'true' }], failurePolicy: 'Fail',
    });
    const map = defaulted({ apiVersion: group, kind: 'MutatingAdmissionPolicy', metadata: { name: 'p' }, spec: { reinvocationPolicy: 'Never', mutations: [] } });
    assert.deepEqual(map.spec, { reinvocationPolicy: 'Never', mutations: [], failurePolicy: 'Fail' });
  });

  it('bindings: their match resources, when they have them', () => {
    const withMatch = defaulted({ apiVersion: group, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', matchResources: { namespaceSelector: { matchLabels: { a: 'b' } } } } });
    assert.deepEqual(withMatch.spec.matchResources, { namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, matchPolicy: 'Equivalent' });
    const without = { apiVersion: group, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'] } };
    assert.equal(defaulted(without), without);
  });

  it('webhook configurations: Fail, Equivalent, empty selectors, 10 s, port 443, scope *; mutating ones Never reinvoked', () => {
    const webhook = { name: 'a.example.com', clientConfig: { service: { namespace: 'default', name: 'hook' } }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'] };
    const expected = {
      ...webhook, clientConfig: { service: { namespace: 'default', name: 'hook', port: 443 } }, rules: [{ ...rule, scope: '*' }],
      failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10,
    };
    assert.deepEqual(defaulted({ apiVersion: group, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [webhook] }).webhooks, [expected]);
    assert.deepEqual(defaulted({ apiVersion: group, kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks: [webhook] }).webhooks, [{ ...expected, reinvocationPolicy: 'Never' }]);
    const byURL = defaulted({ apiVersion: group, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [{ ...webhook, clientConfig: { url: 'https://hook.example.com/' }, timeoutSeconds: 5 }] });
    assert.deepEqual([byURL.webhooks[0].clientConfig, byURL.webhooks[0].timeoutSeconds], [{ url: 'https://hook.example.com/' }, 5]);
  });
});
