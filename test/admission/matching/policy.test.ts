import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MatchMemo, matchPolicy, matchPolicyHook, namespaceNameLabel } from '../../../lib/admission/matching/index.js';
import type { MatchDecision } from '../../../lib/admission/matching/index.js';
import type { MatchResources, ValidatingAdmissionPolicy } from '../../../lib/api/types.js';
import { binding, labelled, map, request, rule, selector, vap } from './helpers.js';
import type { RequestSpec } from './helpers.js';

const configmaps: MatchResources = { resourceRules: [rule({ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] })] };

function decide(constraints: MatchResources | null, bindingResources: MatchResources | undefined, spec: RequestSpec): MatchDecision['matches'] {
  return matchPolicy(vap('p.static.k8s.io', constraints), binding('b.static.k8s.io', 'p.static.k8s.io', bindingResources), request(spec)).matches;
}

describe('policy: matchConstraints AND binding matchResources', () => {
  const U = 'undecidable' as const;
  const cases: Array<[string, MatchResources | null, MatchResources | undefined, RequestSpec, MatchDecision['matches']]> = [
    ['constraints match, binding without matchResources', configmaps, undefined, {}, true],
    ['constraints do not match', configmaps, undefined, { resource: 'v1/secrets' }, false],
    ['constraints: operation not listed', configmaps, undefined, { op: 'DELETE' }, false],
    ['binding narrows by object labels: match', configmaps, { objectSelector: selector({ env: 'prod' }) }, { object: labelled({ env: 'prod' }) }, true],
    ['binding narrows by object labels: no match', configmaps, { objectSelector: selector({ env: 'prod' }) }, { object: labelled({ env: 'dev' }) }, false],
    ['binding with its own resourceRules: other resource', configmaps, { resourceRules: [rule({ resources: ['secrets'] })] }, {}, false],
    ['binding with its own resourceRules: same resource', configmaps, { resourceRules: [rule({ resources: ['configmaps'] })] }, {}, true],
    ['binding cannot widen the policy', configmaps, { resourceRules: [rule({ resources: ['*'] })] }, { resource: 'v1/secrets' }, false],
    ['binding by namespace name', configmaps, { namespaceSelector: selector({ [namespaceNameLabel]: 'prod' }) }, { namespace: 'prod' }, true],
    ['binding by namespace name, other namespace', configmaps, { namespaceSelector: selector({ [namespaceNameLabel]: 'prod' }) }, { namespace: 'dev' }, false],
    ['policy excludeResourceRules by name', { ...configmaps, excludeResourceRules: [rule({ resources: ['configmaps'], resourceNames: ['kube-root-ca.crt'] })] }, undefined, { name: 'kube-root-ca.crt' }, false],
    ['policy excludeResourceRules, other name', { ...configmaps, excludeResourceRules: [rule({ resources: ['configmaps'], resourceNames: ['kube-root-ca.crt'] })] }, undefined, { name: 'x' }, true],
    ['binding excludeResourceRules', configmaps, { excludeResourceRules: [rule({ operations: ['UPDATE'], resources: ['configmaps'] })] }, { op: 'UPDATE' }, false],
    ['policy resourceNames', { resourceRules: [rule({ resources: ['configmaps'], resourceNames: ['cm'] })] }, undefined, { name: 'cm' }, true],
    ['policy resourceNames, other name', { resourceRules: [rule({ resources: ['configmaps'], resourceNames: ['cm'] })] }, undefined, { name: 'other' }, false],
    // namespace labels: undecidable only when everything else matches (upstream reports selector errors last)
    ['policy needs a namespace label', { ...configmaps, namespaceSelector: selector({ team: 'a' }) }, undefined, {}, U],
    ['policy needs a namespace label, rules do not match', { ...configmaps, namespaceSelector: selector({ team: 'a' }) }, undefined, { resource: 'v1/secrets' }, false],
    ['policy needs a namespace label, object selector fails', { ...configmaps, namespaceSelector: selector({ team: 'a' }), objectSelector: selector({ x: 'y' }) }, undefined, {}, false],
    ['policy needs a namespace label, excluded', { ...configmaps, namespaceSelector: selector({ team: 'a' }), excludeResourceRules: [rule()] }, undefined, {}, false],
    ['policy needs a namespace label, cluster-scoped request', { resourceRules: [rule()], namespaceSelector: selector({ team: 'a' }) }, undefined, { resource: 'v1/nodes', namespace: '' }, true],
    ['binding needs a namespace label', configmaps, { namespaceSelector: selector({ team: 'a' }) }, {}, U],
    ['binding needs a namespace label, policy does not match', configmaps, { namespaceSelector: selector({ team: 'a' }) }, { op: 'DELETE' }, false],
    ['no matchConstraints (configuration error)', null, undefined, {}, U],
  ];
  for (const [name, constraints, bindingResources, spec, want] of cases) {
    test(`${name} → ${want}`, () => assert.equal(decide(constraints, bindingResources, spec), want));
  }
});

describe('policy: decisions in detail', () => {
  test('a match carries the kind/resource the policy matched', () => {
    const d = matchPolicy(vap('p', configmaps), binding('b', 'p'), request({ kind: 'ConfigMap' }));
    assert.ok(d.matches === true);
    assert.deepEqual({ kind: { ...d.kind }, resource: { ...d.resource }, subResource: d.subResource, convert: d.convert }, {
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      subResource: '',
      convert: false,
    });
  });

  test('the kind/resource is the policy\'s match, not the binding\'s; a binding needs no conversion', () => {
    const hpa: RequestSpec = { resource: 'autoscaling/v2/horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
    const p = vap('p', { resourceRules: [rule({ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] })] });
    const b = binding('b', 'p', { resourceRules: [rule({ apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] })] });
    const d = matchPolicy(p, b, request(hpa));
    assert.ok(d.matches === true && d.resource.version === 'v1' && d.convert);
    // a binding matching a custom resource's version it cannot convert to still just matches
    const widgets: RequestSpec = { resource: 'example.com/v1/widgets', kind: 'Widget', requestResource: 'example.com/v1beta1/widgets' };
    const wp = vap('w', { resourceRules: [rule({ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] })] });
    const wb = binding('wb', 'w', { resourceRules: [rule({ apiGroups: ['example.com'], apiVersions: ['v1beta1'], resources: ['widgets'] })] });
    const wd = matchPolicy(wp, wb, request(widgets));
    assert.ok(wd.matches === true && wd.resource.version === 'v1' && !wd.convert);
  });

  test('excludeResourceRules: an excluded equivalent excludes (no conversion needed)', () => {
    const hpa: RequestSpec = { resource: 'autoscaling/v2/horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler' };
    const p = vap('p', {
      resourceRules: [rule({ apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers'] })],
      excludeResourceRules: [rule({ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] })],
    });
    assert.equal(matchPolicy(p, binding('b', 'p'), request(hpa)).matches, false);
  });

  test('undecidable messages name the policy or the binding', () => {
    const p = vap('p.static.k8s.io', { ...configmaps, namespaceSelector: selector({ team: 'a' }) });
    const d = matchPolicy(p, binding('b', 'p.static.k8s.io'), request());
    assert.equal(d.matches === 'undecidable' && d.error,
      'namespace selector of ValidatingAdmissionPolicy "p.static.k8s.io" requires namespace labels other than kubernetes.io/metadata.name ("team"), which static-admissiond cannot see');
    const e = matchPolicy(vap('p', configmaps), binding('b.static.k8s.io', 'p', { namespaceSelector: selector({ team: 'a' }) }), request());
    assert.ok(e.matches === 'undecidable' && e.error.startsWith('namespace selector of ValidatingAdmissionPolicyBinding "b.static.k8s.io" requires'));
  });

  test('configuration errors carry upstream\'s messages', () => {
    const none = matchPolicy(vap('p', null), binding('b', 'p'), request());
    assert.deepEqual(none, { matches: 'undecidable', error: 'policy contained no match constraints, a required field' });
    const p = vap('p', configmaps);
    delete p.spec!.matchConstraints!.namespaceSelector;
    assert.deepEqual(matchPolicy(p, binding('b', 'p'), request()), {
      matches: 'undecidable', error: 'a nil namespace selector was passed, please ensure selectors are initialized properly',
    });
  });

  test('MutatingAdmissionPolicy matches the same way', () => {
    const p = map('m', { ...configmaps, objectSelector: selector({ app: 'web' }) });
    assert.equal(matchPolicy(p, binding('b', 'm'), request({ object: labelled({ app: 'web' }) })).matches, true);
    assert.equal(matchPolicy(p, binding('b', 'm'), request({ object: labelled({ app: 'db' }) })).matches, false);
  });

  test('frozen (snapshot) policies and bindings are fine', () => {
    const deepFreeze = <T>(v: T): T => {
      if (v !== null && typeof v === 'object') {
        Object.freeze(v);
        for (const x of Object.values(v)) deepFreeze(x);
      }
      return v;
    };
    const p = deepFreeze(vap('p', configmaps));
    const b = deepFreeze(binding('b', 'p', { objectSelector: selector({ a: 'b' }) }));
    assert.equal(matchPolicy(p, b, request({ object: labelled({ a: 'b' }) })).matches, true);
    assert.equal(matchPolicy(p, b, request({ object: labelled({ a: 'c' }) })).matches, false);
  });
});

describe('policy: matchPolicyHook (the dispatcher\'s loop)', () => {
  const policy: ValidatingAdmissionPolicy = vap('p', configmaps);
  const bindings = [
    binding('all', 'p'),
    binding('prod', 'p', { namespaceSelector: selector({ [namespaceNameLabel]: 'prod' }) }),
    binding('team', 'p', { namespaceSelector: selector({ team: 'a' }) }),
  ];

  test('one decision per binding, in order', () => {
    const d = matchPolicyHook({ policy, bindings }, request({ namespace: 'prod' }));
    assert.equal(d.policy.matches, true);
    assert.deepEqual(d.bindings.map((b) => b.matches), [true, true, 'undecidable']);
    const e = matchPolicyHook({ policy, bindings }, request({ namespace: 'dev' }));
    assert.deepEqual(e.bindings.map((b) => b.matches), [true, false, 'undecidable']);
  });

  test('a policy that does not match has no binding decisions', () => {
    const d = matchPolicyHook({ policy, bindings }, request({ op: 'DELETE' }));
    assert.deepEqual({ policy: d.policy.matches, bindings: d.bindings.length }, { policy: false, bindings: 0 });
  });

  test('an undecidable policy has no binding decisions', () => {
    const d = matchPolicyHook({ policy: vap('p', { ...configmaps, namespaceSelector: selector({ team: 'a' }) }), bindings }, request());
    assert.deepEqual({ policy: d.policy.matches, bindings: d.bindings.length }, { policy: 'undecidable', bindings: 0 });
  });

  test('a policy without bindings matches with none', () => {
    const d = matchPolicyHook({ policy, bindings: [] }, request());
    assert.deepEqual({ policy: d.policy.matches, bindings: d.bindings.length }, { policy: true, bindings: 0 });
  });
});

describe('policy: MatchMemo (one validating pass over a snapshot\'s hooks)', () => {
  // the bench's shape: every policy and every binding repeating the same constraints
  const hooks = ['p1', 'p2', 'p3'].map((name) => ({
    policy: vap(name, { ...configmaps }),
    bindings: [binding(`${name}-b`, name, { namespaceSelector: selector({ [namespaceNameLabel]: 'prod' }) })],
  }));

  test('structurally equal constraints give each hook the answer it gives alone', () => {
    for (const namespace of ['prod', 'dev']) {
      const req = request({ namespace });
      const memo = new MatchMemo();
      const shared = hooks.map((h) => matchPolicyHook(h, req, memo));
      const alone = hooks.map((h) => matchPolicyHook(h, request({ namespace })));
      assert.deepEqual(shared, alone);
      assert.deepEqual(shared.map((d) => d.bindings[0]!.matches), namespace === 'prod' ? [true, true, true] : [false, false, false]);
    }
  });

  test('key order does not matter; a different value does', () => {
    const reordered = { policy: vap('q', { resourceRules: configmaps.resourceRules!, namespaceSelector: {}, objectSelector: {} }), bindings: [binding('q-b', 'q')] };
    const other = { policy: vap('r', { resourceRules: [rule({ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] })] }), bindings: [binding('r-b', 'r')] };
    const req = request();
    const memo = new MatchMemo();
    assert.equal(matchPolicyHook(hooks[0]!, req, memo).policy.matches, true);
    assert.equal(matchPolicyHook(reordered, req, memo).policy.matches, true);
    assert.equal(matchPolicyHook(other, req, memo).policy.matches, false);
  });

  test('undecidable answers are not shared: each names its own owner', () => {
    const team = ['b1.static.k8s.io', 'b2.static.k8s.io'].map((name) => binding(name, 'p', { namespaceSelector: selector({ team: 'a' }) }));
    const memo = new MatchMemo();
    const d = matchPolicyHook({ policy: vap('p', configmaps), bindings: team }, request(), memo);
    assert.deepEqual(d.bindings.map((b) => b.matches === 'undecidable' && b.error.split(' requires')[0]), [
      'namespace selector of ValidatingAdmissionPolicyBinding "b1.static.k8s.io"',
      'namespace selector of ValidatingAdmissionPolicyBinding "b2.static.k8s.io"',
    ]);
  });
});
