// The scheme's defaulting of storage.k8s.io/v1 StorageClass, CSIDriver and VolumeAttachment (kube-apiserver 1.36,
// default feature gates, after a MutatingAdmissionPolicy's mutation); expected objects are upstream-oracle's `mutate`
// answers for the objects given, less the zero values its Go types encode.
// upstream: k8s.io/kubernetes pkg/apis/storage/v1/defaults.go SetDefaults_StorageClass, SetDefaults_CSIDriver;
// zz_generated.defaults.go SetObjectDefaults_VolumeAttachment
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

describe('storage.k8s.io/v1', () => {
  it('StorageClass: reclaim Delete, binding Immediate', () => {
    const out = defaulted<Record<string, unknown>>({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 's' }, provisioner: 'example.com/disk' });
    assert.deepEqual([out.reclaimPolicy, out.volumeBindingMode], ['Delete', 'Immediate']);
  });

  it('CSIDriver: attach required, no pod info, Persistent, ReadWriteOnceWithFSType, seLinuxMount false (SELinuxMountReadWriteOncePod GA)', () => {
    assert.deepEqual(defaulted({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'c' }, spec: {} }).spec, {
      attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false, seLinuxMount: false,
    });
  });

  it('VolumeAttachment: an inline volume spec gets its source\'s defaults', () => {
    const inline = { capacity: { storage: '1Gi' }, scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' } } };
    const out = defaulted({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'v' }, spec: { attacher: 'a', nodeName: 'n', source: { inlineVolumeSpec: inline } } });
    assert.deepEqual(out.spec.source.inlineVolumeSpec.scaleIO, { gateway: 'g', system: 's', secretRef: { name: 'x' }, storageMode: 'ThinProvisioned', fsType: 'xfs' });
    const byName = { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'v' }, spec: { attacher: 'a', nodeName: 'n', source: { persistentVolumeName: 'pv' } } };
    assert.equal(defaulted(byName), byName);
  });
});
