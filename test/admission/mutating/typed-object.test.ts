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

  // typed-object.ts walks only the types that can hold a map field at some depth (k8s.io/api v0.36.3: every map
  // field is omitempty); a probe, an env var or a toleration cannot, so they are passed over whole
  it('finds empty maps deep inside the types that can hold one, and passes over whole the parts that cannot', () => {
    const probe = { exec: { command: ['true'] }, periodSeconds: 5 };
    const env = [{ name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } }];
    const tolerations = [{ key: 'k', operator: 'Exists' }];
    const pod = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
      spec: {
        tolerations,
        containers: [{ name: 'a', livenessProbe: probe, env, resources: { limits: {}, requests: { cpu: '1' } } }],
        volumes: [{ name: 'v', csi: { driver: 'd', volumeAttributes: {}, nodePublishSecretRef: { name: 's' } } }],
        // a recursive type: a JSONSchemaProps is not in a Pod; a Deployment's template is a PodTemplateSpec
      },
      status: { containerStatuses: [{ name: 'a', allocatedResources: null, resources: { limits: {} } }] },
    };
    const out = withoutEmptyMaps(structuredClone(pod), 'v1', 'Pod') as typeof pod;
    assert.deepEqual(out.spec.containers[0]!.resources, { requests: { cpu: '1' } });
    assert.deepEqual(out.spec.volumes[0]!.csi, { driver: 'd', nodePublishSecretRef: { name: 's' } });
    assert.deepEqual(out.status.containerStatuses[0], { name: 'a', resources: {} });
    const same = withoutEmptyMaps(pod, 'v1', 'Pod') as typeof pod;
    assert.equal(same.spec.containers[0]!.livenessProbe, probe);
    assert.equal(same.spec.containers[0]!.env, env);
    assert.equal(same.spec.tolerations, tolerations);
  });

  it('a recursive type holding maps is walked through its recursion (a CRD schema\'s properties)', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com' },
      spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { inner: { type: 'object', properties: {} } } } } } } }] },
    };
    const out = withoutEmptyMaps(crd, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition') as typeof crd;
    assert.deepEqual(out.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.inner, { type: 'object' });
  });
});
