// The scheme's defaulting of rbac.authorization.k8s.io/v1 bindings (kube-apiserver 1.36, after a
// MutatingAdmissionPolicy's mutation); expected objects are upstream-oracle's `mutate` answers for the objects given.
// upstream: k8s.io/kubernetes pkg/apis/rbac/v1/defaults.go SetDefaults_ClusterRoleBinding, SetDefaults_RoleBinding,
// SetDefaults_Subject
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted } from '../mutating/helpers.js';

const rbac = 'rbac.authorization.k8s.io';

describe('rbac.authorization.k8s.io/v1', () => {
  it('ClusterRoleBinding: roleRef and User/Group subjects get RBAC\'s group, a ServiceAccount none', () => {
    const out = defaulted({
      apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's', namespace: 'default' }],
    });
    assert.deepEqual(out.roleRef, { kind: 'ClusterRole', name: 'view', apiGroup: rbac });
    assert.deepEqual(out.subjects, [{ kind: 'User', name: 'u', apiGroup: rbac }, { kind: 'Group', name: 'g', apiGroup: rbac }, { kind: 'ServiceAccount', name: 's', namespace: 'default' }]);
  });

  it('RoleBinding likewise; a group it names is kept', () => {
    const out = defaulted({ apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'b', namespace: 'default' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'User', name: 'v', apiGroup: 'example.com' }] });
    assert.deepEqual(out.roleRef, { kind: 'Role', name: 'r', apiGroup: rbac });
    assert.deepEqual(out.subjects, [{ kind: 'User', name: 'u', apiGroup: rbac }, { kind: 'User', name: 'v', apiGroup: 'example.com' }]);
  });
});
