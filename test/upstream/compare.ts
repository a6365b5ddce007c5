// Sets the oracle's answer beside the daemon's and names every difference a user could see. Upstream's raw audit
// annotation keys (`<policy>/<key>`, as the in-tree plugin records them) are compared under the key the daemon
// answers for them (DESIGN.md "Audit annotations": lib/admission/audit-keys.ts webhookAnnotationKey), values as they
// are.
import { isDeepStrictEqual } from 'node:util';
import { webhookAnnotationKey } from '../../lib/admission/audit-keys.js';
import { loaderSchemeNames } from '../../lib/manifest/decode.js';
import { pluginKinds } from '../../lib/manifest/plugins.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import type { LoadAnswer, MutateAnswer, ValidateAnswer } from './oracle.js';

export type Differences = string[];

const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

function field(out: Differences, name: string, upstream: unknown, daemon: unknown): void {
  if (!isDeepStrictEqual(upstream, daemon)) out.push(`${name}: upstream ${show(upstream)}, daemon ${show(daemon)}`);
}

/**
 * The oracle is built from the Go module cache, where apimachinery's files sit under `k8s.io/apimachinery@v0.36.3/`:
 * GetNameFromCallsite then fails to skip runtime.NewScheme's own frame and names every scheme
 * "pkg/runtime/scheme.go:111". A kube-apiserver release build (-trimpath) names the loader's scheme after its
 * package's callsite (lib/manifest/decode.ts loaderSchemeNames), which the daemon answers; the comparison reads the
 * oracle's text as the release build would print it.
 */
export function asReleaseBuild(error: string, plugin: PluginName): string {
  return error.replaceAll('in scheme "pkg/runtime/scheme.go:111"', `in scheme "${loaderSchemeNames[pluginKinds[plugin].family]}"`);
}

export function compareLoads(upstream: LoadAnswer, daemon: LoadAnswer, plugin: PluginName): Differences {
  const out: Differences = [];
  if (!upstream.ok) upstream = { ...upstream, error: asReleaseBuild(upstream.error, plugin) };
  field(out, 'ok', upstream.ok, daemon.ok);
  if (upstream.ok && daemon.ok) {
    field(out, 'hash', upstream.hash, daemon.hash);
    field(out, 'counts', upstream.counts, daemon.counts);
    if (upstream.names !== undefined) field(out, 'names', sortedNames(upstream.names), sortedNames(daemon.names ?? {}));
  } else {
    field(out, 'error', upstream.ok ? undefined : upstream.error, daemon.ok ? undefined : daemon.error);
  }
  return out;
}

function sortedNames(names: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(names).filter(([, v]) => v.length > 0).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()]));
}

/** Upstream's audit annotations under the keys the daemon answers them with. */
export function answeredAuditAnnotations(raw: Record<string, string> | undefined): Record<string, string> | undefined {
  if (raw === undefined || Object.keys(raw).length === 0) return undefined;
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [webhookAnnotationKey(k), v]));
}

/**
 * A decision's text as a release build prints it: there, the scheme admission converts with is legacyscheme, named
 * after its callsite (k8s.io/kubernetes pkg/api/legacyscheme/scheme.go:30); the oracle's is "pkg/runtime/scheme.go:111"
 * for the reason asReleaseBuild gives.
 */
export function decisionAsReleaseBuild(message: string | undefined): string | undefined {
  return message?.replaceAll('in scheme "pkg/runtime/scheme.go:111"', 'in scheme "pkg/api/legacyscheme/scheme.go:30"');
}

export function compareDecisions(upstream: ValidateAnswer, daemon: ValidateAnswer): Differences {
  const out: Differences = [];
  field(out, 'allowed', upstream.allowed, daemon.allowed);
  field(out, 'status.code', upstream.status?.code, daemon.status?.code);
  field(out, 'status.reason', upstream.status?.reason || undefined, daemon.status?.reason || undefined);
  field(out, 'status.message', decisionAsReleaseBuild(upstream.status?.message) || undefined, daemon.status?.message || undefined);
  field(out, 'warnings', nonEmpty(upstream.warnings), nonEmpty(daemon.warnings));
  field(out, 'auditAnnotations', answeredAuditAnnotations(upstream.auditAnnotations), nonEmptyMap(daemon.auditAnnotations));
  return out;
}

export function compareMutations(upstream: MutateAnswer, daemon: MutateAnswer, builtIn: boolean): Differences {
  const out = compareDecisions(upstream, daemon);
  // the object matters only where the request was admitted (a denial answers no object)
  if (upstream.allowed && daemon.allowed) {
    const [u, d] = builtIn ? asStored(upstream.object ?? null, daemon.object ?? null) : [upstream.object ?? null, daemon.object ?? null];
    field(out, 'object', u, d);
  }
  return out;
}

const isZeroScalar = (v: unknown): boolean => v === false || v === 0 || v === '';
const isEmptyObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/**
 * Two built-in objects as the apiserver stores them, up to what their Go types add or drop: kube-apiserver applies
 * the daemon's patch to the JSON it sent and decodes the result into the kind's Go struct, so an empty map or a null
 * (omitempty) is gone, an empty struct (`status: {}`, `resources: {}`) and a value field's zero (`replicas: 0`,
 * `allowed: false`) appear, whichever JSON came in. The oracle answers that Go object's encoding; the daemon the
 * patched JSON. So both are read without empty objects and nulls, and a zero scalar on one side only is not a
 * difference. Custom resources are stored as sent (unstructured): theirs are compared exactly.
 */
export function asStored(upstream: unknown, daemon: unknown): [unknown, unknown] {
  if (Array.isArray(upstream) && Array.isArray(daemon)) {
    const pairs = upstream.map((u, i) => (i < daemon.length ? asStored(u, daemon[i]) : asStored(u, undefined)));
    const rest = daemon.slice(upstream.length).map((d) => asStored(undefined, d)[1]);
    return [pairs.map((p) => p[0]), [...pairs.map((p) => p[1]).slice(0, daemon.length), ...rest]];
  }
  const uObj = typeof upstream === 'object' && upstream !== null && !Array.isArray(upstream) ? upstream as Record<string, unknown> : undefined;
  const dObj = typeof daemon === 'object' && daemon !== null && !Array.isArray(daemon) ? daemon as Record<string, unknown> : undefined;
  if (uObj === undefined && dObj === undefined) {
    return [Array.isArray(upstream) ? upstream.map((u) => asStored(u, undefined)[0]) : upstream, Array.isArray(daemon) ? daemon.map((d) => asStored(undefined, d)[1]) : daemon];
  }
  const u: Record<string, unknown> = {};
  const d: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(uObj ?? {}), ...Object.keys(dObj ?? {})])) {
    const hasU = uObj !== undefined && Object.hasOwn(uObj, k);
    const hasD = dObj !== undefined && Object.hasOwn(dObj, k);
    if (hasU !== hasD && isZeroScalar(hasU ? uObj![k] : dObj![k])) continue;
    const [su, sd] = asStored(hasU ? uObj![k] : undefined, hasD ? dObj![k] : undefined);
    if (hasU && su !== null && su !== undefined && !isEmptyObject(su)) u[k] = su;
    if (hasD && sd !== null && sd !== undefined && !isEmptyObject(sd)) d[k] = sd;
  }
  return [uObj === undefined ? upstream : u, dObj === undefined ? daemon : d];
}

/** Kinds served by kube-apiserver itself: the core group and groups without a dot or under .k8s.io. */
export function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

const nonEmptyMap = (m: Record<string, string> | undefined): Record<string, string> | undefined => (m === undefined || Object.keys(m).length === 0 ? undefined : m);
const nonEmpty = <T>(list: T[] | undefined): T[] | undefined => (list === undefined || list.length === 0 ? undefined : list);
