import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  excludedResources,
  isAdmissionConfigurationResource,
  isExcludedFromPolicies,
  isExcludedFromWebhooks,
  matchPolicy,
  matchWebhook,
} from '../../../lib/admission/matching/index.js';
import { binding, request, rule, staticWebhook, vap } from './helpers.js';

const reviews = [
  'authentication.k8s.io/v1/selfsubjectreviews',
  'authentication.k8s.io/v1/tokenreviews',
  'authorization.k8s.io/v1/localsubjectaccessreviews',
  'authorization.k8s.io/v1/selfsubjectaccessreviews',
  'authorization.k8s.io/v1/selfsubjectrulesreviews',
  'authorization.k8s.io/v1/subjectaccessreviews',
];
const ordinary = ['v1/configmaps', 'v1/pods', 'authentication.k8s.io/v1/other', 'example.com/v1/tokenreviews', 'v1/serviceaccounts', 'v1/bindings'];

describe('exclusions: the authentication/authorization review resources', () => {
  test('the list is upstream\'s', () => {
    assert.deepEqual(excludedResources.map((r) => `${r.group}/${r.resource}`), reviews.map((r) => r.replace('/v1/', '/')));
  });

  for (const resource of reviews) {
    test(`${resource}: policies never, webhooks only with the gate off`, () => {
      assert.equal(isExcludedFromPolicies(request({ resource, namespace: '' })), true);
      assert.equal(isExcludedFromPolicies(request({ resource, namespace: '', sub: 'anything' })), true);
      assert.equal(isExcludedFromWebhooks(request({ resource, namespace: '' }), true), true);
      assert.equal(isExcludedFromWebhooks(request({ resource, namespace: '' }), false), false);
    });
  }

  test('any version', () => assert.equal(isExcludedFromPolicies(request({ resource: 'authorization.k8s.io/v1beta1/subjectaccessreviews' })), true));

  for (const resource of ordinary) {
    test(`${resource} is not excluded`, () => {
      assert.equal(isExcludedFromPolicies(request({ resource })), false);
      assert.equal(isExcludedFromWebhooks(request({ resource }), true), false);
    });
  }

  test('a wildcard policy does not match a SubjectAccessReview; a wildcard webhook only with the gate off', () => {
    const all = { resourceRules: [rule({ resources: ['*', '*/*'] })] };
    const sar = () => request({ resource: 'authorization.k8s.io/v1/subjectaccessreviews', kind: 'SubjectAccessReview', namespace: '' });
    assert.equal(matchPolicy(vap('p', all), binding('b', 'p'), sar()).matches, false);
    assert.equal(matchPolicy(vap('p', all), binding('b', 'p'), request()).matches, true);
    const hook = staticWebhook('w', { rules: [rule({ resources: ['*', '*/*'] })] });
    assert.equal(matchWebhook(hook, sar(), { excludeWebhookVirtualResources: true }).matches, false);
    assert.equal(matchWebhook(hook, sar(), { excludeWebhookVirtualResources: false }).matches, true);
  });
});

describe('exclusions: admission-configuration resources', () => {
  const kinds: Array<[string, string]> = [
    ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
    ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
    ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy'],
    ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding'],
    ['mutatingadmissionpolicies', 'MutatingAdmissionPolicy'],
    ['mutatingadmissionpolicybindings', 'MutatingAdmissionPolicyBinding'],
  ];
  for (const [resource, kind] of kinds) {
    test(`${kind}`, () => {
      const r = request({ resource: `admissionregistration.k8s.io/v1/${resource}`, kind, namespace: '' });
      assert.equal(isAdmissionConfigurationResource(r), true);
      // static hooks run on them: not excluded
      assert.equal(isExcludedFromPolicies(r), false);
      assert.equal(isExcludedFromWebhooks(r, true), false);
    });
  }
  test('other kinds and groups are not', () => {
    assert.equal(isAdmissionConfigurationResource(request({ resource: 'v1/configmaps', kind: 'ConfigMap' })), false);
    assert.equal(isAdmissionConfigurationResource(request({ resource: 'example.com/v1/validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy' })), false);
    assert.equal(isAdmissionConfigurationResource(request({ resource: 'admissionregistration.k8s.io/v1/validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicyList' })), false);
  });
  test('a static policy does match a ValidatingAdmissionPolicy request', () => {
    const p = vap('guard', { resourceRules: [rule({ apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies'] })] });
    const r = request({ resource: 'admissionregistration.k8s.io/v1/validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespace: '' });
    assert.equal(matchPolicy(p, binding('b', 'guard'), r).matches, true);
  });
});
