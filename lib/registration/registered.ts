// The registration kube-apiserver uses, read from a file (`--registration-file`, `validate --registration`): per
// side, each webhook of its ValidatingWebhookConfiguration / MutatingWebhookConfiguration with what decides what it
// is sent: its rules (canonical, as coverage.ts writes the loaded objects' rules), namespaceSelector and
// matchConditions. Other kinds (the guard policy) are ignored.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { LabelSelector, MatchCondition, RuleWithOperations } from '../api/types.js';
import { staticConfigSuffix } from '../manifest/load.js';
import { canonicalRule } from './coverage.js';
import { breakGlassGroupAnnotation, guardPolicyName, registrarGroupAnnotation } from './guard.js';
import type { RegistrationSide, Rule } from './coverage.js';

export class RegistrationFileError extends Error {}

export interface RegisteredWebhook {
  readonly name: string;
  readonly url?: string;
  readonly timeoutSeconds?: number;
  readonly rules: readonly Rule[];
  /** absent: every namespace */
  readonly namespaceSelector?: LabelSelector;
  readonly matchConditions: readonly MatchCondition[];
}

/** How the registration was printed, as far as the file tells: what `registration` needs to print it again. */
export interface PrintedWith {
  /** static when its configurations are named `*.static.k8s.io` (1.36+ staticManifestsDir), else api */
  readonly format: 'api' | 'static';
  /** api format: a version printing the same objects (1.30: a v1 guard, 1.28: v1beta1, 1.27: none) */
  readonly kubeVersion?: string;
  /** the base URL (the webhooks' URL without /validate or /mutate) */
  readonly url?: string;
  readonly timeoutSeconds?: number;
  /** no webhook leaves the system namespaces out */
  readonly includeSystemNamespaces: boolean;
  /** api format: the guard's groups (its annotations) */
  readonly registrarGroup?: string;
  readonly breakGlassGroup?: string;
}

export interface Registered {
  /** per side, the registration's webhooks; null for a side it has no configuration for */
  readonly sides: Readonly<Record<RegistrationSide, readonly RegisteredWebhook[] | null>>;
  readonly printedWith: PrintedWith;
}

export const configurationKinds: Readonly<Record<RegistrationSide, string>> = {
  validating: 'ValidatingWebhookConfiguration',
  mutating: 'MutatingWebhookConfiguration',
};

const sideOfKind: ReadonlyMap<string, RegistrationSide> = new Map(Object.entries(configurationKinds).map(([side, kind]) => [kind, side as RegistrationSide]));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function listOf(value: unknown, what: string, where: string): unknown[] {
  if (value == null) return [];
  if (!Array.isArray(value)) throw new RegistrationFileError(`${where}: ${what} must be a list`);
  return value;
}

function webhookOf(raw: unknown, where: string): RegisteredWebhook {
  if (!isObject(raw)) throw new RegistrationFileError(`${where}: webhooks[] must be objects`);
  const rules = listOf(raw.rules, 'webhooks[].rules', where)
    .map((r) => canonicalRule(r as RuleWithOperations))
    .filter((r): r is Rule => r !== undefined);
  const matchConditions = listOf(raw.matchConditions, 'webhooks[].matchConditions', where).map((c) => {
    const condition = isObject(c) ? c : {};
    return { name: String(condition.name ?? ''), expression: String(condition.expression ?? '') };
  });
  if (raw.namespaceSelector != null && !isObject(raw.namespaceSelector)) throw new RegistrationFileError(`${where}: webhooks[].namespaceSelector must be an object`);
  const url = isObject(raw.clientConfig) && typeof raw.clientConfig.url === 'string' ? raw.clientConfig.url : undefined;
  return {
    name: typeof raw.name === 'string' ? raw.name : '',
    ...(url === undefined ? {} : { url }),
    ...(typeof raw.timeoutSeconds === 'number' ? { timeoutSeconds: raw.timeoutSeconds } : {}),
    rules,
    ...(raw.namespaceSelector == null ? {} : { namespaceSelector: raw.namespaceSelector as LabelSelector }),
    matchConditions,
  };
}

/** Reads every webhook configuration of a YAML stream (other kinds ignored). */
/** The printed registration's flags read back from its objects. */
function printedWith(sides: Registered['sides'], format: PrintedWith['format'], guard: Record<string, unknown> | undefined): PrintedWith {
  const webhooks = [...(sides.validating ?? []), ...(sides.mutating ?? [])];
  const first = webhooks[0];
  const annotations = (guard?.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {};
  const annotation = (key: string): string | undefined => (typeof annotations[key] === 'string' && annotations[key] !== '' ? annotations[key] as string : undefined);
  const registrarGroup = annotation(registrarGroupAnnotation);
  const breakGlassGroup = annotation(breakGlassGroupAnnotation);
  const guardVersion = guard?.apiVersion;
  return {
    format,
    ...(format === 'api' ? { kubeVersion: guardVersion === 'admissionregistration.k8s.io/v1' ? '1.30' : guardVersion === 'admissionregistration.k8s.io/v1beta1' ? '1.28' : '1.27' } : {}),
    ...(first?.url === undefined ? {} : { url: first.url.replace(/\/(validate|mutate)$/, '') }),
    ...(first?.timeoutSeconds === undefined ? {} : { timeoutSeconds: first.timeoutSeconds }),
    includeSystemNamespaces: webhooks.length > 0 && webhooks.every((w) => (w.namespaceSelector?.matchExpressions ?? []).length === 0 && Object.keys(w.namespaceSelector?.matchLabels ?? {}).length === 0),
    ...(registrarGroup === undefined ? {} : { registrarGroup }),
    ...(breakGlassGroup === undefined ? {} : { breakGlassGroup }),
  };
}

/** Reads every webhook configuration of a YAML stream (other kinds but the guard ignored). */
export function parseRegistration(text: string, source: string): Registered {
  const sides: Record<RegistrationSide, RegisteredWebhook[] | null> = { validating: null, mutating: null };
  let format: PrintedWith['format'] = 'api';
  let guard: Record<string, unknown> | undefined;
  const docs = parseAllDocuments(text);
  for (const [i, doc] of (Array.isArray(docs) ? docs : []).entries()) {
    const where = `${source}: document ${i}`;
    if (doc.errors.length > 0) throw new RegistrationFileError(`${where}: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as unknown;
    if (!isObject(obj)) continue;
    const metadata = isObject(obj.metadata) ? obj.metadata : {};
    if (obj.kind === 'ValidatingAdmissionPolicy' && metadata.name === guardPolicyName) guard = obj;
    const side = typeof obj.kind === 'string' ? sideOfKind.get(obj.kind) : undefined;
    if (side === undefined) continue;
    if (typeof metadata.name === 'string' && metadata.name.endsWith(staticConfigSuffix)) format = 'static';
    const webhooks = (sides[side] ??= []);
    for (const webhook of listOf(obj.webhooks, 'webhooks', where)) webhooks.push(webhookOf(webhook, where));
  }
  return { sides, printedWith: printedWith(sides, format, guard) };
}

export function readRegistrationFile(path: string): Registered {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  return parseRegistration(text, `registration file ${JSON.stringify(path)}`);
}
