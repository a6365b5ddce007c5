// The scheme's defaulting of core/v1 ReplicationController, Endpoints, LimitRange, Node and PersistentVolume, as
// kube-apiserver 1.36 runs it after a MutatingAdmissionPolicy's mutation. Each expected object is upstream-oracle's
// `mutate` answer for the object given (a policy setting a label, tools/upstream-oracle/PROTOCOL.md), less the empty
// structs and zero values its Go types encode (test/upstream/compare.ts asStored).
// upstream: k8s.io/kubernetes pkg/apis/core/v1/defaults.go SetDefaults_ReplicationController, SetDefaults_Endpoints,
// SetDefaults_LimitRangeItem, SetDefaults_NodeStatus, SetDefaults_PersistentVolume, SetDefaults_HostPathVolumeSource;
// zz_generated.defaults.go (ReplicationControllerSpec.replicas, RBD/AzureDisk/ScaleIO `+default=` markers)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const container = { name: 'app', image: 'registry.example/app:1' };
const defaultedContainer = { ...container, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' };
const podSpecDefaults = { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' };

describe('v1 ReplicationController', () => {
  it('replicas 1, selector and labels from the template, the pod template defaulted', () => {
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc', namespace: 'default' }, spec: { template: { metadata: { labels: { app: 'a' } }, spec: { containers: [container] } } } };
    assert.deepEqual(defaulted(rc), {
      apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc', namespace: 'default', labels: { app: 'a' } },
      spec: { replicas: 1, selector: { app: 'a' }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [defaultedContainer], ...podSpecDefaults } } },
    });
  });

  it('a selector, labels and replicas it has are kept; no template, no template defaults', () => {
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc', labels: { own: 'yes' } }, spec: { replicas: 0, selector: { app: 'a', tier: 'x' }, template: { metadata: { labels: { app: 'a' } } } } };
    const out = defaulted(rc);
    assert.deepEqual(out.metadata, { name: 'rc', labels: { own: 'yes' } });
    assert.deepEqual([out.spec.replicas, out.spec.selector], [0, { app: 'a', tier: 'x' }]);
    assert.deepEqual(defaulted({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { replicas: 2 } }).spec, { replicas: 2 });
  });
});

describe('v1 Endpoints, LimitRange, Node, PersistentVolume', () => {
  it('Endpoints: each port TCP unless it says otherwise', () => {
    const e = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }] };
    assert.deepEqual(defaulted(e).subsets, [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] }]);
  });

  it('LimitRange: a Container limit\'s default from max, default request from the default, then min', () => {
    const lr = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, default: { memory: '512Mi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' } },
      { type: 'Pod', max: { cpu: '4' } },
      { type: 'Container', min: { cpu: '50m' } },
    ] } };
    assert.deepEqual(defaulted(lr).spec.limits, [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' }, default: { cpu: '2', memory: '512Mi' }, defaultRequest: { cpu: '2', 'ephemeral-storage': '1Gi', memory: '512Mi' } },
      { type: 'Pod', max: { cpu: '4' } },
      { type: 'Container', min: { cpu: '50m' }, defaultRequest: { cpu: '50m' } },
    ]);
  });

  it('Node: allocatable is the capacity when unset', () => {
    const capacity = { cpu: '4', memory: '8Gi', pods: '110' };
    assert.deepEqual(defaulted({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: { capacity } }).status, { capacity, allocatable: capacity });
    const set = { capacity: { cpu: '4' }, allocatable: { cpu: '3500m' } };
    assert.deepEqual(defaulted({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, status: set }).status, set);
  });

  it('PersistentVolume: Pending, Retain, Filesystem, and its source\'s defaults', () => {
    const pv = (source: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> =>
      ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source, ...extra } });
    assert.deepEqual(defaulted(pv({ hostPath: { path: '/data' } })), {
      ...pv({ hostPath: { path: '/data', type: '' } }, { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }), status: { phase: 'Pending' },
    });
    assert.deepEqual((defaulted(pv({ azureDisk: { diskName: 'd', diskURI: 'https://d' } })) as { spec: Record<string, unknown> }).spec['azureDisk'], {
      diskName: 'd', diskURI: 'https://d', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared',
    });
    const rbd = defaulted(pv({ rbd: { monitors: ['m'], image: 'i' } }, { persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' })) as { spec: Record<string, unknown> };
    assert.deepEqual(rbd.spec, { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], rbd: { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' }, persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' });
  });
});
