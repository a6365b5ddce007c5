// Defaulting of admissionregistration/v1 objects (pkg/apis/admissionregistration/v1/defaults.go), applied to each
// decoded object before validation. Mutates the freshly decoded object in place.
import type {
  MatchResources,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  MutatingWebhook,
  MutatingWebhookConfiguration,
  NamedRuleWithOperations,
  RuleWithOperations,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
} from '../api/types.js';
import type { V1Kind } from './scheme.js';

function defaultRules(rules: Array<RuleWithOperations | NamedRuleWithOperations> | undefined): void {
  for (const rule of rules ?? []) rule.scope ??= '*';
}

function defaultWebhook(w: ValidatingWebhook | MutatingWebhook): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  defaultRules(w.rules);
  const service = w.clientConfig?.service;
  if (service) service.port ??= 443;
}

function defaultMatchResources(m: MatchResources | null | undefined): void {
  if (!m) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

export function defaultValidatingWebhookConfiguration(c: ValidatingWebhookConfiguration): void {
  for (const w of c.webhooks ?? []) defaultWebhook(w);
}

export function defaultMutatingWebhookConfiguration(c: MutatingWebhookConfiguration): void {
  for (const w of c.webhooks ?? []) {
    defaultWebhook(w);
    w.reinvocationPolicy ??= 'Never';
  }
}

// Spec is a struct value in Go, never nil: SetObjectDefaults_* default it whether or not the manifest has one, so a
// policy without `spec` still gets failurePolicy Fail (and validation does not ask for it).
export function defaultValidatingAdmissionPolicy(p: ValidatingAdmissionPolicy): void {
  const spec = (p.spec ??= {} as NonNullable<ValidatingAdmissionPolicy['spec']>);
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

export function defaultMutatingAdmissionPolicy(p: MutatingAdmissionPolicy): void {
  const spec = (p.spec ??= {} as NonNullable<MutatingAdmissionPolicy['spec']>);
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

export function defaultPolicyBinding(b: ValidatingAdmissionPolicyBinding | MutatingAdmissionPolicyBinding): void {
  if (!b.spec) return;
  defaultMatchResources(b.spec.matchResources);
  // no default for paramRef.parameterNotFoundAction: only v1alpha1 has one (pkg/apis/admissionregistration/
  // v1alpha1/defaults.go); a v1 binding without it is refused by validation (Required value) before the static check
}

/** Applies the defaults of the given (non-List) kind. */
export function applyDefaults(kind: V1Kind, obj: object): void {
  switch (kind) {
    case 'ValidatingWebhookConfiguration': return defaultValidatingWebhookConfiguration(obj as ValidatingWebhookConfiguration);
    case 'MutatingWebhookConfiguration': return defaultMutatingWebhookConfiguration(obj as MutatingWebhookConfiguration);
    case 'ValidatingAdmissionPolicy': return defaultValidatingAdmissionPolicy(obj as ValidatingAdmissionPolicy);
    case 'MutatingAdmissionPolicy': return defaultMutatingAdmissionPolicy(obj as MutatingAdmissionPolicy);
    case 'ValidatingAdmissionPolicyBinding':
    case 'MutatingAdmissionPolicyBinding':
      return defaultPolicyBinding(obj as ValidatingAdmissionPolicyBinding);
    default:
      return undefined;
  }
}
