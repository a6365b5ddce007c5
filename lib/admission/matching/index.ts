// The matching layer: which static policies and webhooks a request reaches, decided as kube-apiserver's own
// admission plugins decide it (rules, matchPolicy, selectors, exclusions, binding matchResources), with this
// daemon's namespace-label rule. Everything per configuration is compiled once per snapshot (lazily, or up front by
// prepareMatching) and per request once per request object; matchConditions are evaluated by the caller.
import type { CompiledManifests } from '../../manifest/compile.js';
import { preparePolicyHook } from './policy.js';
import { prepareWebhook } from './webhook.js';

export type { Decision, Matched, MatchDecision, Undecidable } from './decision.js';
export { excludedResources, isAdmissionConfigurationResource, isExcludedFromPolicies, isExcludedFromWebhooks } from './exclusions.js';
export type { CompiledRules } from './rules.js';
export { compileRules, matchRules } from './rules.js';
export type { CompiledObjectSelector } from './object-selector.js';
export { compileObjectSelector, matchObjectSelector } from './object-selector.js';
export type { CompiledNamespaceSelector } from './namespace-selector.js';
export { compileNamespaceSelector, matchNamespaceSelector, namespaceNameLabel } from './namespace-selector.js';
export type { PolicyHookDecision } from './policy.js';
export { MatchMemo, matchPolicy, matchPolicyHook } from './policy.js';
export type { WebhookMatchOptions } from './webhook.js';
export { matchWebhook } from './webhook.js';

/** Compiles the matching of every hook of a snapshot, so the first request pays nothing (idempotent). */
export function prepareMatching(compiled: CompiledManifests): void {
  if (compiled.family === 'webhook') for (const w of compiled.webhooks) prepareWebhook(w);
  else for (const h of compiled.hooks) preparePolicyHook(h);
}
