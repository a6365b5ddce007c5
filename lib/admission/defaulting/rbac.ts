// The scheme's defaulting of rbac.authorization.k8s.io/v1 bindings (kube-apiserver 1.36): kubernetes
// pkg/apis/rbac/v1/defaults.go (SetDefaults_ClusterRoleBinding, _RoleBinding, _Subject).
import type { Draft } from './object.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** SetDefaults_Subject: a User's or Group's apiGroup is RBAC's (a ServiceAccount's stays "") */
function subject(s: Draft): void {
  const kind = s.get('kind');
  if (kind === 'User' || kind === 'Group') s.setIfMissing('apiGroup', rbacGroup, '');
}

/** SetDefaults_ClusterRoleBinding / SetDefaults_RoleBinding, then each subject's */
export function roleBinding(o: Draft): void {
  o.structField('roleRef').setIfMissing('apiGroup', rbacGroup, '');
  for (const s of o.objects('subjects')) subject(s);
}
