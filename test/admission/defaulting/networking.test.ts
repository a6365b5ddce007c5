// The scheme's defaulting of networking.k8s.io/v1 NetworkPolicy and IngressClass (kube-apiserver 1.36, after a
// MutatingAdmissionPolicy's mutation); expected objects are upstream-oracle's `mutate` answers for the objects given.
// upstream: k8s.io/kubernetes pkg/apis/networking/v1/defaults.go SetDefaults_NetworkPolicy, SetDefaults_NetworkPolicyPort,
// SetDefaults_IngressClass
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const policy = (spec: Record<string, unknown>): { spec: Record<string, unknown> } =>
  defaulted({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'n', namespace: 'default' }, spec });

describe('networking.k8s.io/v1', () => {
  it('NetworkPolicy: policyTypes Ingress, plus Egress when it has egress rules; ports TCP', () => {
    assert.deepEqual(policy({ podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] }).spec, { podSelector: {}, ingress: [{ ports: [{ port: 80, protocol: 'TCP' }] }], policyTypes: ['Ingress'] });
    assert.deepEqual(policy({ podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP' }, { port: 443 }] }] }).spec, {
      podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP' }, { port: 443, protocol: 'TCP' }] }], policyTypes: ['Ingress', 'Egress'],
    });
    assert.deepEqual(policy({ podSelector: {}, policyTypes: ['Egress'] }).spec, { podSelector: {}, policyTypes: ['Egress'] });
  });

  it('IngressClass: parameters are cluster-scoped by default', () => {
    const parameters = { apiGroup: 'example.com', kind: 'Params', name: 'p' };
    const out = defaulted({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'i' }, spec: { controller: 'example.com/ingress', parameters } });
    assert.deepEqual(out.spec, { controller: 'example.com/ingress', parameters: { ...parameters, scope: 'Cluster' } });
    const none = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'i' }, spec: { controller: 'c' } };
    assert.equal(defaulted(none), none);
  });
});
