// The scheme's defaulting of admissionregistration.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/admissionregistration/v1/defaults.go (SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule,
// _ServiceReference, _ValidatingAdmissionPolicySpec, _MutatingAdmissionPolicySpec, _MatchResources) as
// zz_generated.defaults.go calls them.
import type { Draft } from './object.js';

/** SetDefaults_Rule: every scope */
function rule(r: Draft): void {
  r.setIfMissing('scope', '*');
}

/** SetDefaults_MatchResources, then its rules' */
function matchResources(m: Draft | undefined): void {
  if (m === undefined) return;
  m.setIfMissing('matchPolicy', 'Equivalent');
  m.setIfMissing('namespaceSelector', {});
  m.setIfMissing('objectSelector', {});
  for (const r of m.objects('resourceRules')) rule(r);
  for (const r of m.objects('excludeResourceRules')) rule(r);
}

/** ValidatingAdmissionPolicy and MutatingAdmissionPolicy: SetDefaults_…PolicySpec and the match constraints */
export function admissionPolicy(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('failurePolicy', 'Fail');
  matchResources(spec.object('matchConstraints'));
}

/** …PolicyBinding: the binding's match resources, when it has them */
export function admissionPolicyBinding(o: Draft): void {
  matchResources(o.object('spec')?.object('matchResources'));
}

/** SetDefaults_ValidatingWebhook (and the mutating one's extra reinvocationPolicy), the service port, the rules */
function webhook(w: Draft, mutating: boolean): void {
  w.setIfMissing('failurePolicy', 'Fail');
  w.setIfMissing('matchPolicy', 'Equivalent');
  w.setIfMissing('namespaceSelector', {});
  w.setIfMissing('objectSelector', {});
  w.setIfMissing('timeoutSeconds', 10);
  if (mutating) w.setIfMissing('reinvocationPolicy', 'Never');
  w.object('clientConfig')?.object('service')?.setIfMissing('port', 443);
  for (const r of w.objects('rules')) rule(r);
}

export function validatingWebhookConfiguration(o: Draft): void {
  for (const w of o.objects('webhooks')) webhook(w, false);
}

export function mutatingWebhookConfiguration(o: Draft): void {
  for (const w of o.objects('webhooks')) webhook(w, true);
}
