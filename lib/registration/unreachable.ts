// What an operator is told about loaded objects that can match admission-configuration objects (webhook
// configurations, policies, bindings) when the registration is made through the API, which the apiserver never
// sends them (S/admission/plugin/webhook/predicates/rules/rules.go IsExemptAdmissionConfigurationResource, checked
// first in S/admission/plugin/webhook/generic/webhook.go Dispatch). In-tree, on a 1.36+ apiserver, static policies
// and webhooks are consulted on them (the static-source branch of that Dispatch and of
// S/admission/plugin/policy/generic/plugin.go Dispatch), and so is a `--format static` registration.
// API-created (REST) policies see webhook configurations but never the four policy and binding kinds
// (plugin.go admissionResources), which is why only the guard policy's own objects can be protected through the API.
import type { UnreachableObject } from './coverage.js';
import { guardPolicyName } from './guard.js';

/** The advice every such warning ends with. */
export const unreachableAdvice = `On kube-apiserver 1.36+ register with --format static: static registrations are sent them. Through the API only the REST guard policy ${guardPolicyName} (printed with --format api) protects the registration itself, and no webhook or REST policy sees ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, MutatingAdmissionPolicy or MutatingAdmissionPolicyBinding objects.`;

/** One object's warning, without the advice. */
export function unreachableMessage(object: UnreachableObject): string {
  return `${object.owner} can match ${object.resources.join(', ')}, which kube-apiserver never sends to webhooks registered through the API: it is not enforced on them through this registration (in-tree static manifests would be).`;
}
