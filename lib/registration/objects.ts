// The webhook registration that points kube-apiserver at this daemon, derived from the loaded manifests: at most
// one ValidatingWebhookConfiguration (/validate) and one MutatingWebhookConfiguration (/mutate), each with one
// webhook whose rules send exactly what the policies, bindings and static webhooks can match (coverage.ts), never
// the review resources (rules.ts), and none for a side with nothing to send.
//
// Two formats:
//   static: for kube-apiserver 1.36+ with ManifestBasedAdmissionControlConfig: names end in ".static.k8s.io" and
//           each document goes into the apiserver's own staticManifestsDir (validating and mutating apart).
//   api:    for older apiservers: plain names, applied with kubectl, with a REST ValidatingAdmissionPolicy guarding
//           the registration itself (guard.ts), printed first. Both configurations are always printed once either has
//           something to send (a side with nothing to send has no webhooks), so every apply after the first is an
//           UPDATE the guard decides, and a side that empties is emptied in the cluster instead of left behind.
//
// Every field kube-apiserver defaults is printed explicitly (pkg/apis/admissionregistration/v1/defaults.go), so the
// printed objects are a fixed point of its defaulting and applying the same output twice is `unchanged`.
import { createHash, X509Certificate } from 'node:crypto';
import type { LabelSelector, MatchCondition } from '../api/types.js';
import { sideCoverage, systemNamespaces } from './coverage.js';
import type { CoverageOptions, LoadedPlugin, RegistrationSide, SideCoverage } from './coverage.js';
import { defaultBreakGlassGroup, defaultRegistrarGroup, guardObjects } from './guard.js';
import { sideRules } from './rules.js';
import type { SideRules } from './rules.js';
import type { KubeVersion } from './version.js';

export type RegistrationFormat = 'static' | 'api';
export const registrationFormats: readonly RegistrationFormat[] = ['static', 'api'];

/** Coverage options but what the format decides: a static registration is sent admission-configuration objects. */
export interface RegistrationOptions extends Omit<CoverageOptions, 'sendsAdmissionConfiguration'> {
  /** base URL of the admission listener, `https://127.0.0.1:9443`; /validate and /mutate are appended */
  readonly url: string;
  /** base64 of the PEM CA bundle that verifies the serving certificate */
  readonly caBundle: string;
  /** default static */
  readonly format?: RegistrationFormat;
  /** print only one side (each static one goes into its own staticManifestsDir) */
  readonly only?: RegistrationSide;
  /** 1–30; default 5 */
  readonly timeoutSeconds?: number;
  /** the apiserver the api format is for (required there: nothing is printed for a guessed version); static is 1.36+ */
  readonly kubeVersion?: KubeVersion;
  /** send kube-system and kube-node-lease too */
  readonly includeSystemNamespaces?: boolean;
  /** api format: the group whose members may change or delete the registration */
  readonly breakGlassGroup?: string;
  /** api format: the group whose members may update (never delete) the registration */
  readonly registrarGroup?: string;
}

export class RegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationError';
  }
}

export const defaultRegistrationTimeoutSeconds = 5;
export const defaultRegistrationURL = 'https://127.0.0.1:9443';
export const rulesHashAnnotation = 'static-admissiond.io/rules-hash';

const baseName = 'static-admissiond';
const staticKubeVersion: KubeVersion = { major: 1, minor: 36 };

/** Configuration and webhook names for a format. */
export function registrationNames(format: RegistrationFormat): { configuration: string; validatingWebhook: string; mutatingWebhook: string } {
  return format === 'static'
    ? { configuration: `${baseName}.static.k8s.io`, validatingWebhook: `validate.${baseName}.static.k8s.io`, mutatingWebhook: `mutate.${baseName}.static.k8s.io` }
    : { configuration: baseName, validatingWebhook: `validate.${baseName}.localhost`, mutatingWebhook: `mutate.${baseName}.localhost` };
}

/** Checks the URL as kube-apiserver's ValidateWebhookURL does (https, a host, no user info, query or fragment). */
export function checkWebhookURL(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RegistrationError(`--url ${JSON.stringify(raw)}: not a valid URL: desired format: https://host[:port][/path]`);
  }
  if (url.protocol !== 'https:') throw new RegistrationError(`--url ${JSON.stringify(raw)}: 'https' is the only allowed URL scheme; desired format: https://host[/path]`);
  if (url.hostname === '') throw new RegistrationError(`--url ${JSON.stringify(raw)}: host must be specified`);
  if (url.username !== '' || url.password !== '') throw new RegistrationError(`--url ${JSON.stringify(raw)}: user information is not permitted in the URL`);
  if (url.hash !== '' || raw.includes('#')) throw new RegistrationError(`--url ${JSON.stringify(raw)}: fragments are not permitted in the URL`);
  if (url.search !== '' || raw.includes('?')) throw new RegistrationError(`--url ${JSON.stringify(raw)}: query parameters are not permitted in the URL`);
  return url;
}

/** base64 of a PEM CA bundle, after checking it holds at least one parseable certificate. */
export function caBundleFromPEM(pem: string | Buffer, source: string): string {
  const text = typeof pem === 'string' ? pem : pem.toString('latin1');
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new RegistrationError(`${source}: no PEM certificate found`);
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new RegistrationError(`${source}: certificate ${i}: ${(err as Error).message}`);
    }
  }
  return (typeof pem === 'string' ? Buffer.from(pem) : pem).toString('base64');
}

function endpointURL(base: URL, path: string): string {
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}${path}`;
}

/** The namespaceSelector of the registration: the system namespaces left out unless asked for. */
export function registrationNamespaceSelector(includeSystemNamespaces: boolean): LabelSelector {
  return includeSystemNamespaces
    ? {}
    : { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...systemNamespaces] }] };
}

/** sha256 of what a webhook entry sends (rules, matchConditions, namespaceSelector), for drift checks. */
export function rulesHash(entry: { rules: unknown; matchConditions?: unknown; namespaceSelector?: unknown }): string {
  const canonical = JSON.stringify({ rules: entry.rules ?? [], matchConditions: entry.matchConditions ?? [], namespaceSelector: entry.namespaceSelector ?? {} });
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}

/** One side of the registration: what the manifests need and what the webhook entry sends. */
export interface SideRegistration {
  readonly side: RegistrationSide;
  readonly coverage: SideCoverage;
  readonly sent: SideRules;
  /** the configuration object, absent when the side has nothing to send */
  readonly configuration?: Record<string, unknown>;
}

export interface Registration {
  readonly format: RegistrationFormat;
  readonly kubeVersion: KubeVersion;
  readonly includeSystemNamespaces: boolean;
  readonly sides: readonly SideRegistration[];
  /** api format: the guard policy and binding */
  readonly guard: ReadonlyArray<Record<string, unknown>>;
  /** api format: who may update (registrar) and delete (break glass) the registration */
  readonly groups: { readonly breakGlass: string; readonly registrar: string };
}

export function checkTimeoutSeconds(timeoutSeconds: number): number {
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new RegistrationError(`timeoutSeconds ${timeoutSeconds}: the timeout value must be between 1 and 30 seconds`);
  }
  return timeoutSeconds;
}

/** The registration for the loaded plugins. */
export function deriveRegistration(loaded: readonly LoadedPlugin[], options: RegistrationOptions): Registration {
  const format = options.format ?? 'static';
  const timeoutSeconds = checkTimeoutSeconds(options.timeoutSeconds ?? defaultRegistrationTimeoutSeconds);
  if (format === 'api' && options.kubeVersion === undefined) throw new RegistrationError('the api format needs the version of the kube-apiserver it is for (--kube-version)');
  const kubeVersion = format === 'static' ? staticKubeVersion : options.kubeVersion!;
  const includeSystemNamespaces = options.includeSystemNamespaces ?? false;
  const base = checkWebhookURL(options.url);
  const names = registrationNames(format);
  const namespaceSelector = registrationNamespaceSelector(includeSystemNamespaces);
  const sides: SideRegistration[] = [];
  for (const side of ['validating', 'mutating'] as const) {
    if (options.only !== undefined && options.only !== side) continue;
    const coverage = sideCoverage(side, loaded, { ...options, sendsAdmissionConfiguration: format === 'static' });
    const sent = sideRules(coverage, kubeVersion);
    if (sent.rules.length === 0) {
      sides.push({ side, coverage, sent });
      continue;
    }
    const webhook: Record<string, unknown> = {
      name: side === 'validating' ? names.validatingWebhook : names.mutatingWebhook,
      clientConfig: { url: endpointURL(base, side === 'validating' ? '/validate' : '/mutate'), caBundle: options.caBundle },
      rules: sent.rules.map((r) => ({ ...r })),
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector,
      objectSelector: {},
      ...(sent.matchConditions.length > 0 ? { matchConditions: sent.matchConditions.map((c: MatchCondition) => ({ ...c })) } : {}),
      sideEffects: 'None',
      timeoutSeconds,
      admissionReviewVersions: ['v1'],
      ...(side === 'mutating' ? { reinvocationPolicy: 'IfNeeded' } : {}),
    };
    const configuration = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: configurationKind(side),
      metadata: { name: names.configuration, annotations: { [rulesHashAnnotation]: rulesHash(webhook as { rules: unknown }) } },
      webhooks: [webhook],
    };
    sides.push({ side, coverage, sent, configuration });
  }
  // the guard protects the printed configurations: none printed, none needed
  const registering = sides.some((s) => s.configuration !== undefined);
  const groups = { breakGlass: options.breakGlassGroup ?? defaultBreakGlassGroup, registrar: options.registrarGroup ?? defaultRegistrarGroup };
  const guard = format === 'api' && registering
    ? guardObjects({ configurationName: names.configuration, breakGlassGroup: groups.breakGlass, registrarGroup: groups.registrar, kubeVersion })
    : [];
  const complete = format === 'api' && registering
    ? sides.map((s) => (s.configuration ? s : { ...s, configuration: emptyConfiguration(s.side, names.configuration) }))
    : sides;
  return { format, kubeVersion, includeSystemNamespaces, sides: complete, guard, groups };
}

/** A configuration without webhooks: sends nothing, and replaces (on apply) one that sent something before. */
function emptyConfiguration(side: RegistrationSide, name: string): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: configurationKind(side),
    metadata: { name, annotations: { [rulesHashAnnotation]: rulesHash({ rules: [] }) } },
  };
}

function configurationKind(side: RegistrationSide): string {
  return side === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
}

/** The objects to apply, in order: the guard first (so it decides the rest of the same apply), then the configurations. */
export function registrationObjects(registration: Registration): Array<Record<string, unknown>> {
  return [...registration.guard, ...registration.sides.flatMap((s) => (s.configuration ? [s.configuration] : []))];
}
