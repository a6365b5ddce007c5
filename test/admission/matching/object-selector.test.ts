import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileObjectSelector, matchObjectSelector } from '../../../lib/admission/matching/index.js';
import type { LabelSelector } from '../../../lib/api/types.js';
import { labelled, request, selector } from './helpers.js';

const execOptions = { kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, command: ['sh'] };

describe('objectSelector', () => {
  // [name, selector, object, oldObject, want]
  const cases: Array<[string, LabelSelector, unknown, unknown, boolean]> = [
    ['empty selector, any object', {}, labelled({ a: 'b' }), null, true],
    ['empty selector, no object at all', {}, null, null, true],
    ['empty selector, object without metadata', {}, execOptions, null, true],
    ['matchLabels on object', selector({ app: 'web' }), labelled({ app: 'web', x: 'y' }), null, true],
    ['matchLabels, other value', selector({ app: 'web' }), labelled({ app: 'db' }), null, false],
    ['matchLabels, object has no labels', selector({ app: 'web' }), labelled(undefined), null, false],
    ['UPDATE adding the label: object matches', selector({ app: 'web' }), labelled({ app: 'web' }), labelled({}), true],
    ['UPDATE removing the label: oldObject matches', selector({ app: 'web' }), labelled({}), labelled({ app: 'web' }), true],
    ['UPDATE, neither side', selector({ app: 'web' }), labelled({ app: 'db' }), labelled({ app: 'api' }), false],
    ['DELETE: object null, oldObject labels', selector({ app: 'web' }), null, labelled({ app: 'web' }), true],
    ['DELETE: object null, oldObject other labels', selector({ app: 'web' }), null, labelled({ app: 'db' }), false],
    ['no object and no oldObject', selector({ app: 'web' }), null, null, false],
    ['DoesNotExist, object without labels', selector(undefined, [{ key: 'skip', operator: 'DoesNotExist' }]), labelled(undefined), null, true],
    ['DoesNotExist, label present', selector(undefined, [{ key: 'skip', operator: 'DoesNotExist' }]), labelled({ skip: 'true' }), null, false],
    ['NotIn, label absent', selector(undefined, [{ key: 'env', operator: 'NotIn', values: ['prod'] }]), labelled({}), null, true],
    ['In', selector(undefined, [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }]), labelled({ env: 'prod' }), null, true],
    ['Exists', selector(undefined, [{ key: 'env', operator: 'Exists' }]), labelled({ env: '' }), null, true],
    ['labels and expressions ANDed', selector({ app: 'web' }, [{ key: 'env', operator: 'In', values: ['prod'] }]), labelled({ app: 'web', env: 'dev' }), null, false],
    // upstream: meta.Accessor fails on a non-object (CONNECT's PodExecOptions): never matched, not even by DoesNotExist
    ['object without metadata (CONNECT options)', selector(undefined, [{ key: 'skip', operator: 'DoesNotExist' }]), execOptions, null, false],
    ['object that is not an object', selector(undefined, [{ key: 'skip', operator: 'DoesNotExist' }]), 'text', null, false],
    ['metadata null', selector(undefined, [{ key: 'skip', operator: 'DoesNotExist' }]), { metadata: null }, null, false],
  ];
  for (const [name, sel, object, oldObject, want] of cases) {
    test(`${name} → ${want}`, () => {
      const compiled = compileObjectSelector(sel);
      assert.equal(matchObjectSelector(compiled, request({ object, oldObject })), want);
    });
  }

  test('object and oldObject are read on every call (mutating admission may replace them)', () => {
    const compiled = compileObjectSelector(selector({ app: 'web' }));
    const r = request({ object: labelled({}) });
    assert.equal(matchObjectSelector(compiled, r), false);
    r.object = labelled({ app: 'web' });
    assert.equal(matchObjectSelector(compiled, r), true);
  });

  test('an invalid selector throws at compile time', () => {
    assert.throws(() => compileObjectSelector(selector(undefined, [{ key: 'a', operator: 'In', values: [] }])));
  });
});
