// The scheme's defaulting of admissionregistration.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/admissionregistration/v1/defaults.go (SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule,
// _ServiceReference, _ValidatingAdmissionPolicySpec, _MutatingAdmissionPolicySpec, _MatchResources) as
// zz_generated.defaults.go calls them.
import { isObject, setIfMissing, structField } from './object.js';
import type { JsonObject } from './object.js';
import { objectItems } from './items.js';

/** SetDefaults_Rule: every scope */
function rule(r: JsonObject): void {
  setIfMissing(r, 'scope', '*');
}

/** SetDefaults_MatchResources, then its rules' */
function matchResources(m: unknown): void {
  if (!isObject(m)) return;
  setIfMissing(m, 'matchPolicy', 'Equivalent');
  setIfMissing(m, 'namespaceSelector', {});
  setIfMissing(m, 'objectSelector', {});
  for (const r of objectItems(m['resourceRules'])) rule(r);
  for (const r of objectItems(m['excludeResourceRules'])) rule(r);
}

/** ValidatingAdmissionPolicy and MutatingAdmissionPolicy: SetDefaults_…PolicySpec and the match constraints */
export function admissionPolicy(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'failurePolicy', 'Fail');
  matchResources(spec['matchConstraints']);
}

/** …PolicyBinding: the binding's match resources, when it has them */
export function admissionPolicyBinding(o: JsonObject): void {
  const spec = o['spec'];
  if (isObject(spec)) matchResources(spec['matchResources']);
}

/** SetDefaults_ValidatingWebhook (and the mutating one's extra reinvocationPolicy), the service port, the rules */
function webhook(w: JsonObject, mutating: boolean): void {
  setIfMissing(w, 'failurePolicy', 'Fail');
  setIfMissing(w, 'matchPolicy', 'Equivalent');
  setIfMissing(w, 'namespaceSelector', {});
  setIfMissing(w, 'objectSelector', {});
  setIfMissing(w, 'timeoutSeconds', 10);
  if (mutating) setIfMissing(w, 'reinvocationPolicy', 'Never');
  const clientConfig = w['clientConfig'];
  const service = isObject(clientConfig) ? clientConfig['service'] : undefined;
  if (isObject(service)) setIfMissing(service, 'port', 443);
  for (const r of objectItems(w['rules'])) rule(r);
}

export function validatingWebhookConfiguration(o: JsonObject): void {
  for (const w of objectItems(o['webhooks'])) webhook(w, false);
}

export function mutatingWebhookConfiguration(o: JsonObject): void {
  for (const w of objectItems(o['webhooks'])) webhook(w, true);
}
