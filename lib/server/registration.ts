// The webhook registration that points kube-apiserver at this daemon: one ValidatingWebhookConfiguration (path
// /validate) and one MutatingWebhookConfiguration (path /mutate), with coarse rules — the daemon matches each
// request against its own manifests, so the apiserver sends it everything and the daemon decides.
//
// Two formats:
//   static — for kube-apiserver 1.36+ with ManifestBasedAdmissionControlConfig: names end in ".static.k8s.io" and
//            each document goes into the apiserver's own staticManifestsDir (the ValidatingAdmissionWebhook
//            plugin's directory for the first, the MutatingAdmissionWebhook plugin's for the second).
//   api    — for older apiservers: plain names, applied with kubectl.
import { X509Certificate } from 'node:crypto';
import { Document, isMap, isScalar, isSeq } from 'yaml';
import type { YAMLMap } from 'yaml';

export type RegistrationFormat = 'static' | 'api';
export const registrationFormats: readonly RegistrationFormat[] = ['static', 'api'];

export type RegistrationKind = 'validating' | 'mutating';

export interface RegistrationOptions {
  /** base URL of the admission listener, `https://127.0.0.1:9443`; /validate and /mutate are appended */
  readonly url: string;
  /** base64 of the PEM CA bundle that verifies the serving certificate */
  readonly caBundle: string;
  /** default static */
  readonly format?: RegistrationFormat;
  /** print only one of the two configurations (each goes into its own staticManifestsDir) */
  readonly only?: RegistrationKind;
  /** 1–30; default 5 */
  readonly timeoutSeconds?: number;
}

export class RegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistrationError';
  }
}

/** Namespaces the registration leaves alone, by their immutable kubernetes.io/metadata.name label. */
export const excludedNamespaces: readonly string[] = ['kube-system', 'kube-node-lease'];
export const defaultRegistrationTimeoutSeconds = 5;

const baseName = 'static-admissiond';

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

/** The registration objects, as plain data (validating first). */
export function registrationObjects(options: RegistrationOptions): Array<Record<string, unknown>> {
  const format = options.format ?? 'static';
  const timeoutSeconds = options.timeoutSeconds ?? defaultRegistrationTimeoutSeconds;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new RegistrationError(`timeoutSeconds ${timeoutSeconds}: the timeout value must be between 1 and 30 seconds`);
  }
  const base = checkWebhookURL(options.url);
  const names = registrationNames(format);
  const webhook = (name: string, path: string): Record<string, unknown> => ({
    name,
    clientConfig: { url: endpointURL(base, path), caBundle: options.caBundle },
    rules: [{
      apiGroups: ['*'],
      apiVersions: ['*'],
      operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
      resources: ['*/*'],
      scope: '*',
    }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...excludedNamespaces] }],
    },
    sideEffects: 'None',
    timeoutSeconds,
    admissionReviewVersions: ['v1'],
  });
  const objects: Array<Record<string, unknown>> = [];
  if (options.only !== 'mutating') {
    objects.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: names.configuration },
      webhooks: [webhook(names.validatingWebhook, '/validate')],
    });
  }
  if (options.only !== 'validating') {
    objects.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: names.configuration },
      webhooks: [{ ...webhook(names.mutatingWebhook, '/mutate'), reinvocationPolicy: 'IfNeeded' }],
    });
  }
  return objects;
}

const exclusionComment = [
  ` Requests in ${excludedNamespaces.join(' and ')} (and for those Namespace objects themselves) are not sent to`,
  ' static-admissiond: with failurePolicy Fail, a daemon that is down or slow would otherwise block the control',
  ' plane\'s own objects (leader-election and node leases, kube-system pods and config) and can keep kube-apiserver',
  ' from starting. kubernetes.io/metadata.name is set by the apiserver on every namespace and cannot be changed.',
  ' Cluster-scoped objects (nodes, CRDs, cluster roles...) have no namespace and are still sent.',
  ' Remove an entry only for a policy that is meant to guard that namespace.',
].join('\n');

function headerComment(kind: string, format: RegistrationFormat, url: string): string {
  const plugin = kind === 'ValidatingWebhookConfiguration' ? 'ValidatingAdmissionWebhook' : 'MutatingAdmissionWebhook';
  const lines = [` ${kind} sending admission requests to static-admissiond at ${url}.`];
  if (format === 'static') {
    lines.push(
      ` For kube-apiserver 1.36+ with --feature-gates=ManifestBasedAdmissionControlConfig=true: save this document`,
      ` in the staticManifestsDir of the apiserver's ${plugin} plugin (its own --admission-control-config-file),`,
      ' not in a directory static-admissiond itself loads.',
    );
  } else {
    lines.push(' For kube-apiserver before 1.36: kubectl apply -f <this file>.');
  }
  return lines.join('\n');
}

/** The registration as YAML: one document per configuration, with comments saying where it goes and why namespaces are excluded. */
export function renderRegistration(options: RegistrationOptions): string {
  const format = options.format ?? 'static';
  return registrationObjects(options).map((obj) => {
    const doc = new Document(obj);
    const webhooks = (obj.webhooks as Array<{ clientConfig: { url: string } }>);
    doc.commentBefore = headerComment(String(obj.kind), format, webhooks[0]!.clientConfig.url);
    const webhook = doc.getIn(['webhooks', 0], true);
    if (isMap(webhook)) {
      for (const pair of (webhook as YAMLMap).items) {
        if (isScalar(pair.key) && pair.key.value === 'namespaceSelector') pair.key.commentBefore = exclusionComment;
      }
    }
    const rule = doc.getIn(['webhooks', 0, 'rules', 0], true);
    if (isMap(rule)) for (const pair of rule.items) if (isSeq(pair.value)) pair.value.flow = true;
    const versions = doc.getIn(['webhooks', 0, 'admissionReviewVersions'], true);
    if (isSeq(versions)) versions.flow = true;
    return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  }).join('---\n');
}
