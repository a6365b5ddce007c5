import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { matchWebhook, namespaceNameLabel } from '../../../lib/admission/matching/index.js';
import type { MatchDecision } from '../../../lib/admission/matching/index.js';
import type { ValidatingWebhook } from '../../../lib/api/types.js';
import { labelled, request, rule, selector, staticWebhook } from './helpers.js';
import type { RequestSpec } from './helpers.js';

const gate = { excludeWebhookVirtualResources: true };
const pods = rule({ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] });

function decide(w: Partial<ValidatingWebhook>, spec: RequestSpec): MatchDecision['matches'] {
  return matchWebhook(staticWebhook('w.example.com', w), request({ resource: 'v1/pods', kind: 'Pod', ...spec }), gate).matches;
}

describe('webhook: rules, objectSelector, namespaceSelector', () => {
  const U = 'undecidable' as const;
  const cases: Array<[string, Partial<ValidatingWebhook>, RequestSpec, MatchDecision['matches']]> = [
    ['rule matches, defaulted selectors', { rules: [pods] }, {}, true],
    ['no rules', { rules: [] }, {}, false],
    ['rule for another operation', { rules: [pods] }, { op: 'DELETE' }, false],
    ['second rule matches', { rules: [rule({ resources: ['secrets'] }), pods] }, {}, true],
    ['objectSelector match', { rules: [pods], objectSelector: selector({ app: 'web' }) }, { object: labelled({ app: 'web' }) }, true],
    ['objectSelector no match', { rules: [pods], objectSelector: selector({ app: 'web' }) }, { object: labelled({ app: 'db' }) }, false],
    ['objectSelector on DELETE uses oldObject', { rules: [rule({ operations: ['DELETE'], resources: ['pods'] })], objectSelector: selector({ app: 'web' }) }, { op: 'DELETE', object: null, oldObject: labelled({ app: 'web' }) }, true],
    ['namespace by name', { rules: [pods], namespaceSelector: selector(undefined, [{ key: namespaceNameLabel, operator: 'NotIn', values: ['kube-system'] }]) }, { namespace: 'default' }, true],
    ['namespace by name, excluded namespace', { rules: [pods], namespaceSelector: selector(undefined, [{ key: namespaceNameLabel, operator: 'NotIn', values: ['kube-system'] }]) }, { namespace: 'kube-system' }, false],
    ['namespace label other than the name', { rules: [pods], namespaceSelector: selector({ team: 'a' }) }, {}, U],
    ['namespace label other than the name, rule does not match', { rules: [pods], namespaceSelector: selector({ team: 'a' }) }, { op: 'DELETE' }, false],
    ['namespace label other than the name, object selector fails', { rules: [pods], namespaceSelector: selector({ team: 'a' }), objectSelector: selector({ app: 'web' }) }, {}, false],
    ['CONNECT pods/exec, empty objectSelector', { rules: [rule({ operations: ['CONNECT'], resources: ['pods/exec'] })] }, { op: 'CONNECT', sub: 'exec', object: { kind: 'PodExecOptions', apiVersion: 'v1', command: ['sh'] } }, true],
    ['CONNECT pods/exec, objectSelector (options have no labels)', { rules: [rule({ operations: ['CONNECT'], resources: ['pods/exec'] })], objectSelector: selector(undefined, [{ key: 'a', operator: 'DoesNotExist' }]) }, { op: 'CONNECT', sub: 'exec', object: { kind: 'PodExecOptions', apiVersion: 'v1' } }, false],
    ['matchConditions are not evaluated here', { rules: [pods], matchConditions: [{ name: 'never', expression: 'false' }] }, {}, true],
  ];
  for (const [name, w, spec, want] of cases) {
    test(`${name} → ${want}`, () => assert.equal(decide(w, spec), want));
  }

  test('the undecidable message names the webhook', () => {
    const d = matchWebhook(staticWebhook('x', { rules: [pods], namespaceSelector: selector({ team: 'a' }) }), request({ resource: 'v1/pods' }), gate);
    assert.deepEqual(d, {
      matches: 'undecidable',
      error: 'namespace selector of webhook "x" requires namespace labels other than kubernetes.io/metadata.name ("team"), which static-admissiond cannot see',
    });
  });

  test('a match carries the kind/resource/subresource to call the webhook with', () => {
    const d = matchWebhook(staticWebhook('w', { rules: [rule({ resources: ['pods/status'] })] }), request({ resource: 'v1/pods', kind: 'Pod', sub: 'status', op: 'UPDATE' }), gate);
    assert.ok(d.matches === true);
    assert.deepEqual({ kind: { ...d.kind }, resource: { ...d.resource }, subResource: d.subResource, convert: d.convert }, {
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subResource: 'status',
      convert: false,
    });
  });
});

describe('webhook: matchPolicy', () => {
  // S/admission/plugin/webhook/generic/webhook.go ShouldCallHook: the rules as given, then the equivalents
  const converted: RequestSpec = { resource: 'autoscaling/v2/horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', requestResource: 'autoscaling/v1/horizontalpodautoscalers' };
  const v1 = rule({ apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] });
  const v2 = rule({ apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] });

  test('Equivalent: the original request first, the object converted to it', () => {
    const d = matchWebhook(staticWebhook('w', { rules: [v2, v1], matchPolicy: 'Equivalent' }), request(converted), gate);
    assert.ok(d.matches === true && d.resource.version === 'v1' && d.kind.version === 'v1' && d.convert);
  });
  test('Equivalent: the version sent, when the rules do not name the original', () => {
    const d = matchWebhook(staticWebhook('w', { rules: [v2], matchPolicy: 'Equivalent' }), request(converted), gate);
    assert.ok(d.matches === true && d.resource.version === 'v2' && !d.convert);
  });
  test('Exact matches the original request only', () => {
    assert.equal(matchWebhook(staticWebhook('w', { rules: [v2], matchPolicy: 'Exact' }), request(converted), gate).matches, false);
    assert.equal(matchWebhook(staticWebhook('w', { rules: [v1], matchPolicy: 'Exact' }), request(converted), gate).matches, true);
  });
  test('a custom resource named only in another version: undecidable (the failure policy applies)', () => {
    const d = matchWebhook(staticWebhook('w', { rules: [rule({ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] })], matchPolicy: 'Equivalent' }), request({ resource: 'example.com/v1beta1/widgets', kind: 'Widget' }), gate);
    assert.equal(d.matches, 'undecidable');
  });
});
