// What the loaded manifests can match, per registration side: the rules a webhook registration must send to this
// daemon so that every policy, binding and static webhook sees every request it could match in-tree, and nothing
// else (a stopped daemon with failurePolicy Fail then blocks only what the policies cover).
//
// A policy matches only through a binding (S/admission/plugin/policy/generic/policy_dispatcher.go: no binding, no
// dispatch), so unbound policies need nothing. Bindings can only narrow their policy's matchConstraints, so the
// policy's resourceRules are what its bindings together can need; resourceNames, excludeResourceRules and selectors
// narrow further inside the daemon. Requests the apiserver never sends are dropped here: the authentication/
// authorization review resources (excluded from every policy, and from webhooks while
// ExcludeAdmissionWebhookVirtualResources is on: pkg/kubeapiserver/admission/exclusion/resources.go), and, for a
// registration made through the API, the admission-configuration kinds (S/admission/plugin/webhook/predicates/rules/
// rules.go IsExemptAdmissionConfigurationResource). A static registration (1.36+ staticManifestsDir) is sent those:
// S/admission/plugin/webhook/generic/webhook.go Dispatch runs the static source's webhooks on them.
import type { LabelSelector, RuleWithOperations } from '../api/types.js';
import { builtinByResource } from '../api/builtin-types.js';
import { excludedResources } from '../admission/matching/exclusions.js';
import { namespaceNameLabel } from '../admission/matching/namespace-selector.js';
import { bindingsByPolicy } from '../manifest/load.js';
import type { LoadedManifests } from '../manifest/load.js';
import { pluginKinds } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import { compileLabelSelector, selectorKeys } from '../manifest/selector.js';

export type RegistrationSide = 'validating' | 'mutating';
export const registrationSides: readonly RegistrationSide[] = ['validating', 'mutating'];

/** The plugins whose objects one side's registration serves (/validate, /mutate). */
export const sidePlugins: Readonly<Record<RegistrationSide, readonly [PluginName, PluginName]>> = {
  validating: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'],
  mutating: ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook'],
};

export function sideOf(plugin: PluginName): RegistrationSide {
  return plugin.startsWith('Validating') ? 'validating' : 'mutating';
}

/** One plugin's loaded manifests (a snapshot's `manifests`). */
export interface LoadedPlugin {
  readonly plugin: PluginName;
  readonly manifests: LoadedManifests;
}

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
export const allOperations: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** A webhook rule in canonical form: sorted, deduplicated, wildcards collapsed, scope explicit. */
export interface Rule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: '*' | 'Cluster' | 'Namespaced';
}

/** The rules one loaded object needs sent. */
export interface RequiredObject {
  readonly plugin: PluginName;
  /** `ValidatingAdmissionPolicy "p"`, `webhook "w" of ValidatingWebhookConfiguration "c"` */
  readonly owner: string;
  readonly rules: readonly Rule[];
  /** policies' excludeResourceRules: requests the object never needs although its rules send them */
  readonly exclusions: readonly Rule[];
  /** matchPolicy Equivalent: the apiserver must also send equivalent resources (the registration is Equivalent) */
  readonly equivalent: boolean;
  /** the object can match requests in the namespaces the default registration leaves out */
  readonly systemNamespaces: boolean;
}

/** A loaded object that can match admission-configuration objects a registration made through the API is never sent. */
export interface UnreachableObject {
  readonly plugin: PluginName;
  readonly owner: string;
  /** `validatingadmissionpolicies.admissionregistration.k8s.io`, sorted */
  readonly resources: readonly string[];
}

export interface SideCoverage {
  readonly side: RegistrationSide;
  readonly objects: readonly RequiredObject[];
  /** policies no binding names: they match nothing, in-tree too */
  readonly unbound: readonly string[];
  /** owner → the admission-configuration resources it can match (named or through a wildcard) that the registration
   * cannot send: only with sendsAdmissionConfiguration false, since no API-registered webhook is ever sent them */
  readonly unreachable: readonly UnreachableObject[];
}

/** Namespaces the default registration leaves alone, by their immutable kubernetes.io/metadata.name label. */
export const systemNamespaces: readonly string[] = ['kube-system', 'kube-node-lease'];

const reviewGroups: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const m = new Map<string, Set<string>>();
  for (const { group, resource } of excludedResources) m.set(group, (m.get(group) ?? new Set()).add(resource));
  return m;
})();

const admissionConfigurationGroup = 'admissionregistration.k8s.io';
const admissionConfigurationResources: ReadonlySet<string> = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

function collapse(items: readonly string[] | undefined): string[] {
  const list = items ?? [];
  return list.includes('*') ? ['*'] : sortedUnique(list);
}

/** resources without entries another entry of the same list already covers ("pods/status" under "pods/*"). */
function collapseResources(items: readonly string[] | undefined): string[] {
  const list = sortedUnique(items ?? []);
  if (list.includes('*/*')) return ['*/*'];
  return list.filter((r) => !list.some((other) => other !== r && resourceCovers(other, r)));
}

function splitResource(entry: string): [string, string] {
  const slash = entry.indexOf('/');
  return slash === -1 ? [entry, ''] : [entry.slice(0, slash), entry.slice(slash + 1)];
}

/** Whether the rule entry `outer` sends every request the entry `inner` names (rules.go: "*", "x/*", "*\/y"). */
export function resourceCovers(outer: string, inner: string): boolean {
  if (outer === inner || outer === '*/*') return true;
  const [or, os] = splitResource(outer);
  const [ir, is] = splitResource(inner);
  if (os === '') return is === '' && or === '*';
  if (is === '') return false;
  return (or === '*' || or === ir) && (os === '*' || os === is) && !(ir === '*' && or !== '*') && !(is === '*' && os !== '*');
}

function scopeOf(scope: string | null | undefined): Rule['scope'] {
  return scope === 'Cluster' || scope === 'Namespaced' ? scope : '*';
}

export function canonicalRule(rule: RuleWithOperations): Rule | undefined {
  const out: Rule = {
    operations: collapse(rule.operations),
    apiGroups: collapse(rule.apiGroups),
    apiVersions: collapse(rule.apiVersions),
    resources: collapseResources(rule.resources),
    scope: scopeOf(rule.scope),
  };
  const empty = out.operations.length === 0 || out.apiGroups.length === 0 || out.apiVersions.length === 0 || out.resources.length === 0;
  return empty ? undefined : out;
}

/** What the registration can be sent: the review resources unless dropped; the admission-configuration ones only
 * when the registration is static. */
interface Sendable {
  readonly dropReviews: boolean;
  readonly admissionConfiguration: boolean;
}

/** Resources of `group` the apiserver never sends this registration, named explicitly in a rule. */
function neverSent(group: string, resource: string, sendable: Sendable): boolean {
  const [name] = splitResource(resource);
  if (sendable.dropReviews && reviewGroups.get(group)?.has(name) === true) return true;
  return !sendable.admissionConfiguration && group === admissionConfigurationGroup && admissionConfigurationResources.has(name);
}

/** The admission-configuration resources (`validatingadmissionpolicies.admissionregistration.k8s.io`) a rule can
 * match, by name or through a wildcard group or resource; subresources count as their resource (upstream decides
 * by kind, which a subresource request such as `…/status` shares). */
function admissionConfigurationReached(rule: Rule): string[] {
  if (!rule.apiGroups.includes('*') && !rule.apiGroups.includes(admissionConfigurationGroup)) return [];
  return [...admissionConfigurationResources].filter((name) => rule.resources.some((r) => {
    const [resource] = splitResource(r);
    return resource === '*' || resource === name;
  })).map((name) => `${name}.${admissionConfigurationGroup}`);
}

/** The rule without the explicitly named resources this registration is never sent, split per group as needed. */
function withoutNeverSent(rule: Rule, sendable: Sendable, unreachable: Set<string>): Rule[] {
  if (!sendable.admissionConfiguration) for (const name of admissionConfigurationReached(rule)) unreachable.add(name);
  if (rule.apiGroups.includes('*')) return [rule];
  const out: Rule[] = [];
  for (const group of rule.apiGroups) {
    const kept = rule.resources.filter((r) => !neverSent(group, r, sendable));
    if (kept.length > 0) out.push({ ...rule, apiGroups: [group], resources: kept });
  }
  return out;
}

function selectorMayMatchSystemNamespace(selector: LabelSelector | null | undefined): boolean {
  // a selector needing other namespace labels cannot be ruled out: kube-system may carry them
  if (selectorKeys(selector).some((k) => k !== namespaceNameLabel)) return true;
  const matcher = compileLabelSelector(selector);
  return systemNamespaces.some((name) => matcher({ [namespaceNameLabel]: name }));
}

/** Whether `resource` of `group` may be namespaced: a wildcard, a built-in namespaced one, or one this daemon does
 * not know (custom and aggregated resources may be either). */
function mayBeNamespaced(group: string, resource: string): boolean {
  const [name] = splitResource(resource);
  if (group === '*' || name === '*') return true;
  return builtinByResource(group, name)?.namespaced ?? true;
}

export function rulesReachNamespaces(rules: readonly Rule[]): boolean {
  // namespaced objects, and Namespace objects themselves (their own labels carry the name)
  return rules.some((r) => r.resources.some((res) => resourceCovers(res, 'namespaces'))
    || (r.scope !== 'Cluster' && r.apiGroups.some((g) => r.resources.some((res) => mayBeNamespaced(g, res)))));
}

function policyObjects(plugin: PluginName, manifests: Extract<LoadedManifests, { family: 'policy' }>, sendsAdmissionConfiguration: boolean,
  unbound: string[], unreachable: UnreachableObject[]): RequiredObject[] {
  const out: RequiredObject[] = [];
  const bindingsOf = bindingsByPolicy(manifests.bindings);
  for (const policy of manifests.policies) {
    const name = policy.metadata?.name ?? '';
    const owner = `${policy.kind ?? pluginKinds[plugin].primary} ${JSON.stringify(name)}`;
    const bindings = bindingsOf.get(name) ?? [];
    if (bindings.length === 0) {
      unbound.push(owner);
      continue;
    }
    const constraints = policy.spec?.matchConstraints;
    const dropped = new Set<string>();
    const rules = (constraints?.resourceRules ?? [])
      .map(canonicalRule)
      .filter((r): r is Rule => r !== undefined)
      .flatMap((r) => withoutNeverSent(r, { dropReviews: true, admissionConfiguration: sendsAdmissionConfiguration }, dropped));
    if (dropped.size > 0) unreachable.push({ plugin, owner, resources: [...dropped].sort() });
    const bindingReaches = bindings.some((b) => b.spec?.matchResources == null || selectorMayMatchSystemNamespace(b.spec.matchResources.namespaceSelector));
    out.push({
      plugin,
      owner,
      rules,
      exclusions: (constraints?.excludeResourceRules ?? []).map(canonicalRule).filter((r): r is Rule => r !== undefined),
      equivalent: (constraints?.matchPolicy ?? 'Equivalent') === 'Equivalent',
      systemNamespaces: rulesReachNamespaces(rules) && selectorMayMatchSystemNamespace(constraints?.namespaceSelector) && bindingReaches,
    });
  }
  return out;
}

function webhookObjects(plugin: PluginName, manifests: Extract<LoadedManifests, { family: 'webhook' }>, sendable: Sendable,
  unreachable: UnreachableObject[]): RequiredObject[] {
  const out: RequiredObject[] = [];
  for (const configuration of manifests.configurations) {
    for (const webhook of configuration.webhooks ?? []) {
      const owner = `webhook ${JSON.stringify(webhook.name ?? '')} of ${configuration.kind ?? 'WebhookConfiguration'} ${JSON.stringify(configuration.metadata?.name ?? '')}`;
      const dropped = new Set<string>();
      const rules = (webhook.rules ?? [])
        .map(canonicalRule)
        .filter((r): r is Rule => r !== undefined)
        .flatMap((r) => withoutNeverSent(r, sendable, dropped));
      if (dropped.size > 0) unreachable.push({ plugin, owner, resources: [...dropped].sort() });
      out.push({
        plugin,
        owner,
        rules,
        exclusions: [],
        equivalent: (webhook.matchPolicy ?? 'Equivalent') === 'Equivalent',
        systemNamespaces: rulesReachNamespaces(rules) && selectorMayMatchSystemNamespace(webhook.namespaceSelector),
      });
    }
  }
  return out;
}

export interface CoverageOptions {
  /** the ExcludeAdmissionWebhookVirtualResources gate: static webhooks skip the review resources (default on) */
  readonly excludeWebhookVirtualResources?: boolean;
  /**
   * The registration is sent admission-configuration objects (webhook configurations, policies, bindings): true
   * (the default) for a static one in a 1.36+ apiserver's staticManifestsDir, as in-tree static hooks are; false for
   * one made through the API, which the apiserver never sends them.
   */
  readonly sendsAdmissionConfiguration?: boolean;
}

/** What one side's loaded plugins can match. Plugins of the other side are ignored. */
export function sideCoverage(side: RegistrationSide, loaded: readonly LoadedPlugin[], options: CoverageOptions = {}): SideCoverage {
  const objects: RequiredObject[] = [];
  const unbound: string[] = [];
  const unreachable: UnreachableObject[] = [];
  for (const { plugin, manifests } of loaded) {
    if (sideOf(plugin) !== side) continue;
    const admissionConfiguration = options.sendsAdmissionConfiguration ?? true;
    if (manifests.family === 'policy') objects.push(...policyObjects(plugin, manifests, admissionConfiguration, unbound, unreachable));
    else objects.push(...webhookObjects(plugin, manifests, { dropReviews: options.excludeWebhookVirtualResources ?? true, admissionConfiguration }, unreachable));
  }
  return { side, objects, unbound, unreachable };
}

function listsMeet(a: readonly string[], b: readonly string[]): boolean {
  return a.includes('*') || b.includes('*') || a.some((x) => b.includes(x));
}

function resourcesMeet(a: string, b: string): boolean {
  if (a === '*/*' || b === '*/*') return true;
  const [ar, as] = splitResource(a);
  const [br, bs] = splitResource(b);
  if ((as === '') !== (bs === '')) return false;
  const sameResource = ar === br || ar === '*' || br === '*';
  return as === '' ? sameResource : sameResource && (as === bs || as === '*' || bs === '*');
}

/** Whether some request is sent by both rules. */
export function rulesOverlap(a: Rule, b: Rule): boolean {
  return listsMeet(a.operations, b.operations) && listsMeet(a.apiGroups, b.apiGroups) && listsMeet(a.apiVersions, b.apiVersions)
    && (a.scope === '*' || b.scope === '*' || a.scope === b.scope)
    && a.resources.some((x) => b.resources.some((y) => resourcesMeet(x, y)));
}

/** Whether a rule may send a review resource (CREATE only: they are never updated or deleted). */
export function ruleMaySendReviews(rule: Rule): boolean {
  if (!rule.operations.includes('*') && !rule.operations.includes('CREATE')) return false;
  return [...reviewGroups].some(([group, resources]) => (rule.apiGroups.includes('*') || rule.apiGroups.includes(group))
    && rule.resources.some((r) => [...resources].some((res) => resourceCovers(r, res))));
}

export { reviewGroups };
