// Builders for matching tests: admission requests, defaulted policies/bindings, static webhooks.
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../../../lib/api/admission.js';
import type {
  LabelSelector,
  MatchResources,
  MutatingAdmissionPolicy,
  RuleWithOperations,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhook,
} from '../../../lib/api/types.js';
import type { StaticWebhook } from '../../../lib/manifest/compile.js';
import { applyDefaults } from '../../../lib/manifest/defaults.js';
import { compileLabelSelector } from '../../../lib/manifest/selector.js';

/** "v1/pods" (core) or "apps/v1/deployments" */
export function gvr(spec: string): GroupVersionResource {
  const parts = spec.split('/');
  return parts.length === 2 ? { group: '', version: parts[0]!, resource: parts[1]! } : { group: parts[0]!, version: parts[1]!, resource: parts[2]! };
}

export function gvk(group: string, version: string, kind: string): GroupVersionKind {
  return { group, version, kind };
}

export interface RequestSpec {
  op?: string;
  /** "v1/pods" or "apps/v1/deployments" */
  resource?: string;
  kind?: string;
  sub?: string;
  namespace?: string;
  name?: string;
  object?: unknown;
  oldObject?: unknown;
  /** the original request when the apiserver converted it: "extensions/v1beta1/deployments" */
  requestResource?: string;
  requestKind?: string;
}

/** A fresh AdmissionRequest (identity fields are cached per request object, so never reuse one across cases). */
export function request(spec: RequestSpec = {}): AdmissionRequest {
  const resource = gvr(spec.resource ?? 'v1/configmaps');
  const kind = gvk(resource.group!, resource.version!, spec.kind ?? 'Kind');
  const r: AdmissionRequest = {
    uid: 'u',
    kind,
    resource,
    operation: spec.op ?? 'CREATE',
    name: spec.name ?? 'obj',
    namespace: spec.namespace ?? 'default',
    object: 'object' in spec ? spec.object : { metadata: { name: spec.name ?? 'obj' } },
    oldObject: 'oldObject' in spec ? spec.oldObject : null,
  };
  if (spec.sub !== undefined) {
    r.subResource = spec.sub;
    r.requestSubResource = spec.sub;
  }
  if (spec.requestResource !== undefined) {
    const original = gvr(spec.requestResource);
    r.requestResource = original;
    r.requestKind = gvk(original.group!, original.version!, spec.requestKind ?? spec.kind ?? 'Kind');
  } else {
    r.requestResource = { ...resource };
    r.requestKind = { ...kind };
  }
  return r;
}

export function labelled(labels: Record<string, string> | undefined, name = 'obj'): unknown {
  return labels === undefined ? { metadata: { name } } : { metadata: { name, labels } };
}

export function rule(partial: Partial<RuleWithOperations> & { resourceNames?: string[] } = {}): RuleWithOperations & { resourceNames?: string[] } {
  return { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...partial };
}

/** A defaulted ValidatingAdmissionPolicy (as the loader hands it over). */
export function vap(name: string, matchConstraints: MatchResources | null): ValidatingAdmissionPolicy {
  const p: ValidatingAdmissionPolicy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { validations: [{ expression: 'true' }] },
  };
  if (matchConstraints !== null) p.spec!.matchConstraints = structuredClone(matchConstraints);
  applyDefaults('ValidatingAdmissionPolicy', p);
  return p;
}

export function map(name: string, matchConstraints: MatchResources): MutatingAdmissionPolicy {
  const p: MutatingAdmissionPolicy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: structuredClone(matchConstraints), reinvocationPolicy: 'Never' },
  };
  applyDefaults('MutatingAdmissionPolicy', p);
  return p;
}

export function binding(name: string, policyName: string, matchResources?: MatchResources): ValidatingAdmissionPolicyBinding {
  const b: ValidatingAdmissionPolicyBinding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'] },
  };
  if (matchResources !== undefined) b.spec!.matchResources = structuredClone(matchResources);
  applyDefaults('ValidatingAdmissionPolicyBinding', b);
  return b;
}

/** A static webhook as lib/manifest/compile.ts builds it, from a defaulted ValidatingWebhook. */
export function staticWebhook(name: string, w: Partial<ValidatingWebhook>): StaticWebhook {
  const webhook: ValidatingWebhook = { name, clientConfig: { url: 'https://127.0.0.1:1/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...structuredClone(w) };
  applyDefaults('ValidatingWebhookConfiguration', { webhooks: [webhook] });
  return {
    uid: `manifest/cfg.static.k8s.io/${name}/0`,
    configurationName: 'cfg.static.k8s.io',
    webhook,
    namespaceSelector: compileLabelSelector(webhook.namespaceSelector),
    objectSelector: compileLabelSelector(webhook.objectSelector),
    matchConditions: [],
  };
}

export function selector(matchLabels?: Record<string, string>, matchExpressions?: LabelSelector['matchExpressions']): LabelSelector {
  const s: LabelSelector = {};
  if (matchLabels) s.matchLabels = matchLabels;
  if (matchExpressions) s.matchExpressions = matchExpressions;
  return s;
}
