// The scheme's defaulting of discovery.k8s.io/v1 EndpointSlices (kube-apiserver 1.36, after a MutatingAdmissionPolicy's
// mutation); the expected object is upstream-oracle's `mutate` answer for the object given.
// upstream: k8s.io/kubernetes pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

it('discovery.k8s.io/v1 EndpointSlice: each port named "" and TCP unless it says otherwise', () => {
  const out = defaulted({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'e' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }, { name: 'dns', port: 53, protocol: 'UDP' }] });
  assert.deepEqual(out.ports, [{ port: 80, name: '', protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }]);
});
