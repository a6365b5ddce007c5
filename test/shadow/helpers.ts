// Manifests and requests of the shadow tests: an enforced set and a candidate that decides differently.
import type { AdmissionRequest } from '../../lib/api/admission.js';

/** A static object's name: `<stem>.static.k8s.io`. */
export const named = (stem: string): string => `${stem}.static.k8s.io`;
export const bindingOf = (stem: string): string => `${stem}-binding.static.k8s.io`;

/** A ValidatingAdmissionPolicy on ConfigMap CREATE/UPDATE with one validation, and its binding. */
export function policy(stem: string, expression: string, options: { actions?: string; failurePolicy?: 'Fail' | 'Ignore' } = {}): string {
  const name = named(stem);
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: ${options.failurePolicy ?? 'Fail'}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: ${JSON.stringify(expression)}
    message: ${name} says no
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${bindingOf(stem)}
spec:
  policyName: ${name}
  validationActions: ${options.actions ?? '[Deny]'}
`;
}

/** A MutatingAdmissionPolicy on ConfigMap CREATE setting label `key` to `value`, and its binding. */
export function labelPolicy(stem: string, key: string, value: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): string {
  const name = named(stem);
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: ${failurePolicy}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {${JSON.stringify(key)}: ${value}}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${bindingOf(stem)}
spec:
  policyName: ${name}
`;
}

export function configMapRequest(name: string, uid = `uid-${name}`): AdmissionRequest {
  return {
    uid,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    requestResource: { group: '', version: 'v1', resource: 'configmaps' },
    name,
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  } as AdmissionRequest;
}

export function reviewBody(request: AdmissionRequest): string {
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
}
