// Rule matching: operations, apiGroups, apiVersions, resources/subresources, scope, and (policies) resourceNames,
// under matchPolicy Exact or Equivalent.
//
// Upstream: S/admission/plugin/webhook/predicates/rules/rules.go (Matcher.Matches), S/admission/plugin/policy/
// matching/matching.go (matchesResourceRules: resourceNames, the Equivalent pass) and S/admission/plugin/webhook/
// generic/webhook.go (ShouldCallHook: the same two passes for webhooks).
//
// matchPolicy Equivalent, as upstream: the rules are tried against the original request (requestKind/
// requestResource, upstream's admission attributes) first; then, rule by rule, against each equivalent resource —
// the ones the conversion table knows (lib/admission/conversion: HorizontalPodAutoscaler autoscaling/v1 and v2,
// Event v1 and events.k8s.io/v1), and the kind/resource the apiserver converted the object to for this daemon's
// own registration. The hook is invoked with the version that matched, the object converted to it.
//
// Without a RESTMapper the equivalents of a resource outside the built-in groups (custom resources, aggregated
// APIs) are unknown: a rule that names its group and resource in another version may match upstream or not, so
// with Equivalent it is an error under the hook's failure policy (`no conversion from <kind> to another version of
// <resource>…`), never a silent pass. Built-in resources outside the table are served in one version only (1.36
// defaults), so a rule naming another version of them simply does not match, as upstream. A match on a version the
// object cannot be converted to (a narrow registration made the apiserver send another version) is the same error.
import type { AdmissionRequest } from '../../api/admission.js';
import type { NamedRuleWithOperations, RuleWithOperations } from '../../api/types.js';
import { noMatch } from './decision.js';
import type { MatchDecision, Undecidable } from './decision.js';
import { requestView } from './request-view.js';
import type { RequestTarget, RequestView } from './request-view.js';

const enum Scope {
  All,
  Cluster,
  Namespaced,
  Invalid,
}

interface CompiledRule {
  readonly scope: Scope;
  /** null: "*" (every operation, known or not) */
  readonly operations: readonly string[] | null;
  /** null: "*" */
  readonly groups: readonly string[] | null;
  /** null: "*" */
  readonly versions: readonly string[] | null;
  /** "*\/*" is listed: every resource and subresource */
  readonly anyResource: boolean;
  /** `<resource>/<subresource>` keys, "" subresource for the main resource ("pods" → "pods/", "*" → "*\/") */
  readonly resources: ReadonlySet<string>;
  /** null: any name */
  readonly resourceNames: ReadonlySet<string> | null;
}

/** A rule list compiled once per snapshot, with its matchPolicy. */
export interface CompiledRules {
  readonly rules: readonly CompiledRule[];
  readonly equivalent: boolean;
}

function wildcardList(items: readonly string[] | undefined): readonly string[] | null {
  const list = items ?? [];
  return list.includes('*') ? null : Object.freeze([...list]);
}

function scopeOf(scope: string | null | undefined): Scope {
  switch (scope) {
    case undefined:
    case null:
    case '*':
      return Scope.All;
    case 'Cluster':
      return Scope.Cluster;
    case 'Namespaced':
      return Scope.Namespaced;
    default:
      return Scope.Invalid;
  }
}

/** Upstream's splitResource (SplitN on "/", 2) as a set key. */
function resourceKey(entry: string): string {
  const slash = entry.indexOf('/');
  return slash === -1 ? `${entry}/` : entry;
}

function compileRule(rule: RuleWithOperations | NamedRuleWithOperations): CompiledRule {
  const resources = new Set<string>();
  let anyResource = false;
  for (const entry of rule.resources ?? []) {
    const key = resourceKey(entry);
    if (key === '*/*') anyResource = true;
    resources.add(key);
  }
  const names = 'resourceNames' in rule ? (rule.resourceNames ?? []) : [];
  return Object.freeze({
    scope: scopeOf(rule.scope),
    operations: wildcardList(rule.operations),
    groups: wildcardList(rule.apiGroups),
    versions: wildcardList(rule.apiVersions),
    anyResource,
    resources,
    resourceNames: names.length === 0 ? null : new Set(names),
  });
}

/** Compiles a rule list (webhook `rules`, or policy `resourceRules`/`excludeResourceRules`). A matchPolicy other
 * than "Equivalent" (null included) is Exact, as upstream reads it. */
export function compileRules(
  rules: ReadonlyArray<RuleWithOperations | NamedRuleWithOperations> | null | undefined,
  matchPolicy: string | null | undefined,
): CompiledRules {
  return Object.freeze({ rules: Object.freeze((rules ?? []).map(compileRule)), equivalent: matchPolicy === 'Equivalent' });
}

function ruleMatches(rule: CompiledRule, view: RequestView, t: RequestTarget, anyVersion = false): boolean {
  switch (rule.scope) {
    case Scope.All:
      break;
    // a Namespace is cluster-scoped although requests on it carry its name as namespace
    case Scope.Namespaced:
      if (t.isNamespaceResource || view.namespace === '') return false;
      break;
    case Scope.Cluster:
      if (!t.isNamespaceResource && view.namespace !== '') return false;
      break;
    default:
      return false;
  }
  if (rule.operations !== null && !rule.operations.includes(view.operation)) return false;
  if (rule.groups !== null && !rule.groups.includes(t.group)) return false;
  if (!anyVersion && rule.versions !== null && !rule.versions.includes(t.version)) return false;
  const r = rule.resources;
  if (!(rule.anyResource || r.has(t.keyExact) || r.has(t.keyAnyResource) || r.has(t.keyAnySubResource))) return false;
  // a rule that matches but names other objects does not match; the next rule may
  return rule.resourceNames === null || rule.resourceNames.has(view.name);
}

function anyRuleMatches(rules: readonly CompiledRule[], view: RequestView, t: RequestTarget): boolean {
  for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, view, t)) return true;
  return false;
}

/**
 * The target (version) the rules accept the request as, an error when that is a version this daemon cannot have
 * the object in, or undefined. See the header for Exact/Equivalent.
 */
export function matchRuleTarget(compiled: CompiledRules, view: RequestView): RequestTarget | Undecidable | undefined {
  const { rules } = compiled;
  if (anyRuleMatches(rules, view, view.original)) return view.original;
  if (!compiled.equivalent) return undefined;
  for (let i = 0; i < rules.length; i++) {
    for (const t of view.equivalents) if (ruleMatches(rules[i]!, view, t)) return t;
  }
  if (view.unknownEquivalents !== undefined) {
    for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i]!, view, view.original, true)) return view.unknownEquivalents;
  }
  return undefined;
}

/** Whether any rule matches the request, and as which kind/resource (undecidable without a conversion). */
export function matchRules(compiled: CompiledRules, request: AdmissionRequest): MatchDecision {
  const t = matchRuleTarget(compiled, requestView(request));
  if (t === undefined) return noMatch;
  return 'matches' in t ? t : t.decision;
}
