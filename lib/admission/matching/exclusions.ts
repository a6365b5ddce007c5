// Resources some admission plugins never see, and the admission-configuration resources (reference §8).
//
// Upstream: pkg/kubeapiserver/admission/exclusion/resources.go (the excluded list, by group/resource, all versions);
// S/admission/plugin/policy/generic/plugin.go Dispatch (isExcludedFromAllHooks: expression-based policies, static
// ones included, skip them); S/admission/plugin/webhook/generic/webhook.go Dispatch (webhooks skip them while the
// ExcludeAdmissionWebhookVirtualResources gate is on); S/admission/plugin/webhook/predicates/rules/rules.go
// IsExemptAdmissionConfigurationResource (by kind: API-based hooks skip these, static hooks run on them).
import type { AdmissionRequest } from '../../api/admission.js';

/** Non-persisted authentication/authorization reviews: intercepting them may break the cluster. */
export const excludedResources: ReadonlyArray<Readonly<{ group: string; resource: string }>> = Object.freeze([
  { group: 'authentication.k8s.io', resource: 'selfsubjectreviews' },
  { group: 'authentication.k8s.io', resource: 'tokenreviews' },
  { group: 'authorization.k8s.io', resource: 'localsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectaccessreviews' },
  { group: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' },
  { group: 'authorization.k8s.io', resource: 'subjectaccessreviews' },
].map((gr) => Object.freeze(gr)));

const excludedByGroup: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const m = new Map<string, Set<string>>();
  for (const { group, resource } of excludedResources) {
    let set = m.get(group);
    if (!set) m.set(group, (set = new Set()));
    set.add(resource);
  }
  return m;
})();

const admissionConfigurationKinds: ReadonlySet<string> = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

/** Whether group/resource (any version, any subresource) is one of the excluded review resources. */
export function isExcludedGroupResource(group: string | undefined, resource: string | undefined): boolean {
  return excludedByGroup.get(group ?? '')?.has(resource ?? '') === true;
}

// Upstream decides on the apiserver's own attributes, i.e. the original request: `requestResource` here. Its
// `resource` (the version converted for this daemon's registration) has the same group and resource for these
// kinds; both are checked so a request missing `requestResource` is still recognised.
function excludedRequest(request: AdmissionRequest): boolean {
  const r = request.requestResource;
  return (r != null && isExcludedGroupResource(r.group, r.resource)) || isExcludedGroupResource(request.resource?.group, request.resource?.resource);
}

/** ValidatingAdmissionPolicy / MutatingAdmissionPolicy (static and API alike) never intercept the request. */
export function isExcludedFromPolicies(request: AdmissionRequest): boolean {
  return excludedRequest(request);
}

/** Admission webhooks (static and API alike) skip the request: the review resources while the
 * ExcludeAdmissionWebhookVirtualResources gate is on. */
export function isExcludedFromWebhooks(request: AdmissionRequest, excludeWebhookVirtualResources: boolean): boolean {
  return excludeWebhookVirtualResources && excludedRequest(request);
}

/**
 * A request on an admission-configuration object (admissionregistration.k8s.io ValidatingWebhookConfiguration,
 * MutatingWebhookConfiguration, ValidatingAdmissionPolicy(Binding), MutatingAdmissionPolicy(Binding)), decided by
 * kind like upstream's IsExemptAdmissionConfigurationResource. API-based hooks skip these; static hooks, which are
 * all this daemon serves, do run on them, so this is informational (metrics, logs) and not a reason to skip.
 * (Upstream's policy plugin keys the same idea by resource and lists only the four policy resources; this
 * predicate does not gate anything here, so the broader webhook-side set is the one exported.)
 */
export function isAdmissionConfigurationResource(request: AdmissionRequest): boolean {
  const k = request.requestKind ?? request.kind;
  return k?.group === 'admissionregistration.k8s.io' && admissionConfigurationKinds.has(k.kind ?? '');
}
