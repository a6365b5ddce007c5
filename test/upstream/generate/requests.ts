// AdmissionReview requests built from what a real kube-apiserver sends (testdata/admission/apiserver-captures: a
// defaulted Pod and ConfigMap with managedFields, the operations' options), varied by seed: operation, namespace,
// labels, user, dry run, and the object's own fields. Deployments, Services, HorizontalPodAutoscalers, Events and a
// CRD-like Widget are shaped the same way (a Widget has no schema upstream: it is unstructured there). HPAs (autoscaling
// v2 and v1) and Events (v1 and events.k8s.io/v1) are the resources kube-apiserver 1.36 serves in more than one
// version: policies on them name either, so matchPolicy Equivalent and its conversions are compared too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rng } from './rng.js';
import { hpaV1ToV2, hpaV2ToV1 } from '../../../lib/admission/conversion/hpa.js';
import { repoRoot } from '../oracle.js';

export type JsonObject = { [key: string]: unknown };

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

export interface Family extends GroupVersion {
  readonly name: 'pods' | 'deployments' | 'configmaps' | 'services' | 'widgets' | 'hpas-v2' | 'hpas-v1' | 'events' | 'events-k8s';
  readonly kind: string;
  readonly resource: string;
  /** the other group-versions the apiserver serves the same resource in (its equivalents) */
  readonly equivalents?: readonly GroupVersion[];
}

export const families: readonly Family[] = [
  { name: 'pods', group: '', version: 'v1', kind: 'Pod', resource: 'pods' },
  { name: 'deployments', group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
  { name: 'configmaps', group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps' },
  { name: 'services', group: '', version: 'v1', kind: 'Service', resource: 'services' },
  { name: 'widgets', group: 'example.com', version: 'v1', kind: 'Widget', resource: 'widgets' },
  { name: 'hpas-v2', group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', equivalents: [{ group: 'autoscaling', version: 'v1' }] },
  { name: 'hpas-v1', group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', equivalents: [{ group: 'autoscaling', version: 'v2' }] },
  { name: 'events', group: '', version: 'v1', kind: 'Event', resource: 'events', equivalents: [{ group: 'events.k8s.io', version: 'v1' }] },
  { name: 'events-k8s', group: 'events.k8s.io', version: 'v1', kind: 'Event', resource: 'events', equivalents: [{ group: '', version: 'v1' }] },
];

export const namespaces = ['default', 'team-a', 'kube-system', 'prod'] as const;
export const labelKeys = ['team', 'app', 'env', 'owner'] as const;
export const labelValues = ['a', 'b', 'web', 'prod', 'x'] as const;

const captured = (file: string): JsonObject => {
  const review = JSON.parse(readFileSync(join(repoRoot, 'testdata/admission/apiserver-captures', file), 'utf8')) as { request: { object: JsonObject } };
  return review.request.object;
};

let bases: Record<Family['name'], JsonObject> | undefined;

function baseObjects(): Record<Family['name'], JsonObject> {
  bases ??= {
    pods: captured('007-validate-CREATE-Pod-p1.json'),
    configmaps: captured('002-validate-CREATE-ConfigMap-cm1.json'),
    deployments: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', uid: '5e0c1c52-0d0a-4d3e-9a52-2f7d3f1b9a10', generation: 1, creationTimestamp: '2026-11-21T18:20:18Z', labels: { app: 'web' } },
      spec: {
        replicas: 3, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'default-scheduler' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10, progressDeadlineSeconds: 600,
      },
      status: {},
    },
    services: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'web', namespace: 'default', uid: '9b1e6c1a-3f0e-4a55-8d1c-0c2b1d4e5f60', creationTimestamp: '2026-11-21T18:20:18Z', labels: { app: 'web' } },
      spec: {
        ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'web' },
        clusterIP: '10.96.12.34', clusterIPs: ['10.96.12.34'], type: 'ClusterIP', sessionAffinity: 'None',
        ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster',
      },
      status: { loadBalancer: {} },
    },
    widgets: {
      apiVersion: 'example.com/v1', kind: 'Widget',
      metadata: { name: 'w1', namespace: 'default', uid: '0d3f1b9a-5e0c-4c52-9a52-2f7d3f1b9a11', generation: 1, creationTimestamp: '2026-11-21T18:20:18Z', labels: { app: 'widget' } },
      spec: { size: 3, color: 'blue', parts: [{ name: 'a', count: 1 }, { name: 'b', count: 2 }], settings: { mode: 'fast' } },
    },
    // as the apiserver encodes them from their Go types: zero-valued fields without omitempty are there
    'hpas-v2': {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default', uid: '3c1d9e2f-7a4b-4c8d-9e0f-1a2b3c4d5e60', creationTimestamp: '2026-11-21T18:20:18Z', labels: { app: 'web' } },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }],
      },
      status: { desiredReplicas: 0, currentMetrics: null },
    },
    'hpas-v1': {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default', uid: '3c1d9e2f-7a4b-4c8d-9e0f-1a2b3c4d5e61', creationTimestamp: '2026-11-21T18:20:18Z', labels: { app: 'web' } },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    },
    events: {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default', uid: '4d2e0f3a-8b5c-4d9e-8f1a-2b3c4d5e6f70', creationTimestamp: '2026-11-21T18:20:18Z' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: '5e0c1c52-0d0a-4d3e-9a52-2f7d3f1b9a10', apiVersion: 'v1' },
      reason: 'Started', message: 'Started container web', source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-11-21T18:20:18Z', lastTimestamp: '2026-11-21T18:20:18Z', count: 1, type: 'Normal', eventTime: null,
      reportingComponent: 'kubelet', reportingInstance: 'node-1',
    },
    'events-k8s': {
      apiVersion: 'events.k8s.io/v1', kind: 'Event',
      metadata: { name: 'web.2', namespace: 'default', uid: '4d2e0f3a-8b5c-4d9e-8f1a-2b3c4d5e6f71', creationTimestamp: '2026-11-21T18:20:18Z' },
      eventTime: '2026-11-21T18:20:18.123456Z', reportingController: 'example.com/scaler', reportingInstance: 'scaler-1',
      action: 'Scale', reason: 'ScaledUp', regarding: { kind: 'Deployment', namespace: 'default', name: 'web', apiVersion: 'apps/v1' },
      note: 'scaled up to 3', type: 'Normal', deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
    },
  };
  return bases;
}

const clone = <T>(v: T): T => structuredClone(v);

const users = [
  { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] },
  { username: 'alice', groups: ['developers', 'system:authenticated'] },
  { username: 'system:serviceaccount:kube-system:replicaset-controller', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] },
  { username: 'bob' },
] as const;

const names = ['p1', 'web', 'cm1', 'skip', 'a-very-long-name-for-a-resource', 'x'];

/** A variation of the family's object: name, namespace, labels and a few fields of its own. */
export function objectOf(rng: Rng, family: Family, namespace: string, name: string): JsonObject {
  const o = clone(baseObjects()[family.name]);
  const meta = o['metadata'] as JsonObject;
  meta['name'] = name;
  meta['namespace'] = namespace;
  if (rng.chance(0.15)) delete meta['labels'];
  else {
    const labels: JsonObject = {};
    for (const k of rng.some(labelKeys, 0, 3)) labels[k] = rng.pick(labelValues);
    // an empty map is never sent: the apiserver encodes built-in objects from Go structs (omitempty)
    if (Object.keys(labels).length > 0) meta['labels'] = labels;
    else delete meta['labels'];
  }
  if (rng.chance(0.3)) meta['annotations'] = { note: rng.pick(['n', 'keep', '']) };
  const spec = o['spec'] as JsonObject | undefined;
  switch (family.name) {
    case 'pods': {
      const containers = (spec!['containers'] as JsonObject[]);
      containers[0]!['image'] = rng.pick(['registry.example/none:1', 'nginx:latest', 'nginx', 'busybox:1.36']);
      if (rng.chance(0.3)) containers[0]!['securityContext'] = { privileged: rng.chance(0.5) };
      if (rng.chance(0.3)) containers.push({ ...clone(containers[0]!), name: 'sidecar', image: 'envoy:1.30' });
      if (rng.chance(0.2)) spec!['hostNetwork'] = true;
      if (rng.chance(0.3)) containers[0]!['resources'] = { limits: { memory: rng.pick(['64Mi', '1Gi', '3Gi']), cpu: rng.pick(['100m', '2']) } };
      break;
    }
    case 'deployments':
      spec!['replicas'] = rng.pick([0, 1, 3, 10, 50]);
      break;
    case 'configmaps':
      if (rng.chance(0.2)) delete o['data'];
      else o['data'] = Object.fromEntries(rng.some(['a', 'b', 'config.yaml', 'key'], 1, 3).map((k) => [k, rng.pick(['1', 'value', 'x'.repeat(120)])]));
      break;
    case 'services':
      spec!['type'] = rng.pick(['ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer']);
      (spec!['ports'] as JsonObject[])[0]!['port'] = rng.pick([80, 443, 8080]);
      break;
    case 'hpas-v2':
    case 'hpas-v1':
      spec!['maxReplicas'] = rng.pick([3, 5, 20]);
      if (rng.chance(0.3)) delete spec!['minReplicas'];
      if (family.name === 'hpas-v1') {
        if (rng.chance(0.3)) delete spec!['targetCPUUtilizationPercentage'];
        else spec!['targetCPUUtilizationPercentage'] = rng.pick([50, 80]);
        // as the apiserver sends it: the v1 view of its internal object, where a v1 HPA without a CPU target got the
        // implicit 80% when it was decoded (pkg/apis/autoscaling/v1/conversion.go); v2 is the internal type
        return hpaV2ToV1(hpaV1ToV2(o));
      } else if (rng.chance(0.4)) {
        // a metric v1 has no field for travels in an annotation there (pkg/apis/autoscaling/v1/conversion.go)
        (spec!['metrics'] as JsonObject[]).push({ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } });
      }
      break;
    case 'events':
    case 'events-k8s':
      o['type'] = rng.pick(['Normal', 'Warning']);
      o['reason'] = rng.pick(['Started', 'Killing', 'ScaledUp']);
      if (family.name === 'events' && rng.chance(0.3)) o['count'] = rng.pick([2, 40]);
      break;
    case 'widgets':
      if (rng.chance(0.2)) delete o['spec'];
      else {
        spec!['size'] = rng.pick([1, 3, 12]);
        if (rng.chance(0.3)) delete spec!['color'];
      }
      break;
  }
  return o;
}

export interface Review {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request: JsonObject;
}

/** One request on `family`, its operation, user and objects chosen by `rng`. */
export function reviewOf(rng: Rng, family: Family, operations: readonly string[] = ['CREATE', 'UPDATE', 'DELETE']): Review {
  const operation = rng.pick(operations);
  const namespace = rng.pick(namespaces);
  const name = rng.pick(names);
  const object = operation === 'DELETE' ? null : objectOf(rng, family, namespace, name);
  let oldObject: JsonObject | null = null;
  if (operation !== 'CREATE') {
    oldObject = object === null ? objectOf(rng, family, namespace, name) : clone(object);
    if (object !== null && rng.chance(0.5)) {
      const meta = oldObject['metadata'] as JsonObject;
      meta['labels'] = { team: rng.pick(labelValues) };
    }
  }
  const options = operation === 'CREATE'
    ? { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-create' }
    : operation === 'UPDATE' ? { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-edit' }
      : { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' };
  const gvk = { group: family.group, version: family.version, kind: family.kind };
  const gvr = { group: family.group, version: family.version, resource: family.resource };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `00000000-0000-4000-8000-${String(rng.int(0, 999999999999)).padStart(12, '0')}`,
      kind: gvk, resource: gvr, requestKind: gvk, requestResource: gvr,
      name, namespace, operation,
      userInfo: clone(rng.pick(users)),
      object, oldObject,
      dryRun: rng.chance(0.1),
      options,
    },
  };
}
