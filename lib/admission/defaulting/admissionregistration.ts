// The scheme's defaulting of admissionregistration.k8s.io/v1 kinds after a mutation (kube-apiserver 1.36): the same
// functions the manifest loader applies to each decoded object (lib/manifest/defaults.ts, from kubernetes
// pkg/apis/admissionregistration/v1/defaults.go), run on a copy whose changed top-level fields are written back
// through the draft, so the mutated object is never written in place. A mutation of these kinds is rare; the copy
// keeps one implementation of their defaults.
import { cloneJson, equalJson } from '../../json/index.js';
import { applyDefaults } from '../../manifest/defaults.js';
import type { V1Kind } from '../../manifest/scheme.js';
import type { Draft, JsonObject } from './object.js';

function loaderDefaults(kind: V1Kind): (o: Draft) => void {
  return (o) => {
    const copy = cloneJson(o.value) as JsonObject;
    applyDefaults(kind, copy);
    for (const [key, value] of Object.entries(copy)) if (!equalJson(value, o.get(key))) o.write(key, value);
  };
}

export const validatingAdmissionPolicy = loaderDefaults('ValidatingAdmissionPolicy');
export const mutatingAdmissionPolicy = loaderDefaults('MutatingAdmissionPolicy');
export const validatingAdmissionPolicyBinding = loaderDefaults('ValidatingAdmissionPolicyBinding');
export const mutatingAdmissionPolicyBinding = loaderDefaults('MutatingAdmissionPolicyBinding');
export const validatingWebhookConfiguration = loaderDefaults('ValidatingWebhookConfiguration');
export const mutatingWebhookConfiguration = loaderDefaults('MutatingWebhookConfiguration');
