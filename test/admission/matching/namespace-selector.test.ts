import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileNamespaceSelector, matchNamespaceSelector, namespaceNameLabel } from '../../../lib/admission/matching/index.js';
import type { Decision } from '../../../lib/admission/matching/index.js';
import type { LabelSelector } from '../../../lib/api/types.js';
import { labelled, request, selector } from './helpers.js';
import type { RequestSpec } from './helpers.js';

const name = (values: string[], operator = 'In'): LabelSelector => selector(undefined, [{ key: namespaceNameLabel, operator, values }]);
const U = 'undecidable' as const;

function decide(sel: LabelSelector, spec: RequestSpec): Decision['matches'] {
  return matchNamespaceSelector(compileNamespaceSelector(sel, 'webhook "w"'), request(spec)).matches;
}

describe('namespaceSelector: namespaced requests, known by kubernetes.io/metadata.name only', () => {
  const cases: Array<[string, LabelSelector, string, Decision['matches']]> = [
    ['empty selector', {}, 'default', true],
    ['matchLabels name', selector({ [namespaceNameLabel]: 'wh' }), 'wh', true],
    ['matchLabels name, other namespace', selector({ [namespaceNameLabel]: 'wh' }), 'default', false],
    ['In', name(['a', 'wh']), 'wh', true],
    ['In, not listed', name(['a', 'b']), 'wh', false],
    ['NotIn kube-system', name(['kube-system'], 'NotIn'), 'default', true],
    ['NotIn kube-system, in kube-system', name(['kube-system'], 'NotIn'), 'kube-system', false],
    ['Exists (every namespace has the label)', selector(undefined, [{ key: namespaceNameLabel, operator: 'Exists' }]), 'x', true],
    ['DoesNotExist', selector(undefined, [{ key: namespaceNameLabel, operator: 'DoesNotExist' }]), 'x', false],
    ['another label', selector({ team: 'a' }), 'default', U],
    ['another label via expression', selector(undefined, [{ key: 'env', operator: 'NotIn', values: ['prod'] }]), 'default', U],
    // the name part decides "no" whatever the other labels are; when it says "yes" they are needed
    ['name fails, other label needed', selector({ team: 'a' }, [{ key: namespaceNameLabel, operator: 'NotIn', values: ['kube-system'] }]), 'kube-system', false],
    ['name holds, other label needed', selector({ team: 'a' }, [{ key: namespaceNameLabel, operator: 'NotIn', values: ['kube-system'] }]), 'default', U],
  ];
  for (const [title, sel, namespace, want] of cases) {
    test(`${title} → ${want}`, () => assert.equal(decide(sel, { namespace }), want));
  }

  test('the undecidable answer names the owner and the labels', () => {
    const d = matchNamespaceSelector(
      compileNamespaceSelector(selector({ team: 'a' }, [{ key: 'env', operator: 'Exists' }, { key: namespaceNameLabel, operator: 'Exists' }]), 'webhook "x"'),
      request({ namespace: 'default' }),
    );
    assert.deepEqual(d, {
      matches: 'undecidable',
      error: 'namespace selector of webhook "x" requires namespace labels other than kubernetes.io/metadata.name ("env", "team"), which static-admissiond cannot see',
    });
  });
});

describe('namespaceSelector: cluster-scoped requests are never exempted', () => {
  for (const sel of [selector({ team: 'a' }), name(['nothing'])]) {
    test(JSON.stringify(sel), () => assert.equal(decide(sel, { resource: 'v1/nodes', namespace: '' }), true));
  }
});

describe('namespaceSelector: a Namespace is judged by its own labels', () => {
  const ns = (spec: Partial<RequestSpec>): RequestSpec => ({ resource: 'v1/namespaces', kind: 'Namespace', name: 'team-a', namespace: 'team-a', ...spec });
  const cases: Array<[string, LabelSelector, RequestSpec, Decision['matches']]> = [
    ['CREATE, label set', selector({ team: 'a' }), ns({ op: 'CREATE', object: labelled({ team: 'a' }) }), true],
    ['CREATE, label not set', selector({ team: 'a' }), ns({ op: 'CREATE', object: labelled({ team: 'b' }) }), false],
    ['CREATE without namespace in the request', selector({ team: 'a' }), ns({ op: 'CREATE', namespace: '', object: labelled({ team: 'a' }) }), true],
    ['UPDATE uses the new labels', selector({ team: 'a' }), ns({ op: 'UPDATE', object: labelled({ team: 'a' }), oldObject: labelled({ team: 'b' }) }), true],
    ['UPDATE removing the label', selector({ team: 'a' }), ns({ op: 'UPDATE', object: labelled({}), oldObject: labelled({ team: 'a' }) }), false],
    ['DELETE uses the stored namespace (oldObject)', selector({ team: 'a' }), ns({ op: 'DELETE', object: null, oldObject: labelled({ team: 'a' }) }), true],
    ['status UPDATE uses the stored namespace (oldObject)', selector({ team: 'a' }), ns({ op: 'UPDATE', sub: 'status', object: labelled({ team: 'b' }), oldObject: labelled({ team: 'a' }) }), true],
    ['no labels at all', selector(undefined, [{ key: 'team', operator: 'DoesNotExist' }]), ns({ op: 'CREATE', object: labelled(undefined) }), true],
    ['its own name label', name(['team-a']), ns({ op: 'CREATE', object: labelled({ [namespaceNameLabel]: 'team-a' }) }), true],
    ['no Namespace in the request: by name', name(['team-a']), ns({ op: 'DELETE', object: null, oldObject: null }), true],
    ['no Namespace in the request, other label', selector({ team: 'a' }), ns({ op: 'DELETE', object: null, oldObject: null }), U],
    ['empty selector', {}, ns({ op: 'CREATE', object: null }), true],
  ];
  for (const [title, sel, spec, want] of cases) {
    test(`${title} → ${want}`, () => assert.equal(decide(sel, spec), want));
  }
});

test('namespaceSelector: an invalid selector throws at compile time', () => {
  assert.throws(() => compileNamespaceSelector(selector(undefined, [{ key: 'a', operator: 'Near' }]), 'webhook "w"'));
});
