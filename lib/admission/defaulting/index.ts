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
import { Draft, isObject, withParts } from './object.js';
import type { DefaultedParts } from './object.js';
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
import { mutatingAdmissionPolicy, mutatingAdmissionPolicyBinding, mutatingWebhookConfiguration, validatingAdmissionPolicy, validatingAdmissionPolicyBinding, validatingWebhookConfiguration } from './admissionregistration.js';
import { resourceClaim, resourceClaimTemplate, resourceSlice } from './resource.js';
import { tokenRequest } from './authentication.js';

export interface DefaultedKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** SetDefaults_Deployment */
function deployment(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('replicas', 1);
  const strategy = spec.structField('strategy');
  strategy.setIfMissing('type', 'RollingUpdate', '');
  if (strategy.get('type') === 'RollingUpdate') {
    const rollingUpdate = strategy.structField('rollingUpdate');
    rollingUpdate.setIfMissing('maxUnavailable', '25%');
    rollingUpdate.setIfMissing('maxSurge', '25%');
  }
  spec.setIfMissing('revisionHistoryLimit', 10);
  spec.setIfMissing('progressDeadlineSeconds', 600);
  podTemplate(spec.structField('template'));
}

/** SetDefaults_DaemonSet */
function daemonSet(o: Draft): void {
  const spec = o.structField('spec');
  const strategy = spec.structField('updateStrategy');
  strategy.setIfMissing('type', 'RollingUpdate', '');
  if (strategy.get('type') === 'RollingUpdate') {
    const rollingUpdate = strategy.structField('rollingUpdate');
    rollingUpdate.setIfMissing('maxUnavailable', 1);
    rollingUpdate.setIfMissing('maxSurge', 0);
  }
  spec.setIfMissing('revisionHistoryLimit', 10);
  podTemplate(spec.structField('template'));
}

/** SetDefaults_PersistentVolumeClaim and the PVC spec's */
function persistentVolumeClaim(o: Draft): void {
  o.structField('status').setIfMissing('phase', 'Pending', '');
  claimSpec(o.structField('spec'));
}

/** SetDefaults_StatefulSet (StatefulSetAutoDeletePVC is GA: the retention policy is defaulted) */
function statefulSet(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('podManagementPolicy', 'OrderedReady', '');
  const strategy = spec.structField('updateStrategy');
  const type = strategy.get('type');
  if (type === undefined || type === null || type === '') {
    strategy.write('type', 'RollingUpdate');
    strategy.setIfMissing('rollingUpdate', {});
  }
  if (strategy.get('type') === 'RollingUpdate') strategy.object('rollingUpdate')?.setIfMissing('partition', 0);
  const retention = spec.structField('persistentVolumeClaimRetentionPolicy');
  retention.setIfMissing('whenDeleted', 'Retain', '');
  retention.setIfMissing('whenScaled', 'Retain', '');
  spec.setIfMissing('replicas', 1);
  spec.setIfMissing('revisionHistoryLimit', 10);
  podTemplate(spec.structField('template'));
  for (const claim of spec.objects('volumeClaimTemplates')) persistentVolumeClaim(claim);
}

/** SetDefaults_ReplicaSet */
function replicaSet(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('replicas', 1);
  podTemplate(spec.structField('template'));
}

/** A JobSpec's nested defaults: SetDefaults_PodFailurePolicyOnPodConditionsPattern and the pod template. */
function jobSpec(spec: Draft): void {
  const policy = spec.object('podFailurePolicy');
  if (policy !== undefined) {
    for (const rule of policy.objects('rules')) for (const p of rule.objects('onPodConditions')) p.setIfMissing('status', 'True', '');
  }
  podTemplate(spec.structField('template'));
}

/** SetDefaults_Job (JobPodReplacementPolicy is GA) */
function job(o: Draft): void {
  const spec = o.structField('spec');
  const unset = (k: string): boolean => spec.get(k) === undefined || spec.get(k) === null;
  if (unset('completions') && unset('parallelism')) {
    spec.write('completions', 1);
    spec.write('parallelism', 1);
  }
  spec.setIfMissing('parallelism', 1);
  if (unset('backoffLimit')) spec.write('backoffLimit', unset('backoffLimitPerIndex') ? 6 : 2147483647);
  const labels = spec.object('template')?.object('metadata')?.get('labels');
  const metadata = o.structField('metadata');
  const own = metadata.get('labels');
  if (isObject(labels) && !(isObject(own) && Object.keys(own).length > 0)) metadata.write('labels', { ...labels });
  spec.setIfMissing('completionMode', 'NonIndexed');
  spec.setIfMissing('suspend', false);
  spec.setIfMissing('podReplacementPolicy', isObject(spec.get('podFailurePolicy')) ? 'Failed' : 'TerminatingOrFailed');
  spec.setIfMissing('manualSelector', false);
  jobSpec(spec);
}

/** SetDefaults_CronJob (the job template's JobSpec gets only its nested defaults: SetDefaults_Job is for Jobs) */
function cronJob(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('concurrencyPolicy', 'Allow', '');
  spec.setIfMissing('suspend', false);
  spec.setIfMissing('successfulJobsHistoryLimit', 3);
  spec.setIfMissing('failedJobsHistoryLimit', 1);
  jobSpec(spec.structField('jobTemplate').structField('spec'));
}

/** service.ExternallyAccessible */
function externallyAccessible(spec: Draft): boolean {
  const type = spec.get('type');
  const externalIPs = spec.get('externalIPs');
  return type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && Array.isArray(externalIPs) && externalIPs.length > 0);
}

/** SetDefaults_Service (ServicePort.protocol is also +default="TCP") */
function service(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('sessionAffinity', 'None', '');
  if (spec.get('sessionAffinity') === 'None') spec.remove('sessionAffinityConfig');
  if (spec.get('sessionAffinity') === 'ClientIP') {
    const clientIP = spec.object('sessionAffinityConfig')?.get('clientIP');
    if (!isObject(clientIP) || clientIP['timeoutSeconds'] === undefined || clientIP['timeoutSeconds'] === null) {
      // DefaultClientIPServiceAffinitySeconds: three hours
      spec.write('sessionAffinityConfig', { clientIP: { timeoutSeconds: 10800 } });
    }
  }
  spec.setIfMissing('type', 'ClusterIP', '');
  for (const port of spec.objects('ports')) {
    port.setIfMissing('protocol', 'TCP', '');
    const target = port.get('targetPort');
    if (target === undefined || target === null || target === 0 || target === '') port.write('targetPort', typeof port.get('port') === 'number' ? port.get('port') : 0);
  }
  if (externallyAccessible(spec)) spec.setIfMissing('externalTrafficPolicy', 'Cluster', '');
  const type = spec.get('type');
  if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') spec.setIfMissing('internalTrafficPolicy', 'Cluster');
  if (type === 'LoadBalancer') {
    spec.setIfMissing('allocateLoadBalancerNodePorts', true);
    const ingresses = o.object('status')?.object('loadBalancer')?.objects('ingress') ?? [];
    for (const ingress of ingresses) {
      const ip = ingress.get('ip');
      if (typeof ip === 'string' && ip !== '') ingress.setIfMissing('ipMode', 'VIP');
    }
  }
}

/** SetDefaults_Namespace (the name label) and SetDefaults_NamespaceStatus */
function namespace(o: Draft): void {
  const metadata = o.structField('metadata');
  const name = metadata.get('name');
  if (typeof name === 'string' && name !== '') {
    const labels = metadata.object('labels');
    if (labels !== undefined) labels.write('kubernetes.io/metadata.name', name);
    else metadata.write('labels', { 'kubernetes.io/metadata.name': name });
  }
  o.structField('status').setIfMissing('phase', 'Active', '');
}

const defaulters: Readonly<Record<string, (o: Draft) => void>> = {
  'v1 Pod': pod,
  'v1 PodTemplate': (o) => podTemplate(o.structField('template')),
  'v1 Service': service,
  'v1 Secret': (o) => o.setIfMissing('type', 'Opaque', ''),
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
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': validatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicy': mutatingAdmissionPolicy,
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': validatingAdmissionPolicyBinding,
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding': mutatingAdmissionPolicyBinding,
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration': validatingWebhookConfiguration,
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration': mutatingWebhookConfiguration,
  'resource.k8s.io/v1 ResourceClaim': resourceClaim,
  'resource.k8s.io/v1 ResourceClaimTemplate': resourceClaimTemplate,
  'resource.k8s.io/v1 ResourceSlice': resourceSlice,
  'authentication.k8s.io/v1 TokenRequest': tokenRequest,
};

/** The kinds defaultObject knows, as `apiVersion kind`. */
export const defaultedKinds = (): string[] => Object.keys(defaulters);


/**
 * The object with the scheme's defaults applied (`object` is never modified). The same value when nothing was
 * defaulted or the kind has no defaulter here; otherwise a new object sharing every part defaulting left alone (only
 * the maps and lists on the paths to what it wrote are new). `memo`: the request's parts proved to need nothing.
 */
export function defaultObject(object: unknown, kind: DefaultedKind, memo?: DefaultedParts): unknown {
  const defaulter = defaulters[`${kind.apiVersion} ${kind.kind}`];
  if (defaulter === undefined || !isObject(object)) return object;
  const root = new Draft(object);
  withParts(memo, () => defaulter(root));
  return root.value;
}
