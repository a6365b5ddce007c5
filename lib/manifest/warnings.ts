// Things that load fine but bite at admission time, reported by `validate` (and logged at load): this daemon knows a
// namespace only by its kubernetes.io/metadata.name label, `object` is null on DELETE, and a wildcard rule with
// failurePolicy Fail puts every request of the cluster behind this daemon.
import type { LabelSelector, MatchResources, NamedRuleWithOperations, RuleWithOperations } from '../api/types.js';
import { bindingsByPolicy } from './load.js';
import type { AdmissionPolicy, AdmissionPolicyBinding, LoadedManifests } from './load.js';
import type { CompiledManifests } from './compile.js';
import { selectorKeys } from './selector.js';

export const namespaceNameLabel = 'kubernetes.io/metadata.name';

function describe(kind: string, name: string | undefined): string {
  return `${kind} "${name ?? ''}"`;
}

function namespaceSelectorWarning(owner: string, path: string, selector: LabelSelector | null | undefined): string[] {
  const other = selectorKeys(selector).filter((k) => k !== namespaceNameLabel);
  if (other.length === 0) return [];
  return [`${owner}: ${path} uses namespace label ${other.map((k) => JSON.stringify(k)).join(', ')}: only "${namespaceNameLabel}" is known without API access, so this selector cannot be decided for namespaced requests and the failure policy applies`];
}

function wildcardWarning(owner: string, path: string, rules: ReadonlyArray<RuleWithOperations | NamedRuleWithOperations> | undefined, failurePolicy: string | null | undefined): string[] {
  if (failurePolicy !== 'Fail') return [];
  return (rules ?? []).flatMap((rule, i) =>
    (rule.resources ?? []).some((r) => r === '*' || r === '*/*')
      ? [`${owner}: ${path}[${i}] matches all resources ("*") with failurePolicy Fail: every such request depends on this daemon; list the resources you mean`]
      : []);
}

function matchesDelete(rules: ReadonlyArray<RuleWithOperations> | undefined): boolean {
  return (rules ?? []).some((r) => (r.operations ?? []).some((op) => op === 'DELETE' || op === '*'));
}

/** True when a CEL expression reads the top-level `object` variable (string literals ignored). */
export function readsObject(expression: string): boolean {
  const code = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return /(^|[^.\w])object\b/.test(code);
}

function policyExpressions(policy: AdmissionPolicy): Array<[string, string]> {
  const spec = policy.spec ?? {};
  const out: Array<[string, string]> = [];
  const add = (path: string, e: string | undefined): void => {
    if (e) out.push([path, e]);
  };
  (spec.variables ?? []).forEach((v, i) => add(`spec.variables[${i}].expression`, v.expression));
  if ('validations' in spec) (spec.validations ?? []).forEach((v, i) => {
    add(`spec.validations[${i}].expression`, v.expression);
    add(`spec.validations[${i}].messageExpression`, v.messageExpression);
  });
  if ('auditAnnotations' in spec) (spec.auditAnnotations ?? []).forEach((a, i) => add(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression));
  if ('mutations' in spec) (spec.mutations ?? []).forEach((m, i) => {
    add(`spec.mutations[${i}].applyConfiguration.expression`, m.applyConfiguration?.expression);
    add(`spec.mutations[${i}].jsonPatch.expression`, m.jsonPatch?.expression);
  });
  return out;
}

function matchResourcesWarnings(owner: string, path: string, m: MatchResources | null | undefined, failurePolicy: string | null | undefined): string[] {
  if (!m) return [];
  return [
    ...namespaceSelectorWarning(owner, `${path}.namespaceSelector`, m.namespaceSelector),
    ...wildcardWarning(owner, `${path}.resourceRules`, m.resourceRules, failurePolicy),
  ];
}

function policyWarnings(kind: string, policy: AdmissionPolicy, bindings: readonly AdmissionPolicyBinding[], bindingKind: string): string[] {
  const owner = describe(kind, policy.metadata?.name);
  const spec = policy.spec ?? {};
  const warnings = matchResourcesWarnings(owner, 'spec.matchConstraints', spec.matchConstraints, spec.failurePolicy);
  if (matchesDelete(spec.matchConstraints?.resourceRules)) {
    for (const [path, expression] of policyExpressions(policy)) {
      if (readsObject(expression)) {
        warnings.push(`${owner}: matches DELETE but ${path} reads object, which is null on DELETE (use oldObject, or exclude DELETE)`);
      }
    }
  }
  for (const b of bindings) {
    warnings.push(...matchResourcesWarnings(describe(bindingKind, b.metadata?.name), 'spec.matchResources', b.spec?.matchResources, spec.failurePolicy));
  }
  return warnings;
}

/**
 * Upstream's advisory for a webhook configuration whose rules name an excluded review resource explicitly (no "*"
 * in the rule's apiGroups or resources): S/admission/configuration/warning.go logExcludedWebhookResources, logged
 * while the ExcludeAdmissionWebhookVirtualResources gate is on. Resources are `resource.group`, sorted.
 */
// upstream's excluded review resources (pkg/kubeapiserver/admission/exclusion/resources.go), as `resource.group`; the
// same list as lib/admission/matching/exclusions.ts, restated here because lib/manifest sits below lib/admission
const excludedReviewResources: ReadonlySet<string> = new Set([
  'selfsubjectreviews.authentication.k8s.io',
  'tokenreviews.authentication.k8s.io',
  'localsubjectaccessreviews.authorization.k8s.io',
  'selfsubjectaccessreviews.authorization.k8s.io',
  'selfsubjectrulesreviews.authorization.k8s.io',
  'subjectaccessreviews.authorization.k8s.io',
]);

function excludedResourcesWarning(owner: string, rules: ReadonlyArray<RuleWithOperations> | undefined): string[] {
  const named = new Set<string>();
  for (const r of rules ?? []) {
    const groups = r.apiGroups ?? [];
    const resources = r.resources ?? [];
    if (groups.includes('*') || resources.includes('*')) continue;
    for (const g of groups) {
      for (const res of resources) {
        const gr = g === '' ? res : `${res}.${g}`;
        if (excludedReviewResources.has(gr)) named.add(gr);
      }
    }
  }
  if (named.size === 0) return [];
  return [`${owner}: Admission webhook configuration names resources that are excluded from admission webhooks; the matching rules will have no effect: excludedResources=[${[...named].sort().join(' ')}]`];
}

export interface ManifestWarningOptions {
  /** the ExcludeAdmissionWebhookVirtualResources feature gate (default on, as its default) */
  readonly excludeWebhookVirtualResources?: boolean;
}

/** Warnings for a loaded directory, in a stable order. */
export function manifestWarnings(primaryKind: string, bindingKind: string | undefined, loaded: LoadedManifests, options: ManifestWarningOptions = {}): string[] {
  if (loaded.family === 'webhook') {
    const excluded = options.excludeWebhookVirtualResources ?? true;
    return loaded.configurations.flatMap((c) => {
      const owner = describe(primaryKind, c.metadata?.name);
      return [
        ...(excluded ? excludedResourcesWarning(owner, (c.webhooks ?? []).flatMap((w) => w.rules ?? [])) : []),
        ...(c.webhooks ?? []).flatMap((w, i) => [
          ...namespaceSelectorWarning(owner, `webhooks[${i}].namespaceSelector`, w.namespaceSelector),
          ...wildcardWarning(owner, `webhooks[${i}].rules`, w.rules, w.failurePolicy),
        ]),
      ];
    });
  }
  const bindingsOf = bindingsByPolicy(loaded.bindings);
  return loaded.policies.flatMap((p) => policyWarnings(primaryKind, p, bindingsOf.get(p.metadata?.name ?? '') ?? [], bindingKind ?? ''));
}

/**
 * A policy or webhook whose expressions use `authorizer` when no --authorization-kubeconfig is set: it loads (as it
 * would in-tree) but every check is an evaluation error, so its failure policy decides.
 */
export function authorizerWarnings(compiled: CompiledManifests, authorizationConfigured: boolean): string[] {
  if (authorizationConfigured) return [];
  const advice = 'uses authorizer, but no --authorization-kubeconfig is set: every check is an evaluation error and the failure policy applies';
  if (compiled.family === 'policy') {
    return compiled.hooks.flatMap((h) => (h.expressions.some((e) => e.compiled.usesAuthorizer === true) ? [`${describe(h.policy.kind ?? '', h.policy.metadata?.name)} ${advice}`] : []));
  }
  return compiled.webhooks.flatMap((w) => (w.matchConditions.some((c) => c.compiled.usesAuthorizer === true) ? [`webhook "${w.webhook.name ?? ''}" of ${w.configurationName}: matchConditions ${advice}`] : []));
}
