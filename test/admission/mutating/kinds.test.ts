// ApplyConfiguration mutations on the built-in kinds beyond core/apps/batch: each is merged with its own schema,
// as kube-apiserver 1.36 merges it (upstream: k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/smd.go
// ApplyStructuredMergeDiff, with the type converter typeconverter.go builds from the /openapi/v3 document of the
// object's group version), so a field the kind does not declare is refused and the failure policy decides, atomic
// values may not be set, and lists merge by their keys. A custom resource, whose schema this daemon cannot read,
// is merged as deduced. The expected results and messages were confirmed by running upstream's own
// ApplyStructuredMergeDiff with managedfields.NewTypeConverter over the v1.36.3 api/openapi-spec/v3 documents.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { defaulted, loadHooks, mutate, policy } from './helpers.js';

interface Kind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

const kinds: readonly Kind[] = [
  { apiVersion: 'v1', kind: 'Endpoints', resource: 'endpoints', namespaced: true },
  { apiVersion: 'v1', kind: 'Event', resource: 'events', namespaced: true },
  { apiVersion: 'v1', kind: 'Node', resource: 'nodes', namespaced: false },
  { apiVersion: 'v1', kind: 'PersistentVolume', resource: 'persistentvolumes', namespaced: false },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', resource: 'leases', namespaced: true },
  { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', resource: 'endpointslices', namespaced: true },
  { apiVersion: 'events.k8s.io/v1', kind: 'Event', resource: 'events', namespaced: true },
  { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', resource: 'ingresses', namespaced: true },
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', resource: 'networkpolicies', namespaced: true },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', namespaced: true },
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true },
  { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', resource: 'storageclasses', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', resource: 'clusterroles', namespaced: false },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions', namespaced: false },
  { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', resource: 'apiservices', namespaced: false },
  { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', resource: 'resourceclaims', namespaced: true },
];

const group = (k: Kind): string => (k.apiVersion.includes('/') ? k.apiVersion.split('/')[0]! : '');

function requestOf(k: Kind, object: Record<string, unknown>): AdmissionRequest {
  const [g, version] = k.apiVersion.includes('/') ? k.apiVersion.split('/') as [string, string] : ['', k.apiVersion];
  return {
    uid: 'u-1',
    kind: { group: g, version, kind: k.kind },
    resource: { group: g, version, resource: k.resource },
    requestKind: { group: g, version, kind: k.kind },
    requestResource: { group: g, version, resource: k.resource },
    name: 'x',
    ...(k.namespaced ? { namespace: 'default' } : {}),
    operation: 'CREATE',
    userInfo: { username: 'admin' },
    object: defaulted(object),
    oldObject: null,
    dryRun: false,
  } as AdmissionRequest;
}

const objectOf = (k: Kind, fields: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ apiVersion: k.apiVersion, kind: k.kind, metadata: { name: 'x', ...(k.namespaced ? { namespace: 'default' } : {}) }, ...fields });

async function apply(k: Kind, expression: string, fields: Record<string, unknown> = {}, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): Promise<{ allowed: boolean; message: string; patched: unknown }> {
  const hooks = loadHooks(policy('ac', [{ applyConfiguration: expression }], { group: group(k), versions: '"*"', resources: k.resource, failurePolicy }));
  const { response, patched } = await mutate(hooks, requestOf(k, objectOf(k, fields)));
  return { allowed: response.allowed === true, message: response.status?.message ?? '', patched };
}

const denied = (message: string): string => `policy 'ac.static.k8s.io' with binding 'ac-binding.static.k8s.io' denied request: error applying patch: ${message}`;

describe('a field the kind does not declare is refused, for every built-in kind', () => {
  for (const k of kinds) {
    it(`${k.apiVersion} ${k.kind}`, async () => {
      const { allowed, message } = await apply(k, 'Object{notAField: "x"}');
      assert.equal(allowed, false);
      assert.equal(message, denied('failed to convert patch object to typed object: .notAField: field not declared in schema'));
    });
  }

  it('the message names the path: .spec on a kind without spec, .spec.x inside one', async () => {
    const endpoints = kinds.find((k) => k.kind === 'Endpoints')!;
    assert.equal((await apply(endpoints, 'Object{spec: Object.spec{x: 1}}')).message, denied('failed to convert patch object to typed object: .spec: field not declared in schema'));
    const lease = kinds.find((k) => k.kind === 'Lease')!;
    assert.equal((await apply(lease, 'Object{spec: Object.spec{holder: "a"}}')).message, denied('failed to convert patch object to typed object: .spec.holder: field not declared in schema'));
  });

  it('failurePolicy Ignore lets the request through unchanged', async () => {
    const lease = kinds.find((k) => k.kind === 'Lease')!;
    const { allowed, patched } = await apply(lease, 'Object{spec: Object.spec{holder: "a"}}', { spec: { holderIdentity: 'b' } }, 'Ignore');
    assert.equal(allowed, true);
    assert.deepEqual(patched, defaulted(objectOf(lease, { spec: { holderIdentity: 'b' } })));
  });
});

describe('the new kinds merge by their own schema', () => {
  it('a declared field is merged: Lease spec.holderIdentity', async () => {
    const lease = kinds.find((k) => k.kind === 'Lease')!;
    const { allowed, patched } = await apply(lease, 'Object{spec: Object.spec{holderIdentity: "a"}}', { spec: { leaseDurationSeconds: 15 } });
    assert.equal(allowed, true);
    assert.deepEqual(patched, defaulted(objectOf(lease, { spec: { leaseDurationSeconds: 15, holderIdentity: 'a' } })));
  });

  it('atomic lists, maps and structs may not be set: StorageClass mountOptions, PDB selector, Event involvedObject', async () => {
    const storageClass = kinds.find((k) => k.kind === 'StorageClass')!;
    assert.equal((await apply(storageClass, 'Object{mountOptions: ["ro"]}', { provisioner: 'p' })).message,
      denied('invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .mountOptions'));
    const pdb = kinds.find((k) => k.kind === 'PodDisruptionBudget')!;
    assert.equal((await apply(pdb, 'Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"a": "b"}}}}')).message,
      denied('invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector'));
    const event = kinds.find((k) => k.apiVersion === 'v1' && k.kind === 'Event')!;
    assert.equal((await apply(event, 'Object{involvedObject: Object.involvedObject{name: "n"}}')).message,
      denied('invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .involvedObject'));
  });

  it('a field may make an atomic struct granular: PersistentVolume spec.claimRef (an ObjectReference) merges', async () => {
    // upstream: api/openapi-spec/v3 PersistentVolumeSpec.claimRef x-kubernetes-map-type: granular, kube-openapi
    // pkg/schemaconv makeOpenAPIRef
    const pv = kinds.find((k) => k.kind === 'PersistentVolume')!;
    const { allowed, patched } = await apply(pv, 'Object{spec: Object.spec{claimRef: Object.spec.claimRef{name: "c"}}}', { spec: { claimRef: { namespace: 'ns' } } });
    assert.equal(allowed, true);
    assert.deepEqual((patched as { spec: { claimRef: unknown } }).spec.claimRef, { namespace: 'ns', name: 'c' });
  });

  it('a patch-merge-key list merges by its key: Node status.addresses by type', async () => {
    const node = kinds.find((k) => k.kind === 'Node')!;
    const { allowed, patched } = await apply(node, 'Object{status: Object.status{addresses: [Object.status.addresses{type: "Hostname", address: "h"}]}}',
      { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } });
    assert.equal(allowed, true);
    assert.deepEqual((patched as { status: { addresses: unknown } }).status.addresses, [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'h' }]);
  });

  it('a custom resource has no schema here: any field merged, maps key by key, lists replaced', async () => {
    const widget: Kind = { apiVersion: 'example.com/v1', kind: 'Widget', resource: 'widgets', namespaced: true };
    const { allowed, patched } = await apply(widget, 'Object{spec: Object.spec{anything: "x", items: ["b"]}}', { spec: { size: 1, items: ['a'] } });
    assert.equal(allowed, true);
    assert.deepEqual(patched, objectOf(widget, { spec: { size: 1, items: ['b'], anything: 'x' } }));
  });
});

// upstream: k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/json_patch.go decodes a JSONPatch result
// strictly into the kind's Go type, for every kind in the scheme; a failure is an internal error whatever the failure
// policy. Messages confirmed with that serializer (k8s.io/apimachinery v0.36.3 json.NewSerializerWithOptions, Strict)
// over client-go's scheme plus apiextensions and apiregistration.
describe('a JSONPatch result is decoded strictly, for every built-in kind', () => {
  async function jsonPatch(k: Kind, patch: string, fields: Record<string, unknown>): Promise<{ allowed: boolean; code?: number; message: string }> {
    const hooks = loadHooks(policy('jp', [{ jsonPatch: patch }], { group: group(k), versions: '"*"', resources: k.resource, failurePolicy: 'Ignore' }));
    const { response } = await mutate(hooks, requestOf(k, objectOf(k, fields)));
    return { allowed: response.allowed === true, ...(response.status?.code === undefined ? {} : { code: response.status.code }), message: response.status?.message ?? '' };
  }
  const internal = (message: string): { allowed: boolean; code: number; message: string } => ({ allowed: false, code: 500, message: `Internal error occurred: ${message}` });
  const lease = kinds.find((k) => k.kind === 'Lease')!;
  const ingress = kinds.find((k) => k.kind === 'Ingress')!;
  const crd = kinds.find((k) => k.kind === 'CustomResourceDefinition')!;
  const schema = (openAPIV3Schema: Record<string, unknown>): Record<string, unknown> =>
    ({ spec: { group: 'example.com', names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] } });

  it('an unknown field: Lease spec.foo', async () => {
    assert.deepEqual(await jsonPatch(lease, '[JSONPatch{op: "add", path: "/spec/foo", value: "a"}]', { spec: { holderIdentity: 'h' } }),
      internal('strict decoding error: unknown field "spec.foo"'));
  });

  it('a field of the wrong type: Ingress spec.ingressClassName', async () => {
    assert.deepEqual(await jsonPatch(ingress, '[JSONPatch{op: "add", path: "/spec/ingressClassName", value: 5}]', { spec: {} }),
      internal('json: cannot unmarshal number into Go struct field IngressSpec.spec.ingressClassName of type string'));
  });

  it('a CRD schema: strict where JSONSchemaProps is a plain struct, not inside items, and additionalProperties a boolean or a schema', async () => {
    assert.deepEqual(await jsonPatch(crd, '[JSONPatch{op: "add", path: "/spec/versions/0/schema/openAPIV3Schema/bogus", value: 1}]', schema({ type: 'object' })),
      internal('strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.bogus"'));
    assert.equal((await jsonPatch(crd, '[JSONPatch{op: "add", path: "/spec/versions/0/schema/openAPIV3Schema/items", value: {"bogus": 1}}]', schema({ type: 'object' }))).allowed, true);
    assert.deepEqual(await jsonPatch(crd, '[JSONPatch{op: "add", path: "/spec/versions/0/schema/openAPIV3Schema/additionalProperties", value: 5}]', schema({ type: 'object' })),
      internal('boolean or JSON schema expected'));
  });

  it('a custom resource is not decoded into a type: any field', async () => {
    const widget: Kind = { apiVersion: 'example.com/v1', kind: 'Widget', resource: 'widgets', namespaced: true };
    assert.equal((await jsonPatch(widget, '[JSONPatch{op: "add", path: "/spec/anything", value: 5}]', { spec: {} })).allowed, true);
  });
});
