// From what the manifests can match (coverage.ts) to the rules and matchConditions of one webhook entry: the union
// of the objects' rules, merged into few rules, with the review resources kept out of any wildcard.
//
// Webhook matchConditions are beta and on by default in kube-apiserver 1.28 and GA in 1.30
// (AdmissionWebhookMatchConditions); before 1.28 the only way to keep a wildcard rule from sending a TokenReview is
// to enumerate the API groups for CREATE (reviews are only ever created).
import type { MatchCondition } from '../api/types.js';
import { allOperations, resourceCovers, reviewGroups, ruleMaySendReviews, rulesOverlap } from './coverage.js';
import type { Rule, SideCoverage } from './coverage.js';
import type { KubeVersion } from './version.js';
import { atLeast } from './version.js';

/** The API groups a kube-apiserver before 1.28 serves itself (authentication and authorization hold only reviews). */
export const builtinGroups: readonly string[] = [
  '', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps', 'autoscaling', 'batch',
  'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io', 'policy', 'rbac.authorization.k8s.io',
  'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io',
];

export const reviewExclusionConditionName = 'exclude-authentication-authorization-reviews';

/** request.resource of a review resource: never sent (the apiserver evaluates this before calling). */
export function reviewExclusionCondition(): MatchCondition {
  const clauses = [...reviewGroups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([group, resources]) =>
    `(request.resource.group == '${group}' && request.resource.resource in [${[...resources].sort().map((r) => `'${r}'`).join(', ')}])`);
  return { name: reviewExclusionConditionName, expression: `!(${clauses.join(' || ')})` };
}

export const exclusionConditionName = 'exclude-resources-no-policy-needs';

const list = (xs: readonly string[]): string => `[${xs.map((x) => `'${x}'`).join(', ')}]`;

/** CEL true for a request an exclusion rule names (its scope must be "*": scope is not tested). */
function exclusionClause(rule: Rule): string {
  const parts: string[] = [];
  if (!rule.operations.includes('*')) parts.push(`request.operation in ${list(rule.operations)}`);
  if (!rule.apiGroups.includes('*')) parts.push(`request.resource.group in ${list(rule.apiGroups)}`);
  if (!rule.apiVersions.includes('*')) parts.push(`request.resource.version in ${list(rule.apiVersions)}`);
  // request.subResource is absent on a main resource (omitempty)
  const resources = rule.resources.map((entry) => {
    if (entry === '*/*') return 'true';
    const [resource, sub] = entry.includes('/') ? entry.split('/', 2) as [string, string] : [entry, ''];
    const r = resource === '*' ? [] : [`request.resource.resource == '${resource}'`];
    const s = sub === '' ? ['!has(request.subResource)'] : sub === '*' ? ['has(request.subResource)'] : [`has(request.subResource) && request.subResource == '${sub}'`];
    return [...r, ...s].join(' && ');
  });
  parts.push(resources.length === 1 ? resources[0]! : `(${resources.map((r) => `(${r})`).join(' || ')})`);
  return `(${parts.join(' && ')})`;
}

/**
 * Exclusion rules (policies' excludeResourceRules) no loaded object needs: another object whose rules meet the
 * exclusion still needs it unless its own exclusions cover it. Scoped exclusions are kept out (scope is not
 * testable in a matchCondition without the object), so the registration stays a superset.
 */
export function unneededExclusions(coverage: SideCoverage): Rule[] {
  const out: Rule[] = [];
  for (const [i, object] of coverage.objects.entries()) {
    for (const exclusion of object.exclusions) {
      if (exclusion.scope !== '*') continue;
      const needed = coverage.objects.some((other, j) => j !== i && other.rules.some((r) => rulesOverlap(r, exclusion))
        && !other.exclusions.some((e) => ruleCovers(e, exclusion)));
      if (!needed) out.push(exclusion);
    }
  }
  return mergeRules(out);
}

/** The matchCondition keeping out what every loaded object excludes (1.28+); none when nothing is. */
export function exclusionCondition(coverage: SideCoverage): MatchCondition | undefined {
  const unneeded = unneededExclusions(coverage);
  return unneeded.length === 0 ? undefined : { name: exclusionConditionName, expression: `!(${unneeded.map(exclusionClause).join(' || ')})` };
}

function key(rule: Rule, omit: keyof Rule): string {
  return JSON.stringify({ ...rule, [omit]: null });
}

function unionBy(rules: readonly Rule[], field: 'resources' | 'apiGroups'): Rule[] {
  const groups = new Map<string, Rule>();
  for (const r of rules) {
    const k = key(r, field);
    const seen = groups.get(k);
    groups.set(k, seen ? { ...seen, [field]: [...seen[field], ...r[field]] } : r);
  }
  return [...groups.values()].map((r) => normalise(r));
}

function normalise(r: Rule): Rule {
  const wild = (xs: readonly string[]): string[] => (xs.includes('*') ? ['*'] : [...new Set(xs)].sort());
  const resources = [...new Set(r.resources)].sort();
  return {
    operations: wild(r.operations),
    apiGroups: wild(r.apiGroups),
    apiVersions: wild(r.apiVersions),
    resources: resources.includes('*/*') ? ['*/*'] : resources.filter((x) => !resources.some((o) => o !== x && resourceCovers(o, x))),
    scope: r.scope,
  };
}

function listCovers(outer: readonly string[], inner: readonly string[]): boolean {
  return outer.includes('*') || inner.every((x) => outer.includes(x));
}

/** Whether one rule sends everything another sends. */
export function ruleCovers(outer: Rule, inner: Rule): boolean {
  return listCovers(outer.operations, inner.operations) && listCovers(outer.apiGroups, inner.apiGroups)
    && listCovers(outer.apiVersions, inner.apiVersions) && (outer.scope === '*' || outer.scope === inner.scope)
    && inner.resources.every((r) => outer.resources.some((o) => resourceCovers(o, r)));
}

/** The union of rules as few rules: same everything but resources merged, then same everything but groups. */
export function mergeRules(rules: readonly Rule[]): Rule[] {
  let merged = unionBy(unionBy(rules.map(normalise), 'resources'), 'apiGroups');
  merged = merged.filter((r, i) => !merged.some((o, j) => j !== i && ruleCovers(o, r) && (!ruleCovers(r, o) || j < i)));
  return merged.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
}

/** Before 1.28: a wildcard rule's CREATE split off with its groups enumerated, the review groups left out. */
function enumerateWithoutReviews(rule: Rule, groups: readonly string[]): Rule[] {
  if (!ruleMaySendReviews(rule)) return [rule];
  const out: Rule[] = [];
  const operations = rule.operations.includes('*') ? allOperations : rule.operations;
  const others = operations.filter((o) => o !== 'CREATE');
  if (others.length > 0) out.push({ ...rule, operations: others });
  const named = rule.apiGroups.includes('*') ? groups : rule.apiGroups;
  const plain = named.filter((g) => !reviewGroups.has(g));
  if (plain.length > 0) out.push({ ...rule, operations: ['CREATE'], apiGroups: plain });
  for (const g of named.filter((x) => reviewGroups.has(x))) {
    const reviews = reviewGroups.get(g)!;
    const kept = rule.resources.filter((r) => !r.startsWith('*') && !reviews.has(r.split('/')[0]!));
    if (kept.length > 0) out.push({ ...rule, operations: ['CREATE'], apiGroups: [g], resources: kept });
  }
  return out;
}

/** One side's webhook entry: what it sends, and what an operator must be told about it. */
export interface SideRules {
  readonly rules: readonly Rule[];
  readonly matchConditions: readonly MatchCondition[];
  /** before 1.28 with wildcard groups: CREATE in API groups no loaded rule names is not sent */
  readonly createLimitedToGroups: readonly string[] | null;
}

export function sideRules(coverage: SideCoverage, kubeVersion: KubeVersion): SideRules {
  const merged = mergeRules(coverage.objects.flatMap((o) => o.rules));
  const needsExclusion = merged.some(ruleMaySendReviews);
  if (atLeast(kubeVersion, 1, 28)) {
    const conditions: MatchCondition[] = needsExclusion ? [reviewExclusionCondition()] : [];
    const exclusion = merged.length === 0 ? undefined : exclusionCondition(coverage);
    if (exclusion) conditions.push(exclusion);
    return { rules: merged, matchConditions: conditions, createLimitedToGroups: null };
  }
  if (!needsExclusion) return { rules: merged, matchConditions: [], createLimitedToGroups: null };
  const named = coverage.objects.flatMap((o) => o.rules.flatMap((r) => r.apiGroups)).filter((g) => g !== '*');
  const groups = [...new Set([...builtinGroups, ...named])].sort();
  const wildcardGroups = merged.some((r) => ruleMaySendReviews(r) && r.apiGroups.includes('*'));
  return {
    rules: mergeRules(merged.flatMap((r) => enumerateWithoutReviews(r, groups))),
    matchConditions: [],
    createLimitedToGroups: wildcardGroups ? groups.filter((g) => !reviewGroups.has(g)) : null,
  };
}
