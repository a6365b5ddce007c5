import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRules, matchRules } from '../../../lib/admission/matching/index.js';
import type { MatchDecision } from '../../../lib/admission/matching/index.js';
import type { RuleWithOperations } from '../../../lib/api/types.js';
import { request, rule } from './helpers.js';
import type { RequestSpec } from './helpers.js';

type RuleSpec = Parameters<typeof rule>[0];

function matches(rules: RuleSpec[], spec: RequestSpec, matchPolicy: string | null = 'Equivalent'): boolean {
  return matchRules(compileRules(rules.map(rule), matchPolicy), request(spec)).matches === true;
}

describe('rules: operations', () => {
  const cases: Array<[string[], string, boolean]> = [
    [['CREATE'], 'CREATE', true],
    [['CREATE'], 'UPDATE', false],
    [['CREATE', 'UPDATE'], 'UPDATE', true],
    [['DELETE'], 'DELETE', true],
    [['*'], 'CONNECT', true],
    [['*'], 'SOMETHING', true],
    [['CONNECT'], 'CREATE', false],
    [[], 'CREATE', false],
  ];
  for (const [operations, op, want] of cases) {
    test(`${JSON.stringify(operations)} vs ${op} → ${want}`, () => {
      assert.equal(matches([{ operations: operations as RuleWithOperations['operations'] }], { op }), want);
    });
  }
});

describe('rules: apiGroups and apiVersions', () => {
  const cases: Array<[string, RuleSpec, string, boolean]> = [
    ['core group', { apiGroups: [''] }, 'v1/pods', true],
    ['core group vs apps', { apiGroups: [''] }, 'apps/v1/deployments', false],
    ['apps group', { apiGroups: ['apps'] }, 'apps/v1/deployments', true],
    ['one of several groups', { apiGroups: ['batch', 'apps'] }, 'apps/v1/deployments', true],
    ['group wildcard', { apiGroups: ['*'] }, 'example.com/v1alpha1/widgets', true],
    ['no groups', { apiGroups: [] }, 'v1/pods', false],
    ['version', { apiVersions: ['v1'] }, 'apps/v1/deployments', true],
    ['other version', { apiVersions: ['v1beta1'] }, 'apps/v1/deployments', false],
    ['version wildcard', { apiVersions: ['*'] }, 'example.com/v2/widgets', true],
    ['no versions', { apiVersions: [] }, 'v1/pods', false],
  ];
  for (const [name, r, resource, want] of cases) {
    test(`${name} → ${want}`, () => assert.equal(matches([r], { resource }), want));
  }
});

describe('rules: resources and subresources', () => {
  // [rule resources, request resource, request subresource, want]
  const cases: Array<[string[], string, string | undefined, boolean]> = [
    [['pods'], 'pods', undefined, true],
    [['pods'], 'pods', 'status', false],
    [['pods'], 'configmaps', undefined, false],
    [['pods/status'], 'pods', 'status', true],
    [['pods/status'], 'pods', undefined, false],
    [['pods/status'], 'pods', 'exec', false],
    [['*/status'], 'pods', 'status', true],
    [['*/status'], 'deployments', 'status', true],
    [['*/status'], 'pods', undefined, false],
    [['*/status'], 'pods', 'exec', false],
    [['pods/*'], 'pods', undefined, true],
    [['pods/*'], 'pods', 'status', true],
    [['pods/*'], 'pods', 'exec', true],
    [['pods/*'], 'configmaps', undefined, false],
    [['*'], 'pods', undefined, true],
    [['*'], 'secrets', undefined, true],
    [['*'], 'pods', 'status', false],
    [['*'], 'pods', 'exec', false],
    [['*/*'], 'pods', undefined, true],
    [['*/*'], 'pods', 'status', true],
    [['*/*'], 'serviceaccounts', 'token', true],
    [['configmaps', 'pods/exec'], 'pods', 'exec', true],
    [['configmaps', 'pods/exec'], 'pods', undefined, false],
    [['deployments/scale'], 'deployments', 'scale', true],
    [[], 'pods', undefined, false],
  ];
  for (const [resources, res, sub, want] of cases) {
    test(`${JSON.stringify(resources)} vs ${res}${sub ? `/${sub}` : ''} → ${want}`, () => {
      const spec: RequestSpec = { resource: `v1/${res}` };
      if (sub !== undefined) spec.sub = sub;
      assert.equal(matches([{ resources }], spec), want);
    });
  }
});

describe('rules: scope', () => {
  const namespaceObject: RequestSpec = { resource: 'v1/namespaces', kind: 'Namespace', name: 'team-a', namespace: 'team-a' };
  const cases: Array<[string, string | null, RequestSpec, boolean]> = [
    ['* namespaced', '*', { namespace: 'default' }, true],
    ['* cluster', '*', { resource: 'v1/nodes', namespace: '' }, true],
    ['unset', null, { namespace: 'default' }, true],
    ['Cluster vs cluster-scoped', 'Cluster', { resource: 'v1/nodes', namespace: '' }, true],
    ['Cluster vs namespaced', 'Cluster', { namespace: 'default' }, false],
    ['Namespaced vs namespaced', 'Namespaced', { namespace: 'default' }, true],
    ['Namespaced vs cluster-scoped', 'Namespaced', { resource: 'v1/nodes', namespace: '' }, false],
    // a Namespace is cluster-scoped although the request carries its name as namespace
    ['Cluster vs a Namespace', 'Cluster', namespaceObject, true],
    ['Namespaced vs a Namespace', 'Namespaced', namespaceObject, false],
    ['Namespaced vs a Namespace subresource', 'Namespaced', { ...namespaceObject, sub: 'status' }, false],
    ['unknown scope', 'Elsewhere', { namespace: 'default' }, false],
  ];
  for (const [name, scope, spec, want] of cases) {
    test(`${name} → ${want}`, () => assert.equal(matches([{ scope, resources: ['*', '*/*'] }], spec), want));
  }
});

describe('rules: resourceNames (policy rules)', () => {
  const cases: Array<[string, RuleSpec[], string, boolean]> = [
    ['empty list matches any name', [{ resourceNames: [] }], 'x', true],
    ['listed name', [{ resourceNames: ['a', 'x'] }], 'x', true],
    ['unlisted name', [{ resourceNames: ['a'] }], 'x', false],
    ['empty request name (generateName)', [{ resourceNames: ['a'] }], '', false],
    ['a later rule without names', [{ resourceNames: ['a'] }, { resources: ['configmaps'] }], 'x', true],
    ['a later rule for another resource', [{ resourceNames: ['a'] }, { resources: ['secrets'] }], 'x', false],
  ];
  for (const [name, rules, requestName, want] of cases) {
    test(`${name} → ${want}`, () => assert.equal(matches(rules, { name: requestName }), want));
  }
});

describe('rules: matchPolicy', () => {
  // the apiserver converted an extensions/v1beta1 request to apps/v1 for this daemon's registration
  const converted: RequestSpec = { resource: 'apps/v1/deployments', kind: 'Deployment', requestResource: 'extensions/v1beta1/deployments' };
  const appsV1: RuleSpec = { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };
  const extV1beta1: RuleSpec = { apiGroups: ['extensions'], apiVersions: ['v1beta1'], resources: ['deployments'] };

  function decide(rules: RuleSpec[], spec: RequestSpec, matchPolicy: string | null): MatchDecision {
    return matchRules(compileRules(rules.map(rule), matchPolicy), request(spec));
  }

  test('Equivalent: the request kind/resource', () => {
    const d = decide([appsV1], converted, 'Equivalent');
    assert.equal(d.matches, true);
    if (d.matches !== true) return;
    assert.deepEqual({ ...d.resource }, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.deepEqual({ ...d.kind }, { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.equal(d.subResource, '');
    assert.equal(d.fromRequestKind, false);
  });

  test('Equivalent: the original request (requestKind/requestResource), reported as such', () => {
    const d = decide([extV1beta1], converted, 'Equivalent');
    assert.equal(d.matches, true);
    if (d.matches !== true) return;
    assert.deepEqual({ ...d.resource }, { group: 'extensions', version: 'v1beta1', resource: 'deployments' });
    assert.deepEqual({ ...d.kind }, { group: 'extensions', version: 'v1beta1', kind: 'Deployment' });
    assert.equal(d.fromRequestKind, true);
  });

  test('Equivalent: both match → the request kind/resource is preferred, whatever the rule order', () => {
    const d = decide([extV1beta1, appsV1], converted, 'Equivalent');
    assert.ok(d.matches === true && d.resource.group === 'apps' && !d.fromRequestKind);
  });

  test('Exact: matched against the original request, as upstream matches the apiserver attributes', () => {
    assert.equal(decide([appsV1], converted, 'Exact').matches, false);
    const d = decide([extV1beta1], converted, 'Exact');
    assert.ok(d.matches === true && d.resource.group === 'extensions' && d.fromRequestKind);
  });

  test('unset matchPolicy is Exact', () => {
    assert.equal(decide([appsV1], converted, null).matches, false);
  });

  test('Exact without request* fields falls back to kind/resource', () => {
    const r = request({ resource: 'apps/v1/deployments', kind: 'Deployment' });
    delete r.requestResource;
    delete r.requestKind;
    const d = matchRules(compileRules([rule(appsV1)], 'Exact'), r);
    assert.ok(d.matches === true && !d.fromRequestKind);
  });

  test('unconverted request: the same target either way', () => {
    const spec: RequestSpec = { resource: 'apps/v1/deployments', kind: 'Deployment' };
    for (const mp of ['Exact', 'Equivalent']) {
      const d = decide([appsV1], spec, mp);
      assert.ok(d.matches === true && !d.fromRequestKind, mp);
    }
  });

  test('neither version named: no match (no RESTMapper to find a third equivalent)', () => {
    assert.equal(decide([{ apiGroups: ['apps'], apiVersions: ['v1beta2'], resources: ['deployments'] }], converted, 'Equivalent').matches, false);
  });

  test('subresource is carried into the decision', () => {
    const d = decide([{ resources: ['deployments/scale'] }], { ...converted, sub: 'scale' }, 'Equivalent');
    assert.ok(d.matches === true && d.subResource === 'scale');
  });
});
