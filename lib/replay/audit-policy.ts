// The audit policy that records what `replay` needs of a manifest set, and nothing else: RequestResponse for every
// write of the resources the set can match (lib/registration/coverage.ts computes them from the loaded objects, as
// the registration does), Request for its CONNECTs, None for the rest, RequestReceived omitted.
//
// Every write verb of a covered resource and of its subresources is recorded, whatever operations the rules name: an
// UPDATE's or DELETE's old object is the previous write's response object (objects.ts), so a policy on DELETE needs
// the creates and updates before it, and a status update changes the object the next update replaces.
//
// What kube-apiserver's audit policy can say (S/audit/policy/checker.go ruleMatchesResource): a group is matched
// exactly (no wildcard: a rule on every group is a rule without `resources`), `*` matches every resource and
// subresource, `r/*` a resource and its subresources, `*/s` one subresource of every resource; versions and scope
// are not expressible, so they widen to every version and scope.
import { stringify as toYaml } from 'yaml';
import { registrationSides, sideCoverage } from '../registration/coverage.js';
import type { LoadedPlugin, Rule } from '../registration/coverage.js';
import { connectSubresources } from './filter.js';

export interface AuditPolicyRule {
  level: 'None' | 'Request' | 'RequestResponse';
  verbs?: string[];
  resources?: Array<{ group: string; resources?: string[] }>;
}

export interface AuditPolicy {
  apiVersion: 'audit.k8s.io/v1';
  kind: 'Policy';
  omitStages: string[];
  rules: AuditPolicyRule[];
}

const writeVerbs = ['create', 'update', 'patch', 'delete'];
/** the HTTP methods a connect subresource is reached with, as RequestInfo names them */
const connectVerbs = ['get', 'create', 'update', 'patch', 'delete'];

/** A webhook rule's resource entry as an audit resource entry: the resource with its subresources. */
function auditResource(entry: string): string {
  if (entry === '*' || entry === '*/*') return '*';
  const resource = entry.split('/')[0]!;
  return resource === '*' ? entry : `${resource}/*`;
}

function connectResources(entry: string): string[] {
  const [resource, sub] = entry.split('/') as [string, string | undefined];
  if (sub !== undefined && sub !== '*') return connectSubresources.has(sub) ? [entry] : [];
  return [...connectSubresources].map((s) => `${resource}/${s}`);
}

function mayConnect(rule: Rule): boolean {
  return rule.operations.includes('*') || rule.operations.includes('CONNECT');
}

/** group → resource entries, merged over rules; '*' for every group. */
function byGroup(rules: readonly Rule[], entries: (rule: Rule, resource: string) => string[]): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      const set = groups.get(group) ?? new Set<string>();
      for (const r of rule.resources) for (const e of entries(rule, r)) set.add(e);
      if (set.size > 0) groups.set(group, set);
    }
  }
  return groups;
}

function rulesFor(level: AuditPolicyRule['level'], verbs: readonly string[], groups: Map<string, Set<string>>): AuditPolicyRule[] {
  if (groups.size === 0) return [];
  // every group: a group cannot be a wildcard, so the rule names no resources (and records them all)
  if (groups.has('*')) return [{ level, verbs: [...verbs] }];
  const resources = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([group, set]) => {
    const list = set.has('*') ? ['*'] : [...set].sort();
    return { group, resources: list };
  });
  return [{ level, verbs: [...verbs], resources }];
}

/** The audit policy for the loaded plugins of a manifest set (both sides: /validate and /mutate). */
export function auditPolicyFor(loaded: readonly LoadedPlugin[], excludeWebhookVirtualResources: boolean): AuditPolicy {
  const rules = registrationSides.flatMap((side) => sideCoverage(side, loaded, { excludeWebhookVirtualResources }).objects.flatMap((o) => o.rules));
  const writes = byGroup(rules.filter((r) => r.operations.some((op) => op !== 'CONNECT')), (_rule, r) => [auditResource(r)]);
  const connects = byGroup(rules.filter(mayConnect), (_rule, r) => connectResources(r));
  return {
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [
      ...rulesFor('RequestResponse', writeVerbs, writes),
      ...rulesFor('Request', connectVerbs, connects),
      { level: 'None' },
    ],
  };
}

export function renderAuditPolicy(policy: AuditPolicy): string {
  const header = [
    '# Records what `static-admissiond replay` needs of this manifest set: every write of the resources it can match,',
    '# with request and response objects, and nothing else.',
    '# Audit rules are first-match. To add these to an existing policy, put every rule but the last (`level: None`)',
    '# first in its `rules`, keep its own rules after them, and set `omitStages: [RequestReceived]` or keep your own.',
  ];
  return `${header.join('\n')}\n${toYaml(policy)}`;
}
