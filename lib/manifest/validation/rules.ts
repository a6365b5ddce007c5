// Rule, RuleWithOperations, NamedRuleWithOperations and MatchResources validation
// (pkg/apis/admissionregistration/validation/validation.go).
import type { MatchResources, NamedRuleWithOperations, Rule, RuleWithOperations } from '../../api/types.js';
import { duplicate, invalid, Named, notSupported, required } from './field-error.js';
import type { FieldError, Path } from './field-error.js';
import { isPathSegmentName } from './names.js';
import { validateLabelSelector } from './selectors.js';

// sets.NewString(...).List() is sorted, so every "supported values" list below is in byte order.
export const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] as const;
/** MutatingAdmissionPolicy (and its binding) cannot match DELETE. */
export const supportedMutatingOperations = ['*', 'CONNECT', 'CREATE', 'UPDATE'] as const;
export const supportedFailurePolicies = ['Fail', 'Ignore'] as const;
export const supportedMatchPolicies = ['Equivalent', 'Exact'] as const;
export const supportedReinvocationPolicies = ['IfNeeded', 'Never'] as const;
const validScopes = ['*', 'Cluster', 'Namespaced'] as const;

export function isOneOf(list: readonly string[], value: string): boolean {
  return list.includes(value);
}

/** validateResources: resources of a rule that may name subresources. */
function validateResources(resources: readonly string[], fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(fldPath, ''));
  const resourcesWithWildcardSubresources = new Set<string>(); // x/*
  const subResourcesWithWildcardResource = new Set<string>(); // */x
  let hasDoubleWildcard = false; // */*
  let hasSingleWildcard = false; // *
  let hasResourceWithoutSubresource = false; // x
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(required(fldPath.index(i), ''));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // Upstream overwrites (does not OR) this flag, so only the last plain entry counts.
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res)) errs.push(invalid(fldPath.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subResourcesWithWildcardResource.has(sub)) errs.push(invalid(fldPath.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(res);
    if (res === '*') subResourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) errs.push(invalid(fldPath, [...resources], "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) {
    errs.push(invalid(fldPath, [...resources], "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** validateRule(rule, fldPath, allowSubResource=true) */
function validateRule(rule: Rule, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroups = rule.apiGroups ?? [];
  const apiVersions = rule.apiVersions ?? [];
  if (apiGroups.length === 0) errs.push(required(fldPath.child('apiGroups'), ''));
  if (apiGroups.length > 1 && apiGroups.includes('*')) {
    errs.push(invalid(fldPath.child('apiGroups'), [...apiGroups], "if '*' is present, must not specify other API groups"));
  }
  if (apiVersions.length === 0) errs.push(required(fldPath.child('apiVersions'), ''));
  if (apiVersions.length > 1 && apiVersions.includes('*')) {
    errs.push(invalid(fldPath.child('apiVersions'), [...apiVersions], "if '*' is present, must not specify other API versions"));
  }
  apiVersions.forEach((version, i) => {
    if (version === '') errs.push(required(fldPath.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(rule.resources ?? [], fldPath.child('resources')));
  if (rule.scope !== null && rule.scope !== undefined && !isOneOf(validScopes, rule.scope)) {
    errs.push(notSupported(fldPath.child('scope'), new Named(rule.scope), validScopes));
  }
  return errs;
}

/** validateRuleWithOperations */
export function validateRuleWithOperations(rule: RuleWithOperations, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const operations: readonly string[] = rule.operations ?? [];
  if (operations.length === 0) errs.push(required(fldPath.child('operations'), ''));
  if (operations.length > 1 && operations.includes('*')) {
    errs.push(invalid(fldPath.child('operations'), [...operations], "if '*' is present, must not specify other operations"));
  }
  operations.forEach((operation, i) => {
    if (!isOneOf(supportedOperations, operation)) {
      errs.push(notSupported(fldPath.child('operations').index(i), new Named(operation), supportedOperations));
    }
  });
  errs.push(...validateRule(rule, fldPath));
  return errs;
}

/** validateNamedRuleWithOperations */
export function validateNamedRuleWithOperations(rule: NamedRuleWithOperations, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    const p = fldPath.child('resourceNames').index(i);
    for (const msg of isPathSegmentName(name)) errs.push(invalid(p, name, msg));
    if (seen.has(name)) errs.push(duplicate(p, name));
    else seen.add(name);
  });
  errs.push(...validateRuleWithOperations(rule, fldPath));
  return errs;
}

/** validateMatchResources: nil is valid (optional binding matchResources); policies require it separately. */
export function validateMatchResources(mc: MatchResources | null | undefined, fldPath: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (mc === null || mc === undefined) return errs;
  if (mc.matchPolicy === null || mc.matchPolicy === undefined) {
    errs.push(required(fldPath.child('matchPolicy'), ''));
  } else if (!isOneOf(supportedMatchPolicies, mc.matchPolicy)) {
    errs.push(notSupported(fldPath.child('matchPolicy'), new Named(mc.matchPolicy), supportedMatchPolicies));
  }
  if (mc.namespaceSelector === null || mc.namespaceSelector === undefined) errs.push(required(fldPath.child('namespaceSelector'), ''));
  else errs.push(...validateLabelSelector(mc.namespaceSelector, fldPath.child('namespaceSelector')));
  if (mc.objectSelector === null || mc.objectSelector === undefined) errs.push(required(fldPath.child('objectSelector'), ''));
  else errs.push(...validateLabelSelector(mc.objectSelector, fldPath.child('objectSelector')));
  (mc.resourceRules ?? []).forEach((rule, i) => {
    errs.push(...validateNamedRuleWithOperations(rule, fldPath.child('resourceRules').index(i)));
  });
  (mc.excludeResourceRules ?? []).forEach((rule, i) => {
    errs.push(...validateNamedRuleWithOperations(rule, fldPath.child('excludeResourceRules').index(i)));
  });
  return errs;
}
