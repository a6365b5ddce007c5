// The built-in guard of KEP-5793: API-based admission objects may not take a name ending in ".static.k8s.io",
// which is reserved for static manifests (pkg/apis/admissionregistration/validation/static_suffix.go). With the
// ManifestBasedAdmissionControlConfig gate off the apiserver only warns.
import type { AdmissionRequest, Status } from '../api/admission.js';

export const staticSuffix = '.static.k8s.io';
const group = 'admissionregistration.k8s.io';
const guardedResources = new Map([
  ['validatingwebhookconfigurations', 'ValidatingWebhookConfiguration'],
  ['mutatingwebhookconfigurations', 'MutatingWebhookConfiguration'],
  ['validatingadmissionpolicies', 'ValidatingAdmissionPolicy'],
  ['validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding'],
  ['mutatingadmissionpolicies', 'MutatingAdmissionPolicy'],
  ['mutatingadmissionpolicybindings', 'MutatingAdmissionPolicyBinding'],
]);

export type GuardVerdict = { readonly allowed: true; readonly warning?: string } | { readonly allowed: false; readonly status: Status };

function objectName(request: AdmissionRequest): string {
  const meta = (request.object as { metadata?: { name?: unknown } } | null | undefined)?.metadata;
  return typeof meta?.name === 'string' && meta.name !== '' ? meta.name : request.name ?? '';
}

export function staticNameGuard(request: AdmissionRequest, gateEnabled: boolean): GuardVerdict {
  const resource = request.resource;
  const kind = resource?.group === group ? guardedResources.get(resource.resource ?? '') : undefined;
  if (kind === undefined || (request.subResource ?? '') !== '') return { allowed: true };
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return { allowed: true };
  const name = objectName(request);
  if (!name.endsWith(staticSuffix)) return { allowed: true };
  if (!gateEnabled) {
    return { allowed: true, warning: `metadata.name: names ending with "${staticSuffix}" will be reserved for static manifest-based configurations when the ManifestBasedAdmissionControlConfig feature gate is enabled` };
  }
  const detail = `names ending with "${staticSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`;
  const cause = `Invalid value: ${JSON.stringify(name)}: ${detail}`;
  return {
    allowed: false,
    status: {
      metadata: {},
      status: 'Failure',
      message: `${kind}.${group} ${JSON.stringify(name)} is invalid: metadata.name: ${cause}`,
      reason: 'Invalid',
      details: { name, group, kind, causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'metadata.name' }] },
      code: 422,
    } as Status,
  };
}
