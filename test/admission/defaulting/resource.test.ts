// The scheme's defaulting of resource.k8s.io/v1 ResourceClaim, ResourceClaimTemplate and ResourceSlice
// (kube-apiserver 1.36, after a MutatingAdmissionPolicy's mutation); expected objects are upstream-oracle's `mutate`
// answers for the objects given. A device taint's timeAdded is the clock's (not decidable against the oracle).
// upstream: k8s.io/kubernetes pkg/apis/resource/v1/defaults.go SetDefaults_ExactDeviceRequest,
// SetDefaults_DeviceSubRequest, SetDefaults_Device, SetDefaults_DeviceTaint; k8s.io/api resource/v1 types.go
// DeviceToleration.operator `+default="Equal"`
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const requests = [
  { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } },
  { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu.example.com', tolerations: [{ key: 'k', effect: 'NoSchedule' }] }, { name: 'all', deviceClassName: 'gpu.example.com', allocationMode: 'All' }] },
];
const defaultedRequests = [
  { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 } },
  { name: 'any', firstAvailable: [
    { name: 'big', deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'k', operator: 'Equal', effect: 'NoSchedule' }] },
    { name: 'all', deviceClassName: 'gpu.example.com', allocationMode: 'All' },
  ] },
];

describe('resource.k8s.io/v1', () => {
  it('ResourceClaim and ResourceClaimTemplate: ExactCount of 1, tolerations Equal', () => {
    assert.deepEqual(defaulted({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'c' }, spec: { devices: { requests } } }).spec, { devices: { requests: defaultedRequests } });
    assert.deepEqual(defaulted({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 't' }, spec: { spec: { devices: { requests } } } }).spec, { spec: { devices: { requests: defaultedRequests } } });
  });

  it('ResourceClaim status: an allocation result\'s tolerations Equal', () => {
    const status = { allocation: { devices: { results: [{ request: 'gpu', driver: 'd', pool: 'p', device: 'd0', tolerations: [{ key: 'k', effect: 'NoSchedule' }] }] } } };
    const out = defaulted({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'c' }, spec: { devices: { requests: [] } }, status });
    assert.deepEqual(out.status.allocation.devices.results[0].tolerations, [{ key: 'k', effect: 'NoSchedule', operator: 'Equal' }]);
  });

  it('ResourceSlice: a resource mapping\'s multiplier 1; a taint added now, to the second', () => {
    const slice = (taint: Record<string, unknown>): Record<string, unknown> => ({
      apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name: 's' },
      spec: { driver: 'd', pool: { name: 'p', generation: 1, resourceSliceCount: 1 }, nodeName: 'n', devices: [{ name: 'd0', taints: [taint], nodeAllocatableResourceMappings: { cpu: { capacityKey: 'cores' } } }] },
    });
    const set = defaulted(slice({ key: 'k', effect: 'NoSchedule', timeAdded: '2026-11-27T20:00:00Z' })) as { spec: { devices: Array<Record<string, unknown>> } };
    assert.deepEqual(set.spec.devices[0], { name: 'd0', taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-11-27T20:00:00Z' }], nodeAllocatableResourceMappings: { cpu: { capacityKey: 'cores', allocationMultiplier: '1' } } });
    const before = Math.floor(Date.now() / 1000) * 1000;
    const unset = defaulted(slice({ key: 'k', effect: 'NoSchedule' })) as { spec: { devices: Array<{ taints: Array<{ timeAdded: string }> }> } };
    const added = unset.spec.devices[0]!.taints[0]!.timeAdded;
    assert.match(added, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(Date.parse(added) >= before && Date.parse(added) <= Date.now(), added);
  });
});
