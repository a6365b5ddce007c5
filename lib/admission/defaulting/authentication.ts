// The scheme's defaulting of authentication.k8s.io/v1 TokenRequests (a serviceaccounts/token create; kube-apiserver
// 1.36): kubernetes pkg/apis/authentication/v1/defaults.go SetDefaults_TokenRequestSpec.
import type { Draft } from './object.js';

/** An hour, when the request names no expiration */
export function tokenRequest(o: Draft): void {
  o.structField('spec').setIfMissing('expirationSeconds', 3600);
}
