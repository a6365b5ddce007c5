// The scheme's defaulting of rbac.authorization.k8s.io/v1 bindings (kube-apiserver 1.36): kubernetes
// pkg/apis/rbac/v1/defaults.go (SetDefaults_ClusterRoleBinding, _RoleBinding, _Subject).
import { setIfMissing, structField } from './object.js';
import type { JsonObject } from './object.js';
import { objectItems } from './items.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** SetDefaults_Subject: a User's or Group's apiGroup is RBAC's (a ServiceAccount's stays "") */
function subject(s: JsonObject): void {
  if (s['kind'] === 'User' || s['kind'] === 'Group') setIfMissing(s, 'apiGroup', rbacGroup, '');
}

/** SetDefaults_ClusterRoleBinding / SetDefaults_RoleBinding, then each subject's */
export function roleBinding(o: JsonObject): void {
  setIfMissing(structField(o, 'roleRef'), 'apiGroup', rbacGroup, '');
  for (const s of objectItems(o['subjects'])) subject(s);
}
