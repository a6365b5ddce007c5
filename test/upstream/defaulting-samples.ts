// Minimal objects of every kind the daemon defaults (lib/admission/defaulting defaultedKinds), with the fields
// their defaulters fill left unset, for the differential defaulting suite (defaulting.test.ts). Also a few kinds
// whose upstream defaulter has nothing to do on such objects (quantity rounding only, or a nil map made empty).
export type JsonObject = Record<string, unknown>;

export interface DefaultingSample {
  /** the resource a request for it names */
  readonly resource: string;
  readonly subResource?: string;
  readonly objects: readonly JsonObject[];
}

const meta = (name: string, namespace?: string): JsonObject => (namespace === undefined ? { name } : { name, namespace });
const obj = (apiVersion: string, kind: string, namespace: string | undefined, body: JsonObject): JsonObject =>
  ({ apiVersion, kind, metadata: meta(kind.toLowerCase(), namespace), ...body });

const container = { name: 'app', image: 'registry.example/app:1' };
const podTemplate = { metadata: { labels: { app: 'a' } }, spec: { containers: [container] } };
const selector = { matchLabels: { app: 'a' } };
const scaleTargetRef = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
const webhook = (name: string): JsonObject => ({
  name, clientConfig: { service: { namespace: 'default', name: 'hook', port: 443 } }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'],
});
const devicesRequest = { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } };
const firstAvailable = { name: 'any', firstAvailable: [{ name: 'big', deviceClassName: 'gpu.example.com', tolerations: [{ key: 'k', effect: 'NoSchedule' }] }, { name: 'all', deviceClassName: 'gpu.example.com', allocationMode: 'All' }] };

/** By `apiVersion kind`, as defaultedKinds names them. */
export const defaultingSamples: Readonly<Record<string, DefaultingSample>> = {
  'v1 Pod': { resource: 'pods', objects: [obj('v1', 'Pod', 'default', { spec: { containers: [container] } })] },
  'v1 PodTemplate': { resource: 'podtemplates', objects: [obj('v1', 'PodTemplate', 'default', { template: podTemplate })] },
  'v1 Service': { resource: 'services', objects: [obj('v1', 'Service', 'default', { spec: { ports: [{ port: 80 }], selector: { app: 'a' } } })] },
  'v1 Secret': { resource: 'secrets', objects: [obj('v1', 'Secret', 'default', { data: { k: 'dg==' } })] },
  'v1 Namespace': { resource: 'namespaces', objects: [obj('v1', 'Namespace', undefined, {})] },
  'v1 PersistentVolumeClaim': { resource: 'persistentvolumeclaims', objects: [obj('v1', 'PersistentVolumeClaim', 'default', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } })] },
  'apps/v1 Deployment': { resource: 'deployments', objects: [obj('apps/v1', 'Deployment', 'default', { spec: { replicas: 2, selector, template: podTemplate } })] },
  'apps/v1 StatefulSet': { resource: 'statefulsets', objects: [obj('apps/v1', 'StatefulSet', 'default', { spec: { replicas: 2, selector, serviceName: 's', template: podTemplate } })] },
  'apps/v1 DaemonSet': {
    resource: 'daemonsets',
    // the annotation the apiserver writes converting its internal DaemonSet (templateGeneration) to apps/v1
    objects: [{ ...obj('apps/v1', 'DaemonSet', 'default', { spec: { selector, template: podTemplate } }), metadata: { name: 'ds', namespace: 'default', annotations: { 'deprecated.daemonset.template.generation': '1' } } }],
  },
  'apps/v1 ReplicaSet': { resource: 'replicasets', objects: [obj('apps/v1', 'ReplicaSet', 'default', { spec: { replicas: 2, selector, template: podTemplate } })] },
  'batch/v1 Job': { resource: 'jobs', objects: [obj('batch/v1', 'Job', 'default', { spec: { template: { ...podTemplate, spec: { ...podTemplate.spec, restartPolicy: 'Never' } } } })] },
  'batch/v1 CronJob': { resource: 'cronjobs', objects: [obj('batch/v1', 'CronJob', 'default', { spec: { schedule: '* * * * *', jobTemplate: { spec: { template: podTemplate } } } })] },
  'autoscaling/v1 HorizontalPodAutoscaler': {
    resource: 'horizontalpodautoscalers',
    objects: [
      obj('autoscaling/v1', 'HorizontalPodAutoscaler', 'default', { spec: { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 80 } }),
      obj('autoscaling/v1', 'HorizontalPodAutoscaler', 'default', { spec: { scaleTargetRef, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 } }),
    ],
  },
  'autoscaling/v2 HorizontalPodAutoscaler': {
    resource: 'horizontalpodautoscalers',
    objects: [
      obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', { spec: { scaleTargetRef, maxReplicas: 5 } }),
      obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', { spec: { scaleTargetRef, maxReplicas: 5, metrics: [], behavior: { scaleDown: { stabilizationWindowSeconds: 300, tolerance: '50m' } } } }),
      obj('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', { spec: { scaleTargetRef, minReplicas: 3, maxReplicas: 5, behavior: { scaleUp: { selectPolicy: 'Disabled', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } } } }),
    ],
  },
  'v1 ReplicationController': {
    resource: 'replicationcontrollers',
    objects: [
      obj('v1', 'ReplicationController', 'default', { spec: { template: podTemplate } }),
      { ...obj('v1', 'ReplicationController', 'default', { spec: { replicas: 0, selector: { app: 'a', tier: 'x' }, template: { ...podTemplate, metadata: { labels: { app: 'a', tier: 'x' } } } } }), metadata: { name: 'rc', namespace: 'default', labels: { own: 'yes' } } },
    ],
  },
  'v1 Endpoints': { resource: 'endpoints', objects: [obj('v1', 'Endpoints', 'default', { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }] })] },
  'v1 LimitRange': {
    resource: 'limitranges',
    objects: [obj('v1', 'LimitRange', 'default', { spec: { limits: [
      { type: 'Container', max: { cpu: '2', memory: '1Gi' }, default: { memory: '512Mi' }, min: { cpu: '100m', 'ephemeral-storage': '1Gi' } },
      { type: 'Pod', max: { cpu: '4' } },
      { type: 'Container', min: { cpu: '50m' } },
    ] } })],
  },
  'v1 Node': { resource: 'nodes', objects: [obj('v1', 'Node', undefined, { spec: {}, status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' } } }), obj('v1', 'Node', undefined, { status: { capacity: { cpu: '4' }, allocatable: { cpu: '3500m' } } })] },
  'v1 PersistentVolume': {
    resource: 'persistentvolumes',
    objects: [
      obj('v1', 'PersistentVolume', undefined, { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } }),
      obj('v1', 'PersistentVolume', undefined, { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], azureDisk: { diskName: 'd', diskURI: 'https://d' } } }),
      obj('v1', 'PersistentVolume', undefined, { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block', rbd: { monitors: ['m'], image: 'i' } } }),
    ],
  },
  'networking.k8s.io/v1 NetworkPolicy': {
    resource: 'networkpolicies',
    objects: [
      obj('networking.k8s.io/v1', 'NetworkPolicy', 'default', { spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] } }),
      obj('networking.k8s.io/v1', 'NetworkPolicy', 'default', { spec: { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP' }, { port: 443 }] }] } }),
      obj('networking.k8s.io/v1', 'NetworkPolicy', 'default', { spec: { podSelector: {}, policyTypes: ['Egress'] } }),
    ],
  },
  'networking.k8s.io/v1 IngressClass': {
    resource: 'ingressclasses',
    objects: [obj('networking.k8s.io/v1', 'IngressClass', undefined, { spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' } } })],
  },
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': {
    resource: 'clusterrolebindings',
    objects: [obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', undefined, { roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's', namespace: 'default' }] })],
  },
  'rbac.authorization.k8s.io/v1 RoleBinding': {
    resource: 'rolebindings',
    objects: [obj('rbac.authorization.k8s.io/v1', 'RoleBinding', 'default', { roleRef: { kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] })],
  },
  'discovery.k8s.io/v1 EndpointSlice': {
    resource: 'endpointslices',
    objects: [obj('discovery.k8s.io/v1', 'EndpointSlice', 'default', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }, { name: 'dns', port: 53, protocol: 'UDP' }] })],
  },
  'scheduling.k8s.io/v1 PriorityClass': { resource: 'priorityclasses', objects: [obj('scheduling.k8s.io/v1', 'PriorityClass', undefined, { value: 1000 })] },
  'storage.k8s.io/v1 StorageClass': { resource: 'storageclasses', objects: [obj('storage.k8s.io/v1', 'StorageClass', undefined, { provisioner: 'example.com/disk' })] },
  'storage.k8s.io/v1 CSIDriver': { resource: 'csidrivers', objects: [obj('storage.k8s.io/v1', 'CSIDriver', undefined, { spec: {} })] },
  'storage.k8s.io/v1 VolumeAttachment': {
    resource: 'volumeattachments',
    objects: [
      obj('storage.k8s.io/v1', 'VolumeAttachment', undefined, { spec: { attacher: 'example.com/disk', nodeName: 'n', source: { persistentVolumeName: 'pv' } } }),
      obj('storage.k8s.io/v1', 'VolumeAttachment', undefined, { spec: { attacher: 'example.com/disk', nodeName: 'n', source: { inlineVolumeSpec: { capacity: { storage: '1Gi' }, scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' } } } } } }),
    ],
  },
  'flowcontrol.apiserver.k8s.io/v1 FlowSchema': { resource: 'flowschemas', objects: [obj('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema', undefined, { spec: { priorityLevelConfiguration: { name: 'p' } } })] },
  'flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration': {
    resource: 'prioritylevelconfigurations',
    objects: [
      obj('flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', undefined, { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: {} } } } }),
      obj('flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', undefined, { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } }),
      obj('flowcontrol.apiserver.k8s.io/v1', 'PriorityLevelConfiguration', undefined, { spec: { type: 'Exempt', exempt: {} } }),
    ],
  },
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': {
    resource: 'validatingadmissionpolicies',
    objects: [obj('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy', undefined, { spec: { matchConstraints: { resourceRules: [rule], excludeResourceRules: [rule] }, validations: [{ expression: 'true' }] } })],
  },
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': {
    resource: 'validatingadmissionpolicybindings',
    objects: [
      obj('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', undefined, { spec: { policyName: 'p', validationActions: ['Deny'], matchResources: { resourceRules: [rule] } } }),
      obj('admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding', undefined, { spec: { policyName: 'p', validationActions: ['Deny'] } }),
    ],
  },
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicy': {
    resource: 'mutatingadmissionpolicies',
    objects: [obj('admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicy', undefined, { spec: { matchConstraints: { resourceRules: [rule] }, reinvocationPolicy: 'Never', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] } })],
  },
  'admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding': {
    resource: 'mutatingadmissionpolicybindings',
    objects: [obj('admissionregistration.k8s.io/v1', 'MutatingAdmissionPolicyBinding', undefined, { spec: { policyName: 'p', matchResources: { namespaceSelector: { matchLabels: { a: 'b' } } } } })],
  },
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration': {
    resource: 'validatingwebhookconfigurations',
    objects: [obj('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', undefined, { webhooks: [webhook('a.example.com'), { ...webhook('b.example.com'), clientConfig: { url: 'https://hook.example.com/' }, timeoutSeconds: 5 }] })],
  },
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration': {
    resource: 'mutatingwebhookconfigurations',
    objects: [obj('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', undefined, { webhooks: [webhook('a.example.com')] })],
  },
  'resource.k8s.io/v1 ResourceClaim': {
    resource: 'resourceclaims',
    objects: [obj('resource.k8s.io/v1', 'ResourceClaim', 'default', { spec: { devices: { requests: [devicesRequest, firstAvailable] } } })],
  },
  'resource.k8s.io/v1 ResourceClaimTemplate': {
    resource: 'resourceclaimtemplates',
    objects: [obj('resource.k8s.io/v1', 'ResourceClaimTemplate', 'default', { spec: { spec: { devices: { requests: [devicesRequest, firstAvailable] } } } })],
  },
  'resource.k8s.io/v1 ResourceSlice': {
    resource: 'resourceslices',
    // a taint's timeAdded is set: its default is the clock's (SetDefaults_DeviceTaint), not decidable here
    objects: [obj('resource.k8s.io/v1', 'ResourceSlice', undefined, { spec: { driver: 'gpu.example.com', pool: { name: 'p', generation: 1, resourceSliceCount: 1 }, nodeName: 'n', devices: [{ name: 'd0', taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-11-27T20:00:00Z' }], nodeAllocatableResourceMappings: { cpu: { capacityKey: 'cores' } } }] } })],
  },
  'authentication.k8s.io/v1 TokenRequest': {
    resource: 'serviceaccounts', subResource: 'token',
    // its one default (an hour) is not observable here: the oracle decodes through the internal type, where an
    // absent expirationSeconds is 0 before defaulting (and a real request has it from the apiserver's decoding)
    objects: [{ ...obj('authentication.k8s.io/v1', 'TokenRequest', 'default', { spec: { audiences: ['api'], expirationSeconds: 600 } }), metadata: { name: 'default', namespace: 'default' } }],
  },
};

/** Kinds whose upstream defaulter leaves such objects as they are: no entry in the daemon's table is right. */
export const undefaultedSamples: Readonly<Record<string, DefaultingSample>> = {
  'v1 ConfigMap': { resource: 'configmaps', objects: [obj('v1', 'ConfigMap', 'default', { data: { k: 'v' } })] },
  'v1 ResourceQuota': { resource: 'resourcequotas', objects: [obj('v1', 'ResourceQuota', 'default', { spec: { hard: { pods: '10', 'requests.cpu': '4' } } })] },
};
