// Manifests and requests of the shadow tests: an enforced set and a candidate that decides differently.
import type { AdmissionRequest } from '../../lib/api/admission.js';

/** A static object's name: `<stem>.static.k8s.io`. */
export const named = (stem: string): string => `${stem}.static.k8s.io`;
export const bindingOf = (stem: string): string => `${stem}-binding.static.k8s.io`;

/** A policy of `kind` on ConfigMap `operations`, with `body` under its spec, and its binding with `bindingSpec`. */
function policyPair(kind: 'Validating' | 'Mutating', stem: string, spec: { failurePolicy: string; operations: string; body: string; bindingSpec?: string }): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}AdmissionPolicy
metadata:
  name: ${named(stem)}
spec:
  failurePolicy: ${spec.failurePolicy}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ${spec.operations}
      resources: ["configmaps"]
${spec.body}---
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}AdmissionPolicyBinding
metadata:
  name: ${bindingOf(stem)}
spec:
  policyName: ${named(stem)}
${spec.bindingSpec ?? ''}`;
}

/** A ValidatingAdmissionPolicy on ConfigMap CREATE/UPDATE with one validation, and its binding. */
export function policy(stem: string, expression: string, options: { actions?: string; failurePolicy?: 'Fail' | 'Ignore' } = {}): string {
  return policyPair('Validating', stem, {
    failurePolicy: options.failurePolicy ?? 'Fail',
    operations: '["CREATE", "UPDATE"]',
    body: `  validations:\n  - expression: ${JSON.stringify(expression)}\n    message: ${named(stem)} says no\n`,
    bindingSpec: `  validationActions: ${options.actions ?? '[Deny]'}\n`,
  });
}

/** A MutatingAdmissionPolicy on ConfigMap CREATE setting label `key` to the CEL `value`, and its binding. */
export function labelPolicy(stem: string, key: string, value: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): string {
  return policyPair('Mutating', stem, {
    failurePolicy,
    operations: '["CREATE"]',
    body: `  reinvocationPolicy: Never\n  mutations:\n  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: >-\n        Object{metadata: Object.metadata{labels: {${JSON.stringify(key)}: ${value}}}}\n`,
  });
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
