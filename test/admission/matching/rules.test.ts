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
  // Upstream: S/admission/plugin/policy/matching/matching.go matchesResourceRules and S/admission/plugin/webhook/
  // generic/webhook.go ShouldCallHook: the original request first, then (Equivalent) rule by rule the equivalent
  // resources, invoked with the one that matched (KindFor), the object converted to it.
  const hpaV2: RequestSpec = { resource: 'autoscaling/v2/horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
  // the apiserver converted an autoscaling/v1 request to v2 for this daemon's registration
  const convertedHPA: RequestSpec = { ...hpaV2, requestResource: 'autoscaling/v1/horizontalpodautoscalers' };
  const v1Rule: RuleSpec = { apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] };
  const v2Rule: RuleSpec = { apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] };

  function decide(rules: RuleSpec[], spec: RequestSpec, matchPolicy: string | null): MatchDecision {
    return matchRules(compileRules(rules.map(rule), matchPolicy), request(spec));
  }

  test('Equivalent: an equivalent the conversion table knows, with its kind; the object is to be converted', () => {
    const d = decide([v1Rule], hpaV2, 'Equivalent');
    assert.equal(d.matches, true);
    if (d.matches !== true) return;
    assert.deepEqual({ ...d.resource }, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
    assert.deepEqual({ ...d.kind }, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    assert.equal(d.subResource, '');
    assert.equal(d.convert, true);
  });

  test('Equivalent: a subresource the class has (horizontalpodautoscalers/status)', () => {
    const d = decide([{ ...v1Rule, resources: ['horizontalpodautoscalers/status'] }], { ...hpaV2, sub: 'status' }, 'Equivalent');
    assert.ok(d.matches === true && d.resource.version === 'v1' && d.subResource === 'status' && d.convert);
  });

  test('Equivalent: Events across groups (v1 <-> events.k8s.io/v1)', () => {
    const d = decide([{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], resources: ['events'] }], { resource: 'v1/events', kind: 'Event' }, 'Equivalent');
    assert.ok(d.matches === true && d.kind.group === 'events.k8s.io' && d.kind.kind === 'Event' && d.convert);
  });

  test('Exact: only the original request', () => {
    assert.equal(decide([v1Rule], hpaV2, 'Exact').matches, false);
    assert.equal(decide([v1Rule], hpaV2, null).matches, false, 'unset matchPolicy is Exact');
  });

  test('the original request (requestKind/requestResource) comes first, whatever the rule order', () => {
    const d = decide([v2Rule, v1Rule], convertedHPA, 'Equivalent');
    assert.ok(d.matches === true && d.resource.version === 'v1' && d.convert, 'invoked as the original v1, converted from the v2 object');
    const exact = decide([v1Rule], convertedHPA, 'Exact');
    assert.ok(exact.matches === true && exact.resource.version === 'v1' && exact.convert);
  });

  test('the version the apiserver sent counts as an equivalent (no conversion)', () => {
    const d = decide([v2Rule], convertedHPA, 'Equivalent');
    assert.ok(d.matches === true && d.resource.version === 'v2' && !d.convert);
  });

  test('Exact without request* fields falls back to kind/resource', () => {
    const r = request({ resource: 'apps/v1/deployments', kind: 'Deployment' });
    delete r.requestResource;
    delete r.requestKind;
    const d = matchRules(compileRules([rule({ apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] })], 'Exact'), r);
    assert.ok(d.matches === true && !d.convert);
  });

  test('a built-in resource served in one version: a rule naming another version does not match', () => {
    assert.equal(decide([{ apiGroups: ['apps'], apiVersions: ['v1beta2'], resources: ['deployments'] }], { resource: 'apps/v1/deployments', kind: 'Deployment' }, 'Equivalent').matches, false);
    assert.equal(decide([{ apiGroups: ['autoscaling'], apiVersions: ['v2beta2'], resources: ['horizontalpodautoscalers'] }], hpaV2, 'Equivalent').matches, false);
  });

  test('a custom resource named only in another version: an error (its equivalents are unknown), never a silent pass', () => {
    const widgets: RequestSpec = { resource: 'example.com/v1beta1/widgets', kind: 'Widget' };
    const d = decide([{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], widgets, 'Equivalent');
    assert.deepEqual(d, {
      matches: 'undecidable',
      error: 'no conversion from example.com/v1beta1, Kind=Widget to another version of widgets.example.com: static-admissiond converts only HorizontalPodAutoscaler (autoscaling/v1, autoscaling/v2) and Event (v1, events.k8s.io/v1)',
    });
    assert.equal(decide([{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }], widgets, 'Exact').matches, false, 'Exact needs no equivalents');
    assert.equal(decide([{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['gadgets'] }], widgets, 'Equivalent').matches, false, 'another resource');
  });

  test('a version the object cannot be converted to (a narrow registration): an error', () => {
    const converted: RequestSpec = { resource: 'apps/v1/deployments', kind: 'Deployment', requestResource: 'apps/v1beta1/deployments' };
    const d = decide([{ apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] }], converted, 'Exact');
    assert.deepEqual(d, {
      matches: 'undecidable',
      error: 'no conversion from apps/v1, Kind=Deployment to apps/v1beta1, Kind=Deployment: static-admissiond converts only HorizontalPodAutoscaler (autoscaling/v1, autoscaling/v2) and Event (v1, events.k8s.io/v1)',
    });
  });

  test('subresource is carried into the decision', () => {
    const d = decide([{ resources: ['deployments/scale'] }], { resource: 'apps/v1/deployments', kind: 'Deployment', sub: 'scale' }, 'Equivalent');
    assert.ok(d.matches === true && d.subResource === 'scale');
  });
});
