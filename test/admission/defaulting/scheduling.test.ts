// The scheme's defaulting of scheduling.k8s.io/v1 PriorityClasses (kube-apiserver 1.36, after a
// MutatingAdmissionPolicy's mutation); the expected object is upstream-oracle's `mutate` answer for the object given.
// upstream: k8s.io/kubernetes pkg/apis/scheduling/v1/defaults.go SetDefaults_PriorityClass
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

it('scheduling.k8s.io/v1 PriorityClass: preemptionPolicy PreemptLowerPriority', () => {
  assert.deepEqual(defaulted({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1000 }), {
    apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1000, preemptionPolicy: 'PreemptLowerPriority',
  });
  assert.equal(defaulted({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1, preemptionPolicy: 'Never' }).preemptionPolicy, 'Never');
});
