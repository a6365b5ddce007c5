// Drift between the loaded manifests and the registration the apiserver uses: which loaded objects can match
// requests that registration never sends (a policy added for a new resource, silently unenforced).
//
// A required rule is covered when each of its combinations (operation, group, version, resource, scope) is sent by
// some rule of the registration's webhooks for that side, read as upstream's rule matcher reads them
// (S/admission/plugin/webhook/predicates/rules/rules.go). A wildcard in a required rule is covered only by the same
// wildcard. The registration's namespaceSelector (the system namespaces, a documented trade-off) and its
// matchConditions (the review resources, which no policy sees) are not counted as drift.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { RuleWithOperations } from '../api/types.js';
import { allOperations, canonicalRule, resourceCovers } from './coverage.js';
import type { PluginName } from '../manifest/plugins.js';
import type { RegistrationSide, Rule, SideCoverage } from './coverage.js';
import { ownValue } from '../json/own.js';

export class RegistrationFileError extends Error {}

/** The rules a registration file sends per side; null for a side it has no configuration for. */
export type RegisteredRules = Readonly<Record<RegistrationSide, readonly Rule[] | null>>;

const sideOfKind: Readonly<Record<string, RegistrationSide>> = {
  ValidatingWebhookConfiguration: 'validating',
  MutatingWebhookConfiguration: 'mutating',
};

/** Reads every ValidatingWebhookConfiguration / MutatingWebhookConfiguration of a YAML file (other kinds ignored). */
export function parseRegistration(text: string, source: string): RegisteredRules {
  const out: Record<RegistrationSide, Rule[] | null> = { validating: null, mutating: null };
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return out;
  for (const [i, doc] of docs.entries()) {
    if (doc.errors.length > 0) throw new RegistrationFileError(`${source}: document ${i}: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as { kind?: unknown; webhooks?: unknown } | null;
    if (obj === null || typeof obj !== 'object') continue;
    const side = typeof obj.kind === 'string' ? ownValue(sideOfKind, obj.kind) : undefined;
    if (side === undefined) continue;
    if (obj.webhooks != null && !Array.isArray(obj.webhooks)) throw new RegistrationFileError(`${source}: document ${i}: webhooks must be a list`);
    const rules = (out[side] ??= []);
    for (const webhook of (obj.webhooks ?? []) as Array<{ rules?: unknown }>) {
      if (webhook?.rules != null && !Array.isArray(webhook.rules)) throw new RegistrationFileError(`${source}: document ${i}: webhooks[].rules must be a list`);
      for (const rule of (webhook?.rules ?? []) as RuleWithOperations[]) {
        const canonical = canonicalRule(rule);
        if (canonical) rules.push(canonical);
      }
    }
  }
  return out;
}

export function readRegistrationFile(path: string): RegisteredRules {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  return parseRegistration(text, `registration file ${JSON.stringify(path)}`);
}

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

export interface UncoveredObject {
  readonly plugin: PluginName;
  readonly owner: string;
  /** what the registration does not send, `CREATE apps/v1 deployments (Namespaced)` */
  readonly missing: readonly string[];
}

/** The side's objects whose rules the registered rules do not send in full. */
export function uncoveredObjects(coverage: SideCoverage, registered: readonly Rule[] | null): UncoveredObject[] {
  const sent = registered ?? [];
  const out: UncoveredObject[] = [];
  for (const object of coverage.objects) {
    const missing = new Set<string>();
    for (const rule of object.rules) {
      for (const c of combinations(rule)) if (!sent.some((r) => sends(r, c))) missing.add(describeCombination(c));
    }
    if (missing.size > 0) out.push({ plugin: object.plugin, owner: object.owner, missing: [...missing] });
  }
  return out;
}
