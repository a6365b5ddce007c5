import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileLabelSelector } from '../../lib/manifest/selector.js';

test('label selectors: matchLabels and every operator', () => {
  const m = compileLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [
    { key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'env', operator: 'NotIn', values: ['prod'] },
    { key: 'team', operator: 'Exists' }, { key: 'legacy', operator: 'DoesNotExist' },
  ] });
  assert.equal(m({ app: 'web', tier: 'a', team: 'x' }), true);
  assert.equal(m({ app: 'web', tier: 'c', team: 'x' }), false);
  assert.equal(m({ app: 'web', tier: 'a', team: 'x', env: 'prod' }), false);
  assert.equal(m({ app: 'web', tier: 'a', team: 'x', legacy: '1' }), false);
  assert.equal(m(undefined), false);
  assert.equal(compileLabelSelector({})(undefined), true);
});

test('label keys that are Object.prototype names are plain keys', () => {
  assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] })({}), false);
  assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'toString', operator: 'DoesNotExist' }] })({}), true);
  assert.equal(compileLabelSelector({ matchLabels: { hasOwnProperty: 'x' } })({ hasOwnProperty: 'x' }), true);
});
