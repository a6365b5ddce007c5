import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiServerIDForHost, apiServerIDHash } from '../../lib/identity/apiserver-id.js';

test('apiserver ID and hash label: upstream integration-test vector', () => {
  const id = apiServerIDForHost('testAPIServerID');
  assert.equal(id, 'apiserver-5toptfq5wsd34qjmvecvmgbige');
  assert.equal(apiServerIDHash(id), 'sha256:3c607df3b2bf22c9d9f01d5314b4bbf411c48ef43ff44ff29b1d55b41367c795');
  assert.equal(apiServerIDHash(''), '');
});
