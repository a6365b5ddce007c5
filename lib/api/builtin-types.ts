// The built-in types a test case may name by kind alone: group, served versions, resource, scope and the
// subresources kube-apiserver 1.36 serves for them, with the kind each subresource's requests carry (for example
// deployments/scale → autoscaling/v1 Scale, pods/exec → v1 PodExecOptions), as kubernetes/pkg/registry/<group>/rest
// installs their storage (GA versions only). Kinds outside the table — custom resources, aggregated APIs, beta
// versions — are named with an explicit `resource:` in the case.

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface BuiltinType {
  readonly group: string;
  readonly versions: readonly string[];
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
  /** subresource → the kind its requests carry (the parent's own kind when null) */
  readonly subresources: Readonly<Record<string, GroupVersionKind | null>>;
}

const scale: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };
const core = (kind: string): GroupVersionKind => ({ group: '', version: 'v1', kind });
const status = { status: null } as const;

type Row = readonly [group: string, versions: string, kind: string, resource: string, namespaced: boolean, subresources?: Record<string, GroupVersionKind | null>];

const rows: readonly Row[] = [
  ['', 'v1', 'Binding', 'bindings', true],
  ['', 'v1', 'ComponentStatus', 'componentstatuses', false],
  ['', 'v1', 'ConfigMap', 'configmaps', true],
  ['', 'v1', 'Endpoints', 'endpoints', true],
  ['', 'v1', 'Event', 'events', true],
  ['', 'v1', 'LimitRange', 'limitranges', true],
  ['', 'v1', 'Namespace', 'namespaces', false, { status: null, finalize: null }],
  ['', 'v1', 'Node', 'nodes', false, { status: null, proxy: core('NodeProxyOptions') }],
  ['', 'v1', 'PersistentVolume', 'persistentvolumes', false, status],
  ['', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, status],
  ['', 'v1', 'Pod', 'pods', true, {
    status: null,
    ephemeralcontainers: null,
    resize: null,
    binding: core('Binding'),
    eviction: { group: 'policy', version: 'v1', kind: 'Eviction' },
    exec: core('PodExecOptions'),
    attach: core('PodAttachOptions'),
    portforward: core('PodPortForwardOptions'),
    proxy: core('PodProxyOptions'),
  }],
  ['', 'v1', 'PodTemplate', 'podtemplates', true],
  ['', 'v1', 'ReplicationController', 'replicationcontrollers', true, { status: null, scale }],
  ['', 'v1', 'ResourceQuota', 'resourcequotas', true, status],
  ['', 'v1', 'Secret', 'secrets', true],
  ['', 'v1', 'Service', 'services', true, { status: null, proxy: core('ServiceProxyOptions') }],
  ['', 'v1', 'ServiceAccount', 'serviceaccounts', true, { token: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' } }],
  ['admissionregistration.k8s.io', 'v1', 'MutatingAdmissionPolicy', 'mutatingadmissionpolicies', false],
  ['admissionregistration.k8s.io', 'v1', 'MutatingAdmissionPolicyBinding', 'mutatingadmissionpolicybindings', false],
  ['admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false, status],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false],
  ['admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', false, status],
  ['apiregistration.k8s.io', 'v1', 'APIService', 'apiservices', false, status],
  ['apps', 'v1', 'ControllerRevision', 'controllerrevisions', true],
  ['apps', 'v1', 'DaemonSet', 'daemonsets', true, status],
  ['apps', 'v1', 'Deployment', 'deployments', true, { status: null, scale }],
  ['apps', 'v1', 'ReplicaSet', 'replicasets', true, { status: null, scale }],
  ['apps', 'v1', 'StatefulSet', 'statefulsets', true, { status: null, scale }],
  ['authentication.k8s.io', 'v1', 'SelfSubjectReview', 'selfsubjectreviews', false],
  ['authentication.k8s.io', 'v1', 'TokenReview', 'tokenreviews', false],
  ['authorization.k8s.io', 'v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true],
  ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false],
  ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false],
  ['authorization.k8s.io', 'v1', 'SubjectAccessReview', 'subjectaccessreviews', false],
  ['autoscaling', 'v1,v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, status],
  ['batch', 'v1', 'CronJob', 'cronjobs', true, status],
  ['batch', 'v1', 'Job', 'jobs', true, status],
  ['certificates.k8s.io', 'v1', 'CertificateSigningRequest', 'certificatesigningrequests', false, { status: null, approval: null }],
  ['coordination.k8s.io', 'v1', 'Lease', 'leases', true],
  ['discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', true],
  ['events.k8s.io', 'v1', 'Event', 'events', true],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'FlowSchema', 'flowschemas', false, status],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'PriorityLevelConfiguration', 'prioritylevelconfigurations', false, status],
  ['networking.k8s.io', 'v1', 'IPAddress', 'ipaddresses', false],
  ['networking.k8s.io', 'v1', 'Ingress', 'ingresses', true, status],
  ['networking.k8s.io', 'v1', 'IngressClass', 'ingressclasses', false],
  ['networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies', true],
  ['networking.k8s.io', 'v1', 'ServiceCIDR', 'servicecidrs', false, status],
  ['node.k8s.io', 'v1', 'RuntimeClass', 'runtimeclasses', false],
  ['policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, status],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true],
  ['resource.k8s.io', 'v1', 'DeviceClass', 'deviceclasses', false],
  ['resource.k8s.io', 'v1', 'ResourceClaim', 'resourceclaims', true, status],
  ['resource.k8s.io', 'v1', 'ResourceClaimTemplate', 'resourceclaimtemplates', true],
  ['resource.k8s.io', 'v1', 'ResourceSlice', 'resourceslices', false],
  ['scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false],
  ['storage.k8s.io', 'v1', 'CSIDriver', 'csidrivers', false],
  ['storage.k8s.io', 'v1', 'CSINode', 'csinodes', false],
  ['storage.k8s.io', 'v1', 'CSIStorageCapacity', 'csistoragecapacities', true],
  ['storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false],
  ['storage.k8s.io', 'v1', 'VolumeAttachment', 'volumeattachments', false, status],
  ['storage.k8s.io', 'v1', 'VolumeAttributesClass', 'volumeattributesclasses', false],
];

export const builtinTypes: readonly BuiltinType[] = rows.map(([group, versions, kind, resource, namespaced, subresources]) => Object.freeze({
  group, versions: versions.split(','), kind, resource, namespaced, subresources: subresources ?? {},
}));

const byKind = new Map(builtinTypes.map((t) => [`${t.group}/${t.kind}`, t]));
const byResource = new Map(builtinTypes.map((t) => [`${t.group}/${t.resource}`, t]));

/** `group/version` as an apiVersion spells it (`v1` for the core group). */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Splits an apiVersion into group and version (`v1` → core). */
export function parseAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function builtinByKind(group: string, kind: string): BuiltinType | undefined {
  return byKind.get(`${group}/${kind}`);
}

export function builtinByResource(group: string, resource: string): BuiltinType | undefined {
  return byResource.get(`${group}/${resource}`);
}

/** Kinds whose objects have no ObjectMeta: the options a CONNECT request carries. */
export const connectOptionKinds: ReadonlySet<string> = new Set(['PodExecOptions', 'PodAttachOptions', 'PodPortForwardOptions', 'PodProxyOptions', 'NodeProxyOptions', 'ServiceProxyOptions']);
