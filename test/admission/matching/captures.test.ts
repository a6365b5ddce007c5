// Real AdmissionReview requests from a kube-apiserver (v1.26) calling a localhost webhook, copied from the shared
// apiserver captures into testdata/admission/apiserver-captures: defaulted objects, managedFields, DELETE with a
// null object and the labels in oldObject, DeleteOptions.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { matchPolicy, matchPolicyHook, matchWebhook, namespaceNameLabel } from '../../../lib/admission/matching/index.js';
import type { MatchDecision } from '../../../lib/admission/matching/index.js';
import type { AdmissionRequest, AdmissionReview } from '../../../lib/api/admission.js';
import type { MatchResources, RuleWithOperations } from '../../../lib/api/types.js';
import { binding, rule, selector, staticWebhook, vap } from './helpers.js';

const dir = fileURLToPath(new URL('../../../../testdata/admission/apiserver-captures/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

/** A fresh parse per use: requests are not shared between cases. */
function capture(file: string): AdmissionRequest {
  const review = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as AdmissionReview;
  assert.ok(review.request, file);
  return review.request;
}

const configmaps = (operations: string[], extra: Partial<MatchResources> = {}): MatchResources => ({
  resourceRules: [rule({ apiGroups: [''], apiVersions: ['v1'], operations: operations as RuleWithOperations['operations'], resources: ['configmaps'] })],
  ...extra,
});
const pods = (resources: string[], extra: Partial<MatchResources> = {}): MatchResources => ({
  resourceRules: [rule({ apiGroups: [''], apiVersions: ['v1'], resources })],
  ...extra,
});

const U = 'undecidable' as const;
type Want = MatchDecision['matches'];

// policy name → [policy constraints, binding matchResources, expected per capture file prefix]
const table: Array<[string, MatchResources, MatchResources | undefined, Record<string, Want>]> = [
  ['deny label on CREATE/UPDATE', configmaps(['CREATE', 'UPDATE'], { objectSelector: selector({ deny: 'true' }) }), undefined,
    { '002': false, '003': false, '004': true, '007': false, '011': false, '012': false, '019': false, '020': false }],
  ['DELETE by oldObject labels', configmaps(['DELETE'], { objectSelector: selector({ 'mutated-by': 'test-webhook' }) }), undefined,
    { '002': false, '003': false, '004': false, '007': false, '011': false, '012': true, '019': false, '020': false }],
  ['resourceNames cm-prot', { resourceRules: [rule({ apiGroups: [''], resources: ['configmaps'], operations: ['UPDATE', 'DELETE'], resourceNames: ['cm-prot'] })] }, undefined,
    { '002': false, '003': false, '004': false, '007': false, '011': true, '012': true, '019': false, '020': false }],
  ['pods in namespace wh', pods(['pods'], { namespaceSelector: selector(undefined, [{ key: namespaceNameLabel, operator: 'In', values: ['wh'] }]) }), undefined,
    { '002': false, '003': false, '004': false, '007': true, '011': false, '012': false, '019': true, '020': true }],
  ['pods in namespace wh, bound to tier=web', pods(['pods'], { namespaceSelector: selector({ [namespaceNameLabel]: 'wh' }) }), { objectSelector: selector({ tier: 'web' }) },
    { '002': false, '003': false, '004': false, '007': false, '011': false, '012': false, '019': true, '020': true }],
  ['pods outside wh', pods(['pods'], { namespaceSelector: selector(undefined, [{ key: namespaceNameLabel, operator: 'NotIn', values: ['wh'] }]) }), undefined,
    { '002': false, '003': false, '004': false, '007': false, '011': false, '012': false, '019': false, '020': false }],
  ['pods/status only', pods(['pods/status']), undefined,
    { '002': false, '003': false, '004': false, '007': false, '011': false, '012': false, '019': false, '020': false }],
  ['configmaps in team=a namespaces', configmaps(['*'], { namespaceSelector: selector({ team: 'a' }) }), undefined,
    { '002': U, '003': U, '004': U, '007': false, '011': U, '012': U, '019': false, '020': false }],
  ['configmaps, binding in team=a namespaces', configmaps(['*']), { namespaceSelector: selector({ team: 'a' }) },
    { '002': U, '003': U, '004': U, '007': false, '011': U, '012': U, '019': false, '020': false }],
  ['everything', { resourceRules: [rule({ resources: ['*', '*/*'] })] }, undefined,
    { '002': true, '003': true, '004': true, '007': true, '011': true, '012': true, '019': true, '020': true }],
];

describe('captures through matchPolicy', () => {
  test('the fixtures are there', () => assert.equal(files.length, 8));
  for (const [name, constraints, bindingResources, want] of table) {
    test(name, () => {
      const p = vap('p.static.k8s.io', constraints);
      const b = binding('b.static.k8s.io', 'p.static.k8s.io', bindingResources);
      const got: Record<string, Want> = {};
      for (const f of files) got[f.slice(0, 3)] = matchPolicy(p, b, capture(f)).matches;
      assert.deepEqual(got, want);
    });
  }

  test('a match is reported with the request\'s own kind/resource', () => {
    const p = vap('p', pods(['pods']));
    for (const f of ['007-validate-CREATE-Pod-p1.json', '020-validate-DELETE-Pod-p3.json']) {
      const r = capture(f);
      const d = matchPolicy(p, binding('b', 'p'), r);
      assert.ok(d.matches === true, f);
      assert.deepEqual({ ...d.kind }, { group: '', version: 'v1', kind: 'Pod' });
      assert.deepEqual({ ...d.resource }, { group: '', version: 'v1', resource: 'pods' });
      assert.equal(d.subResource, '');
      assert.equal(d.convert, false);
    }
  });

  test('one request against several bindings', () => {
    const hook = {
      policy: vap('p', configmaps(['*'])),
      bindings: [
        binding('wh-only', 'p', { namespaceSelector: selector({ [namespaceNameLabel]: 'wh' }) }),
        binding('deny-only', 'p', { objectSelector: selector({ deny: 'true' }) }),
        binding('team', 'p', { namespaceSelector: selector({ team: 'a' }) }),
      ],
    };
    assert.deepEqual(matchPolicyHook(hook, capture('004-validate-UPDATE-ConfigMap-cm1.json')).bindings.map((d) => d.matches), [true, true, U]);
    assert.deepEqual(matchPolicyHook(hook, capture('003-validate-UPDATE-ConfigMap-cm1.json')).bindings.map((d) => d.matches), [true, false, U]);
  });
});

describe('captures through matchWebhook', () => {
  const gate = { excludeWebhookVirtualResources: true };
  test('objectSelector tier=web: UPDATE adding it, DELETE by oldObject, CREATE without it', () => {
    const w = staticWebhook('tier.example.com', { rules: [rule({ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] })], objectSelector: selector({ tier: 'web' }) });
    const got = Object.fromEntries(['007-validate-CREATE-Pod-p1.json', '019-validate-UPDATE-Pod-p3.json', '020-validate-DELETE-Pod-p3.json']
      .map((f) => [f.slice(0, 3), matchWebhook(w, capture(f), gate).matches]));
    assert.deepEqual(got, { '007': false, '019': true, '020': true });
  });
});
