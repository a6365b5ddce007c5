// Drift between the loaded manifests and the registration the apiserver uses, both ways:
// - uncovered: loaded objects that can match requests the registration never sends (a policy added for a new
//   resource, silently unenforced): an error;
// - excess: requests the registration sends that no loaded object can match (a leftover `CREATE */*` after the
//   wildcard policy was removed): a stopped daemon then blocks them for nothing, the blast radius grown silently.
//
// Both are decided in the space of (operation, group, version, resource, scope) combinations, each rule read as
// upstream's rule matcher reads it (S/admission/plugin/webhook/predicates/rules/rules.go). A wildcard is matched only
// by the same wildcard: a required `*` group is covered only by a registered `*`, and a registered `*` group is needed
// only by a required `*` (a concrete group under it is narrower). The registration's namespaceSelector and
// matchConditions only narrow what its rules send: leaving out the system namespaces (a documented trade-off) and the
// review resources (which no policy sees) is not uncovered; sending the system namespaces when no loaded object can
// match there, the review resources when no loaded object needs them, or (1.28+) what every loaded object excludes,
// is excess. matchConditions are compared as text, never evaluated: one that keeps out more than the derived ones is
// not detected.
import type { MatchCondition } from '../api/types.js';
import { namespaceNameLabel } from '../admission/matching/namespace-selector.js';
import { compileLabelSelector } from '../manifest/selector.js';
import type { PluginName } from '../manifest/plugins.js';
import { allOperations, registrationSides, resourceCovers, ruleMaySendReviews, rulesReachNamespaces, sideCoverage, sidePlugins, systemNamespaces } from './coverage.js';
import type { CoverageOptions, LoadedPlugin, RegistrationSide, Rule, SideCoverage, UnreachableObject } from './coverage.js';
import { configurationKinds, RegistrationFileError, readRegistrationFile } from './registered.js';
import type { PrintedWith, RegisteredWebhook } from './registered.js';
import { exclusionCondition, reviewExclusionCondition } from './rules.js';

interface Combination {
  readonly operation: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly scope: 'Cluster' | 'Namespaced';
}

function combinations(rule: Rule): Combination[] {
  const out: Combination[] = [];
  const operations = rule.operations.includes('*') ? allOperations : rule.operations;
  const scopes = rule.scope === '*' ? (['Cluster', 'Namespaced'] as const) : [rule.scope];
  for (const operation of operations) for (const group of rule.apiGroups) for (const version of rule.apiVersions) {
    for (const resource of rule.resources) for (const scope of scopes) out.push({ operation, group, version, resource, scope });
  }
  return out;
}

function sends(rule: Rule, c: Combination): boolean {
  return (rule.operations.includes('*') || rule.operations.includes(c.operation))
    && (rule.apiGroups.includes('*') || rule.apiGroups.includes(c.group))
    && (rule.apiVersions.includes('*') || rule.apiVersions.includes(c.version))
    && (rule.scope === '*' || rule.scope === c.scope)
    && rule.resources.some((r) => resourceCovers(r, c.resource));
}

function describeCombination(c: Combination): string {
  return `${c.operation} ${c.group === '' ? 'core' : c.group}/${c.version} ${c.resource} (${c.scope})`;
}

/** Each combination of `rules` that none of `by` sends, described. */
function unsent(rules: readonly Rule[], by: readonly Rule[]): string[] {
  const out = new Set<string>();
  for (const rule of rules) for (const c of combinations(rule)) if (!by.some((r) => sends(r, c))) out.add(describeCombination(c));
  return [...out];
}

export interface UncoveredObject {
  readonly plugin: PluginName;
  readonly owner: string;
  /** what the registration does not send, `CREATE apps/v1 deployments (Namespaced)` */
  readonly missing: readonly string[];
}

/** The side's objects whose rules the registered rules do not send in full. */
export function uncoveredObjects(coverage: SideCoverage, registered: readonly Rule[] | null): UncoveredObject[] {
  const out: UncoveredObject[] = [];
  for (const object of coverage.objects) {
    const missing = unsent(object.rules, registered ?? []);
    if (missing.length > 0) out.push({ plugin: object.plugin, owner: object.owner, missing });
  }
  return out;
}

export interface ExcessWebhook {
  readonly side: RegistrationSide;
  /** the registration's webhook */
  readonly webhook: string;
  /** what it sends that no loaded object can match: `CREATE core/v1 namespaces (Cluster)`, `requests in kube-system …` */
  readonly excess: readonly string[];
}

function hasCondition(conditions: readonly MatchCondition[], wanted: MatchCondition): boolean {
  return conditions.some((c) => c.expression === wanted.expression);
}

/** Whether the loaded objects need the review resources sent: only static webhooks do, with the exclusion gate off. */
function reviewsNeeded(coverage: SideCoverage, options: CoverageOptions): boolean {
  if (options.excludeWebhookVirtualResources ?? true) return false;
  return coverage.objects.some((o) => o.plugin.endsWith('Webhook') && o.rules.some(ruleMaySendReviews));
}

/** Each registered webhook of the side that sends requests no loaded object of the side can match. */
export function excessWebhooks(coverage: SideCoverage, registered: readonly RegisteredWebhook[] | null, options: CoverageOptions = {}): ExcessWebhook[] {
  const required = coverage.objects.flatMap((o) => o.rules);
  const out: ExcessWebhook[] = [];
  for (const webhook of registered ?? []) {
    const excess = unsent(webhook.rules, required);
    if (rulesReachNamespaces(webhook.rules) && !coverage.objects.some((o) => o.systemNamespaces)) {
      let matcher;
      try {
        matcher = compileLabelSelector(webhook.namespaceSelector);
      } catch (err) {
        throw new RegistrationFileError(`webhook ${JSON.stringify(webhook.name)}: namespaceSelector: ${(err as Error).message}`);
      }
      const sent = systemNamespaces.filter((name) => matcher({ [namespaceNameLabel]: name }));
      if (sent.length > 0) excess.push(`requests in ${sent.join(' and ')}, where no loaded object can match (namespaceSelector)`);
    }
    if (webhook.rules.some(ruleMaySendReviews) && !hasCondition(webhook.matchConditions, reviewExclusionCondition()) && !reviewsNeeded(coverage, options)) {
      excess.push(`TokenReviews and the SubjectAccessReview family, which no loaded object sees (no matchCondition ${JSON.stringify(reviewExclusionCondition().name)})`);
    }
    // a webhook with matchConditions is for a 1.28+ apiserver, where the registration keeps these out (before, it cannot)
    const exclusion = webhook.matchConditions.length > 0 ? exclusionCondition(coverage) : undefined;
    if (exclusion && !hasCondition(webhook.matchConditions, exclusion)) {
      excess.push(`requests every loaded object excludes (excludeResourceRules), which the matchCondition ${JSON.stringify(exclusion.name)} keeps out`);
    }
    if (excess.length > 0) out.push({ side: coverage.side, webhook: webhook.name, excess });
  }
  return out;
}

export interface DriftResult {
  /** per configured plugin: the loaded objects the registration does not send for */
  readonly uncovered: ReadonlyMap<PluginName, readonly UncoveredObject[]>;
  /** per configuration kind the registration has or the daemon serves: what it sends for nothing */
  readonly excess: ReadonlyMap<string, readonly ExcessWebhook[]>;
  /** how the registration was printed, as far as the file tells */
  readonly printedWith: PrintedWith;
  /** a registration made through the API: the loaded objects that can match admission-configuration objects, which
   * it is never sent (a static one is) */
  readonly unreachable: readonly UnreachableObject[];
}

/** The registration in `file` against the loaded manifests. Throws RegistrationFileError. */
export function driftAgainst(file: string, loaded: readonly LoadedPlugin[], plugins: readonly PluginName[],
  gates: Omit<CoverageOptions, 'sendsAdmissionConfiguration'> = {}): DriftResult {
  const registered = readRegistrationFile(file);
  // what the registration can be sent follows from how it was made: a static one is sent admission-configuration
  // objects, one made through the API never is (so what needs them is reported apart, not as out of date)
  const options: CoverageOptions = { ...gates, sendsAdmissionConfiguration: registered.printedWith.format === 'static' };
  const uncovered = new Map<PluginName, UncoveredObject[]>();
  const excess = new Map<string, ExcessWebhook[]>();
  const unreachable: UnreachableObject[] = [];
  for (const side of registrationSides) {
    const coverage = sideCoverage(side, loaded, options);
    unreachable.push(...coverage.unreachable);
    const webhooks = registered.sides[side];
    const missing = uncoveredObjects(coverage, webhooks === null ? null : webhooks.flatMap((w) => w.rules));
    for (const plugin of sidePlugins[side]) {
      if (plugins.includes(plugin)) uncovered.set(plugin, missing.filter((u) => u.plugin === plugin));
    }
    excess.set(configurationKinds[side], excessWebhooks(coverage, webhooks, options));
  }
  return { uncovered, excess, printedWith: registered.printedWith, unreachable };
}

export { RegistrationFileError };
