// The object between mutations held as its Go type: empty omitempty maps are dropped (upstream: the patched object
// decoded into its Go type and read back through runtime.DefaultUnstructuredConverter, k8s.io/apiserver
// pkg/admission/plugin/policy/mutating/patch/json_patch.go and smd.go), and the request's memo of subtrees already
// pruned skips only what was pruned as the same type.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withoutEmptyMaps } from '../../../lib/admission/mutating/typed-object.js';

describe('withoutEmptyMaps', () => {
  it('drops empty and null map fields at any depth and shares every unchanged part', () => {
    const containers = [{ name: 'a', image: 'a' }];
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: {}, annotations: null }, spec: { containers, nodeSelector: {} } };
    const out = withoutEmptyMaps(pod, 'v1', 'Pod') as { metadata: unknown; spec: { containers: unknown } };
    assert.deepEqual(out, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers } });
    assert.equal(out.spec.containers, containers);
    assert.deepEqual(pod.metadata, { name: 'p', labels: {}, annotations: null }, 'the input is not changed');
  });

  it('with a memo, a subtree pruned as one type is pruned again where it stands as another', () => {
    const memo = new WeakMap();
    // {labels: {}} holds nothing to drop as a PodSpec (no such field), but as ObjectMeta its labels go
    const part = { labels: {} };
    const first = withoutEmptyMaps({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: part }, 'v1', 'Pod', memo) as { spec: unknown };
    assert.equal(first.spec, part);
    const second = withoutEmptyMaps({ apiVersion: 'v1', kind: 'Pod', metadata: part, spec: {} }, 'v1', 'Pod', memo) as { metadata: unknown };
    assert.deepEqual(second.metadata, {});
  });
});
