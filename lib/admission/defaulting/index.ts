// The scheme's defaulting of built-in kinds (upstream's ObjectDefaulter, which the mutating policy dispatcher runs
// after every mutation: staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/dispatcher.go dispatchOne).
// Defaults are those of kube-apiserver 1.36 with its default feature gates: kubernetes pkg/apis/<group>/<version>/
// defaults.go called as their zz_generated.defaults.go calls them, and the `+default=` markers of k8s.io/api v0.36.3.
// Here: core/v1, apps/v1 and batch/v1 (pod.ts and below); the other GA kinds with a defaulter, one module per group
// (autoscaling.ts v1 and v2, core.ts, networking.ts, rbac.ts, discovery.ts, scheduling.ts, storage.ts,
// flowcontrol.ts, admissionregistration.ts, resource.ts, authentication.ts).
//
// ConfigMap has a defaulter upstream (SetDefaults_ConfigMap makes a nil data map empty), which JSON omits: nothing to
// do; ResourceQuota's only rounds quantities. Not done (documented in the README): quantities are not rounded up to
// milli precision or re-canonicalized (SetDefaults_ResourceList), and pod-level resources (spec.resources,
// PodLevelResources) are not derived from the containers'. Other kinds are returned as they are.
import { cloneJson, copyJson, setOwn } from '../../json/index.js';
import { defaultInPlace, isObject, remove, setIfMissing, structField, uncopiedPartWritten, wouldChange, write } from './object.js';
import type { DefaultedParts, JsonObject } from './object.js';
export { defaultedParts } from './object.js';
export type { DefaultedParts } from './object.js';
import { claimSpec, pod, podTemplate } from './pod.js';
import { horizontalPodAutoscalerV1, horizontalPodAutoscalerV2 } from './autoscaling.js';
import { endpoints, limitRange, node, persistentVolume, replicationController } from './core.js';
import { networkPolicy, ingressClass } from './networking.js';
import { roleBinding } from './rbac.js';
import { endpointSlice } from './discovery.js';
import { priorityClass } from './scheduling.js';
import { csiDriver, storageClass, volumeAttachment } from './storage.js';
import { flowSchema, priorityLevelConfiguration } from './flowcontrol.js';
import { admissionPolicy, admissionPolicyBinding, mutatingWebhookConfiguration, validatingWebhookConfiguration } from './admissionregistration.js';
import { resourceClaim, resourceClaimTemplate, resourceSlice } from './resource.js';
import { tokenRequest } from './authentication.js';

export interface DefaultedKind {
  readonly apiVersion: string;
  readonly kind: string;
}

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** SetDefaults_Deployment */
function deployment(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'replicas', 1);
  const strategy = structField(spec, 'strategy');
  setIfMissing(strategy, 'type', 'RollingUpdate', '');
  if (strategy['type'] === 'RollingUpdate') {
    const rollingUpdate = structField(strategy, 'rollingUpdate');
    setIfMissing(rollingUpdate, 'maxUnavailable', '25%');
    setIfMissing(rollingUpdate, 'maxSurge', '25%');
  }
  setIfMissing(spec, 'revisionHistoryLimit', 10);
  setIfMissing(spec, 'progressDeadlineSeconds', 600);
  podTemplate(structField(spec, 'template'));
}

/** SetDefaults_DaemonSet */
function daemonSet(o: JsonObject): void {
  const spec = structField(o, 'spec');
  const strategy = structField(spec, 'updateStrategy');
  setIfMissing(strategy, 'type', 'RollingUpdate', '');
  if (strategy['type'] === 'RollingUpdate') {
    const rollingUpdate = structField(strategy, 'rollingUpdate');
    setIfMissing(rollingUpdate, 'maxUnavailable', 1);
    setIfMissing(rollingUpdate, 'maxSurge', 0);
  }
  setIfMissing(spec, 'revisionHistoryLimit', 10);
  podTemplate(structField(spec, 'template'));
}

/** SetDefaults_PersistentVolumeClaim and the PVC spec's */
function persistentVolumeClaim(o: JsonObject): void {
  setIfMissing(structField(o, 'status'), 'phase', 'Pending', '');
  claimSpec(structField(o, 'spec'));
}

/** SetDefaults_StatefulSet (StatefulSetAutoDeletePVC is GA: the retention policy is defaulted) */
function statefulSet(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'podManagementPolicy', 'OrderedReady', '');
  const strategy = structField(spec, 'updateStrategy');
  if (strategy['type'] === undefined || strategy['type'] === null || strategy['type'] === '') {
    write(strategy, 'type', 'RollingUpdate');
    setIfMissing(strategy, 'rollingUpdate', {});
  }
  if (strategy['type'] === 'RollingUpdate' && isObject(strategy['rollingUpdate'])) setIfMissing(strategy['rollingUpdate'], 'partition', 0);
  const retention = structField(spec, 'persistentVolumeClaimRetentionPolicy');
  setIfMissing(retention, 'whenDeleted', 'Retain', '');
  setIfMissing(retention, 'whenScaled', 'Retain', '');
  setIfMissing(spec, 'replicas', 1);
  setIfMissing(spec, 'revisionHistoryLimit', 10);
  podTemplate(structField(spec, 'template'));
  for (const claim of objects(spec['volumeClaimTemplates'])) persistentVolumeClaim(claim);
}

/** SetDefaults_ReplicaSet */
function replicaSet(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'replicas', 1);
  podTemplate(structField(spec, 'template'));
}

/** A JobSpec's nested defaults: SetDefaults_PodFailurePolicyOnPodConditionsPattern and the pod template. */
function jobSpec(spec: JsonObject): void {
  const policy = spec['podFailurePolicy'];
  if (isObject(policy)) {
    for (const rule of objects(policy['rules'])) for (const p of objects(rule['onPodConditions'])) setIfMissing(p, 'status', 'True', '');
  }
  podTemplate(structField(spec, 'template'));
}

/** SetDefaults_Job (JobPodReplacementPolicy is GA) */
function job(o: JsonObject): void {
  const spec = structField(o, 'spec');
  const unset = (k: string): boolean => spec[k] === undefined || spec[k] === null;
  if (unset('completions') && unset('parallelism')) {
    write(spec, 'completions', 1);
    write(spec, 'parallelism', 1);
  }
  setIfMissing(spec, 'parallelism', 1);
  if (unset('backoffLimit')) write(spec, 'backoffLimit', unset('backoffLimitPerIndex') ? 6 : 2147483647);
  const template = spec['template'];
  const labels = isObject(template) && isObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  const metadata = structField(o, 'metadata');
  if (isObject(labels) && !(isObject(metadata['labels']) && Object.keys(metadata['labels']).length > 0)) write(metadata, 'labels', { ...labels });
  setIfMissing(spec, 'completionMode', 'NonIndexed');
  setIfMissing(spec, 'suspend', false);
  setIfMissing(spec, 'podReplacementPolicy', isObject(spec['podFailurePolicy']) ? 'Failed' : 'TerminatingOrFailed');
  setIfMissing(spec, 'manualSelector', false);
  jobSpec(spec);
}

/** SetDefaults_CronJob (the job template's JobSpec gets only its nested defaults: SetDefaults_Job is for Jobs) */
function cronJob(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'concurrencyPolicy', 'Allow', '');
  setIfMissing(spec, 'suspend', false);
  setIfMissing(spec, 'successfulJobsHistoryLimit', 3);
  setIfMissing(spec, 'failedJobsHistoryLimit', 1);
  jobSpec(structField(structField(spec, 'jobTemplate'), 'spec'));
}

/** service.ExternallyAccessible */
function externallyAccessible(spec: JsonObject): boolean {
  const type = spec['type'];
  return type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(spec['externalIPs']) && spec['externalIPs'].length > 0);
}

/** SetDefaults_Service (ServicePort.protocol is also +default="TCP") */
function service(o: JsonObject): void {
  const spec = structField(o, 'spec');
  setIfMissing(spec, 'sessionAffinity', 'None', '');
  if (spec['sessionAffinity'] === 'None') remove(spec, 'sessionAffinityConfig');
  if (spec['sessionAffinity'] === 'ClientIP') {
    const config = spec['sessionAffinityConfig'];
    const clientIP = isObject(config) ? config['clientIP'] : undefined;
    if (!isObject(clientIP) || clientIP['timeoutSeconds'] === undefined || clientIP['timeoutSeconds'] === null) {
      // DefaultClientIPServiceAffinitySeconds: three hours
      write(spec, 'sessionAffinityConfig', { clientIP: { timeoutSeconds: 10800 } });
    }
  }
  setIfMissing(spec, 'type', 'ClusterIP', '');
  for (const port of objects(spec['ports'])) {
    setIfMissing(port, 'protocol', 'TCP', '');
    const target = port['targetPort'];
    if (target === undefined || target === null || target === 0 || target === '') write(port, 'targetPort', typeof port['port'] === 'number' ? port['port'] : 0);
  }
  if (externallyAccessible(spec)) setIfMissing(spec, 'externalTrafficPolicy', 'Cluster', '');
  if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer' || spec['type'] === 'ClusterIP') setIfMissing(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec['type'] === 'LoadBalancer') {
    setIfMissing(spec, 'allocateLoadBalancerNodePorts', true);
    const status = o['status'];
    const lb = isObject(status) ? status['loadBalancer'] : undefined;
    for (const ingress of objects(isObject(lb) ? lb['ingress'] : undefined)) {
      if (typeof ingress['ip'] === 'string' && ingress['ip'] !== '') setIfMissing(ingress, 'ipMode', 'VIP');
    }
  }
}

/** SetDefaults_Namespace (the name label) and SetDefaults_NamespaceStatus */
function namespace(o: JsonObject): void {
  const metadata = structField(o, 'metadata');
  const name = metadata['name'];
  if (typeof name === 'string' && name !== '') {
    const labels = isObject(metadata['labels']) ? metadata['labels'] : {};
    write(labels, 'kubernetes.io/metadata.name', name);
    write(metadata, 'labels', labels);
  }
  setIfMissing(structField(o, 'status'), 'phase', 'Active', '');
}

const defaulters: Readonly<Record<string, (o: JsonObject) => void>> = {
  'v1 Pod': pod,
  'v1 PodTemplate': (o) => podTemplate(structField(o, 'template')),
  'v1 Service': service,
  'v1 Secret': (o) => setIfMissing(o, 'type', 'Opaque', ''),
  'v1 Namespace': namespace,
  'v1 PersistentVolumeClaim': persistentVolumeClaim,
  'apps/v1 Deployment': deployment,
  'apps/v1 StatefulSet': statefulSet,
  'apps/v1 DaemonSet': daemonSet,
  'apps/v1 ReplicaSet': replicaSet,
  'batch/v1 Job': job,
  'batch/v1 CronJob': cronJob,
  'autoscaling/v1 HorizontalPodAutoscaler': horizontalPodAutoscalerV1,
  'autoscaling/v2 HorizontalPodAutoscaler': horizontalPodAutoscalerV2,
  'v1 ReplicationController': replicationController,
  'v1 Endpoints': endpoints,
  'v1 LimitRange': limitRange,
  'v1 Node': node,
  'v1 PersistentVolume': persistentVolume,
  'networking.k8s.io/v1 NetworkPolicy': networkPolicy,
  'networking.k8s.io/v1 IngressClass': ingressClass,
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': roleBinding,
  'rbac.authorization.k8s.io/v1 RoleBinding': roleBinding,
  'discovery.k8s.io/v1 EndpointSlice': endpointSlice,
  'scheduling.k8s.io/v1 PriorityClass': priorityClass,
  'storage.k8s.io/v1 StorageClass': storageClass,
  'storage.k8s.io/v1 CSIDriver': csiDriver,
  'storage.k8s.io/v1 VolumeAttachment': volumeAttachment,
  'flowcontrol.apiserver.k8s.io/v1 FlowSchema': flowSchema,
  'flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration': priorityLevelConfiguration,
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': admissionPolicy,
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicy': admissionPolicy,
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': admissionPolicyBinding,
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding': admissionPolicyBinding,
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration': validatingWebhookConfiguration,
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration': mutatingWebhookConfiguration,
  'resource.k8s.io/v1 ResourceClaim': resourceClaim,
  'resource.k8s.io/v1 ResourceClaimTemplate': resourceClaimTemplate,
  'resource.k8s.io/v1 ResourceSlice': resourceSlice,
  'authentication.k8s.io/v1 TokenRequest': tokenRequest,
};

/** The kinds defaultObject knows, as `apiVersion kind`. */
export const defaultedKinds = (): string[] => Object.keys(defaulters);

/** Whether defaultObject knows the kind. */
export function hasDefaulter(kind: DefaultedKind): boolean {
  return `${kind.apiVersion} ${kind.kind}` in defaulters;
}

/** One container pair share() is working on: the values it settled so far, and whether all were the original's. */
interface ShareFrame {
  readonly original: Record<string, unknown> | unknown[];
  readonly defaulted: Record<string, unknown> | unknown[];
  /** the defaulted object's keys; undefined for arrays */
  readonly keys: readonly string[] | undefined;
  readonly values: unknown[];
  next: number;
  same: boolean;
}

function shareFrame(original: object, defaulted: object): ShareFrame {
  if (Array.isArray(original)) {
    const d = defaulted as unknown[];
    return { original, defaulted: d, keys: undefined, values: new Array<unknown>(d.length), next: 0, same: d.length === original.length };
  }
  const keys = Object.keys(defaulted);
  return {
    original: original as Record<string, unknown>, defaulted: defaulted as Record<string, unknown>, keys,
    values: new Array<unknown>(keys.length), next: 0, same: keys.length === Object.keys(original).length,
  };
}

/** share() of a pair that needs no walking (identical, scalars, or of different kinds), else undefined. */
function shareAtOnce(original: unknown, defaulted: unknown): { value: unknown } | undefined {
  if (original === defaulted) return { value: original };
  if (typeof original !== 'object' || original === null || typeof defaulted !== 'object' || defaulted === null) return { value: defaulted };
  if (Array.isArray(original) !== Array.isArray(defaulted)) return { value: defaulted };
  return undefined;
}

/**
 * `defaulted` with every subtree equal to `original`'s replaced by the original one: the result shares all that
 * defaulting left alone (later evaluations convert only what changed to CEL values, keyed by subtree identity).
 * Walked with an explicit stack, for objects of any depth.
 */
/** An own element or property of an array or object, else undefined. */
function ownAt(container: object, key: string | number): unknown {
  return Object.hasOwn(container, key) ? (container as Record<string | number, unknown>)[key] : undefined;
}

function share(original: unknown, defaulted: unknown): unknown {
  const atOnce = shareAtOnce(original, defaulted);
  if (atOnce !== undefined) return atOnce.value;
  const stack: ShareFrame[] = [shareFrame(original as object, defaulted as object)];
  const settle = (f: ShareFrame, value: unknown): void => {
    const key = f.keys === undefined ? f.next : f.keys[f.next]!;
    const o = ownAt(f.original, key);
    f.values[f.next++] = value;
    if (value !== o || (f.keys !== undefined && o === undefined && !Object.hasOwn(f.original, key))) f.same = false;
  };
  for (;;) {
    const f = stack[stack.length - 1]!;
    const count = f.keys === undefined ? f.values.length : f.keys.length;
    if (f.next < count) {
      const key = f.keys === undefined ? f.next : f.keys[f.next]!;
      const o = ownAt(f.original, key);
      const d = ownAt(f.defaulted, key);
      const settled = shareAtOnce(o, d);
      if (settled === undefined) stack.push(shareFrame(o as object, d as object));
      else settle(f, settled.value);
      continue;
    }
    stack.pop();
    let value: unknown = f.original;
    if (!f.same && f.keys === undefined) value = f.values;
    else if (!f.same) {
      const out: Record<string, unknown> = {};
      f.keys!.forEach((k, i) => setOwn(out, k, f.values[i]));
      value = out;
    }
    if (stack.length === 0) return value;
    settle(stack[stack.length - 1]!, value);
  }
}

/**
 * The object with the scheme's defaults applied (`object` is never modified). The same value when nothing was
 * defaulted or the kind has no defaulter here; otherwise a new object sharing every part defaulting left alone.
 */
export function defaultObject(object: unknown, kind: DefaultedKind, memo?: DefaultedParts): unknown {
  const defaulter = defaulters[`${kind.apiVersion} ${kind.kind}`];
  if (defaulter === undefined || !isObject(object)) return object;
  if (!wouldChange(defaulter, object, memo)) return object;
  if (memo !== undefined) {
    // the parts proved to need nothing stay shared with the original: the copy is the rest
    const kept = (o: object): boolean => memo.any.has(o);
    const copy = copyJson(object, { keep: kept }) as JsonObject;
    try {
      defaultInPlace(defaulter, copy, memo, kept);
      return share(object, copy);
    } catch (err) {
      if (err !== uncopiedPartWritten) throw err;
    }
  }
  const copy = cloneJson(object) as JsonObject;
  defaulter(copy);
  return share(object, copy);
}

