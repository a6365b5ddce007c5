// The scheme's defaulting of the core, apps and batch kinds (1.36, default feature gates), and that the
// MutatingAdmissionPolicy plugin runs it after every mutation as upstream's dispatcher does
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/dispatcher.go dispatchOne:
// o.GetObjectDefaulter().Default). Defaults: kubernetes pkg/apis/core/v1/defaults.go, pkg/apis/apps/v1/defaults.go,
// pkg/apis/batch/v1/defaults.go as zz_generated.defaults.go calls them, and k8s.io/api v0.36.3 `+default=` markers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultedParts, defaultObject } from '../../../lib/admission/defaulting/index.js';
import { parseImageTag } from '../../../lib/admission/defaulting/image.js';
import { loadHooks, mutate, pod, policy, requestFor } from '../mutating/helpers.js';

/** `o` and everything in it frozen: a write to the original object throws (ES modules are strict). */
function deepFreeze<T>(o: T): T {
  const pending: unknown[] = [o];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    pending.push(...Object.values(v));
  }
  return o;
}

// Every case defaults a frozen object: defaulting writes only copies (object.ts Draft), never the value it was given,
// which later versions of the request's object share.
const d = (o: Record<string, unknown>): Record<string, unknown> =>
  defaultObject(deepFreeze(o), { apiVersion: String(o['apiVersion']), kind: String(o['kind']) }) as Record<string, unknown>;

const containerDefaults = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
const podSpecDefaults = { dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' };

describe('core/v1', () => {
  it('Pod: SetDefaults_Pod, _PodSpec, _Container (pull policy from the tag), ports, probes, requests from limits', () => {
    const out = d(pod({
      containers: [
        { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, livenessProbe: { httpGet: { port: 80 } }, readinessProbe: { grpc: { port: 9 } } },
        { name: 'b', image: 'nginx:1.27', imagePullPolicy: 'Never', env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] },
      ],
    }));
    assert.deepEqual(out['spec'], {
      containers: [
        {
          name: 'a', image: 'nginx', imagePullPolicy: 'Always', ...containerDefaults,
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
          livenessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          readinessProbe: { grpc: { port: 9, service: '' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        },
        { name: 'b', image: 'nginx:1.27', imagePullPolicy: 'Never', ...containerDefaults, env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }] },
      ],
      enableServiceLinks: true,
      ...podSpecDefaults,
    });
  });

  it('a default applies only where the field is unset', () => {
    const spec = { containers: [{ name: 'a', image: 'x', terminationMessagePath: '/t', imagePullPolicy: 'IfNotPresent' }], dnsPolicy: 'Default', terminationGracePeriodSeconds: 0, securityContext: { runAsUser: 1 }, enableServiceLinks: false };
    const out = d(pod(spec)) as { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } };
    assert.equal(out.spec['dnsPolicy'], 'Default');
    assert.equal(out.spec['terminationGracePeriodSeconds'], 0, 'a pointer set to 0 is not nil');
    assert.deepEqual(out.spec['securityContext'], { runAsUser: 1 });
    assert.equal(out.spec['enableServiceLinks'], false);
    assert.equal(out.spec.containers[0]!['terminationMessagePath'], '/t');
  });

  it('ports and env vars: each one needing a default gets it, the others stay the very same objects', () => {
    const udp = { containerPort: 53, protocol: 'UDP' };
    const plain = { name: 'A', value: 'b' };
    const secret = { name: 'S', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } };
    const ports = [udp, { containerPort: 80 }, { containerPort: 81, protocol: '' }, { containerPort: 82, protocol: null }];
    const env = [plain, { name: 'F', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, secret, { name: 'K', valueFrom: { fileKeyRef: { path: 'p', key: 'k' } } }];
    const out = d(pod({ containers: [{ name: 'a', image: 'x:1', ports, env }] })) as { spec: { containers: Array<{ ports: unknown[]; env: unknown[] }> } };
    const c = out.spec.containers[0]!;
    assert.deepEqual(c.ports, [udp, { containerPort: 80, protocol: 'TCP' }, { containerPort: 81, protocol: 'TCP' }, { containerPort: 82, protocol: 'TCP' }]);
    assert.deepEqual(c.env, [plain, { name: 'F', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }, secret, { name: 'K', valueFrom: { fileKeyRef: { path: 'p', key: 'k', optional: false } } }]);
    assert.equal(c.ports[0], udp);
    assert.equal(c.env[0], plain);
    assert.equal(c.env[2], secret);
    // a container whose ports and env need nothing is the very same object
    const done = d(pod({ containers: [{ name: 'b', image: 'x:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults, ports: [udp], env: [plain, secret] }] })) as { spec: { containers: unknown[] } };
    const input = (done.spec.containers[0] as { ports: unknown[] });
    assert.equal(input.ports[0], udp);
  });

  it('volumes: an empty source becomes emptyDir; modes 0644; projected token an hour; hostPath type ""', () => {
    const out = d(pod({ containers: [], volumes: [
      { name: 'e' },
      { name: 's', secret: { secretName: 'x' } },
      { name: 'c', configMap: { name: 'x' } },
      { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] } },
      { name: 'h', hostPath: { path: '/x' } },
      { name: 'i', image: { reference: 'registry.k8s.io/x@sha256:' + 'a'.repeat(64) } },
    ] })) as { spec: { volumes: unknown[] } };
    assert.deepEqual(out.spec.volumes, [
      { name: 'e', emptyDir: {} },
      { name: 's', secret: { secretName: 'x', defaultMode: 420 } },
      { name: 'c', configMap: { name: 'x', defaultMode: 420 } },
      { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }] } }], defaultMode: 420 } },
      { name: 'h', hostPath: { path: '/x', type: '' } },
      // ImageVolume: a digest and no tag, so IfNotPresent
      { name: 'i', image: { reference: 'registry.k8s.io/x@sha256:' + 'a'.repeat(64), pullPolicy: 'IfNotPresent' } },
    ]);
  });

  it('hostNetwork: container ports get hostPort = containerPort', () => {
    const out = d(pod({ hostNetwork: true, containers: [{ name: 'a', image: 'x:1', ports: [{ containerPort: 8080 }] }] })) as { spec: { containers: Array<{ ports: unknown }> } };
    assert.deepEqual(out.spec.containers[0]!.ports, [{ containerPort: 8080, protocol: 'TCP', hostPort: 8080 }]);
  });

  it('Service, Secret, Namespace, PersistentVolumeClaim, ConfigMap', () => {
    assert.deepEqual(d({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } })['spec'], {
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster',
    });
    assert.deepEqual(d({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'http' }] } })['spec'], {
      type: 'LoadBalancer', sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, ports: [{ port: 80, targetPort: 'http', protocol: 'TCP' }],
      externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true,
    });
    assert.equal(d({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })['type'], 'Opaque');
    assert.deepEqual(d({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }), {
      apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } }, status: { phase: 'Active' },
    });
    assert.deepEqual(d({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] } }), {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' }, status: { phase: 'Pending' },
    });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.equal(d(cm), cm, 'SetDefaults_ConfigMap makes data an empty map, which JSON omits: nothing changes');
  });
});

describe('apps/v1 and batch/v1', () => {
  const template = { spec: { containers: [{ name: 'a', image: 'x:1' }] } };
  const defaultedTemplate = { spec: { containers: [{ name: 'a', image: 'x:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults }], ...podSpecDefaults } };

  it('Deployment: replicas, RollingUpdate 25%/25%, history 10, progress deadline 600, and the pod template', () => {
    assert.deepEqual(d({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template } })['spec'], {
      replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, template: defaultedTemplate,
    });
    const recreate = d({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { replicas: 0, strategy: { type: 'Recreate' }, template } });
    assert.deepEqual((recreate['spec'] as Record<string, unknown>)['strategy'], { type: 'Recreate' });
    assert.equal((recreate['spec'] as Record<string, unknown>)['replicas'], 0);
  });

  it('StatefulSet, DaemonSet, ReplicaSet', () => {
    assert.deepEqual(d({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x' }, spec: { template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] } })['spec'], {
      podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' }, replicas: 1, revisionHistoryLimit: 10, template: defaultedTemplate,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    assert.deepEqual(d({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'x' }, spec: { template } })['spec'], {
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10, template: defaultedTemplate,
    });
    assert.deepEqual(d({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'x' }, spec: { template } })['spec'], { replicas: 1, template: defaultedTemplate });
  });

  it('Job (labels from the template, podReplacementPolicy by podFailurePolicy) and CronJob (the job template gets no SetDefaults_Job)', () => {
    const job = d({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { metadata: { labels: { app: 'j' } }, ...template }, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } } });
    assert.deepEqual(job['metadata'], { name: 'j', labels: { app: 'j' } });
    assert.deepEqual(job['spec'], {
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'Failed', manualSelector: false,
      podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
      template: { metadata: { labels: { app: 'j' } }, ...defaultedTemplate },
    });
    const indexed = d({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { parallelism: 3, backoffLimitPerIndex: 1, template } })['spec'] as Record<string, unknown>;
    assert.deepEqual([indexed['completions'], indexed['backoffLimit'], indexed['podReplacementPolicy']], [undefined, 2147483647, 'TerminatingOrFailed']);
    assert.deepEqual(d({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template } } } })['spec'], {
      schedule: '* * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, jobTemplate: { spec: { template: defaultedTemplate } },
    });
  });

  it('kinds without a defaulter here are returned as they are', () => {
    const o = { apiVersion: 'example.com/v1', kind: 'Widget', spec: {} };
    assert.equal(defaultObject(o, { apiVersion: 'example.com/v1', kind: 'Widget' }), o);
  });
});

describe('image tags (pkg/util/parsers ParseImageName)', () => {
  const cases: ReadonlyArray<[string, string]> = [
    ['nginx', 'latest'], ['nginx:1.27', '1.27'], ['nginx:latest', 'latest'], ['registry.k8s.io/pause:3.10', '3.10'], ['localhost:5000/app', 'latest'],
    [`app@sha256:${'b'.repeat(64)}`, ''], [`app:v1@sha256:${'b'.repeat(64)}`, 'v1'], ['UPPER/case', 'latest'], ['bad/UPPER', ''], ['', ''],
  ];
  for (const [image, tag] of cases) it(`${JSON.stringify(image)} -> ${JSON.stringify(tag)}`, () => assert.equal(parseImageTag(image), tag));
});

describe('between mutations', () => {
  it('a later policy sees the container an earlier one added, defaulted', async () => {
    const hooks = loadHooks(
      policy('a-add', [{ jsonPatch: '[JSONPatch{op: "add", path: "/spec/containers/-", value: {"name": "sidecar", "image": "proxy"}}]' }]) +
      policy('b-read', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"sidecar-pull": string(object.spec.containers[1].imagePullPolicy), "grace": string(object.spec.terminationGracePeriodSeconds)}}}' }]),
    );
    const { response, patched } = await mutate(hooks, requestFor(pod({ containers: [{ name: 'app', image: 'app:1' }] })));
    assert.equal(response.allowed, true);
    assert.deepEqual((patched as { metadata: { labels: unknown } }).metadata.labels, { 'sidecar-pull': 'Always', grace: '30' });
  });
});

// The dispatcher passes one memo per request: the containers and volumes proved to need nothing are neither walked
// nor copied again by later defaulting of the same request's objects.
describe('defaulting with a request\'s memo of parts that need nothing', () => {
  it('gives what defaulting without it gives, and leaves the original alone', () => {
    const memo = defaultedParts();
    const container = { name: 'app', image: 'app:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults };
    const first = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [container] } };
    assert.deepEqual(defaultObject(first, { apiVersion: 'v1', kind: 'Pod' }, memo), d(first));
    // a later version sharing the container, with a new one that needs defaults
    const second = { ...first, spec: { ...first.spec, containers: [container, { name: 'added', image: 'x' }] } };
    const out = defaultObject(second, { apiVersion: 'v1', kind: 'Pod' }, memo) as { spec: { containers: unknown[] } };
    assert.deepEqual(out, d(second));
    assert.equal(out.spec.containers[0], container, 'the part proved to need nothing is shared');
    assert.deepEqual(second.spec.containers[1], { name: 'added', image: 'x' });
  });

  it('a part proved under one defaulter and met under another is copied before it is written', () => {
    const memo = defaultedParts();
    // needs nothing as an ephemeral container (SetDefaults_Container)...
    const shared = { name: 'c', image: 'c:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults, resources: { limits: { cpu: '1' } } };
    defaultObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { ...podSpecDefaults, enableServiceLinks: true, containers: [], ephemeralContainers: [shared] } }, { apiVersion: 'v1', kind: 'Pod' }, memo);
    // ...but as a container it gets requests from its limits (SetDefaults_Pod)
    const later = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [shared] } };
    const out = defaultObject(later, { apiVersion: 'v1', kind: 'Pod' }, memo) as { spec: { containers: Array<{ resources: unknown }> } };
    assert.deepEqual(out.spec.containers[0]!.resources, { limits: { cpu: '1' }, requests: { cpu: '1' } });
    assert.deepEqual(shared.resources, { limits: { cpu: '1' } }, 'the shared container is not written in place');
    assert.deepEqual(out, d(later));
  });

  it('a part proved as a volume and met where a kind\'s own defaulter writes (a claim template) is copied before it is written', () => {
    const memo = defaultedParts();
    const volume = { name: 'data', emptyDir: {} };
    const template = { spec: { ...podSpecDefaults, containers: [], volumes: [volume] } };
    const kind = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
    // already defaulted, so the dry run walks it all and proves the volume
    const first = d({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { template } }) as { spec: Record<string, unknown> };
    assert.equal(defaultObject(first, kind, memo), first);
    const later = { ...first, spec: { ...first.spec, volumeClaimTemplates: [volume] } };
    const out = defaultObject(later, kind, memo);
    assert.deepEqual(volume, { name: 'data', emptyDir: {} }, 'the shared volume is not written in place');
    assert.deepEqual(out, d(later));
  });
});

// Copy on write (object.ts Draft): a write copies the maps and lists on its path from the root, once; everything else
// is the original value, so the request's later steps (CEL values, pruning, the strict decode, the answer's diff)
// meet it again by identity.
describe('copy on write', () => {
  it('a Pod needing nothing is returned as it is; one needing a default shares every part off the written paths', () => {
    const done = { name: 'done', image: 'x:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults };
    const volume = { name: 'v', emptyDir: {} };
    const ready = deepFreeze(pod({ ...podSpecDefaults, enableServiceLinks: true, containers: [done], volumes: [volume] }));
    assert.equal(defaultObject(ready, { apiVersion: 'v1', kind: 'Pod' }), ready);

    const probe = { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };
    const needy = { name: 'needy', image: 'y:1', imagePullPolicy: 'IfNotPresent', ...containerDefaults, livenessProbe: probe, readinessProbe: { exec: { command: ['true'] } }, env: [{ name: 'A', value: 'a' }] };
    type PodShape = Record<string, unknown> & { spec: { containers: Array<Record<string, unknown>>; volumes: unknown[] } };
    const input = deepFreeze({ ...ready, status: { phase: 'Pending' }, spec: { ...(ready['spec'] as object), containers: [done, needy] } }) as unknown as PodShape;
    const out = defaultObject(input, { apiVersion: 'v1', kind: 'Pod' }) as PodShape;
    assert.deepEqual(out.spec.containers[1]!['readinessProbe'], { exec: { command: ['true'] }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.notEqual(out, input);
    assert.equal(out['metadata'], input['metadata']);
    assert.equal(out['status'], input['status']);
    assert.equal(out.spec.volumes, input.spec.volumes);
    assert.equal(out.spec.containers[0], done);
    assert.notEqual(out.spec.containers[1], needy);
    assert.equal(out.spec.containers[1]!['livenessProbe'], probe, 'a sibling of the written probe stays shared');
    assert.equal(out.spec.containers[1]!['env'], needy.env);
  });

  it('several writes below one place build on one copy, in the order upstream writes them', () => {
    const input = deepFreeze(pod({ containers: [{ name: 'c', image: 'c:1', livenessProbe: { tcpSocket: { port: 1 } }, readinessProbe: { tcpSocket: { port: 2 } } }] }));
    const out = defaultObject(input, { apiVersion: 'v1', kind: 'Pod' }) as { spec: { containers: Array<Record<string, unknown>> } };
    const c = out.spec.containers[0]!;
    assert.deepEqual(Object.keys(c), ['name', 'image', 'livenessProbe', 'readinessProbe', 'imagePullPolicy', 'terminationMessagePath', 'terminationMessagePolicy']);
    assert.deepEqual(Object.keys(c['livenessProbe'] as object), ['tcpSocket', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']);
    assert.deepEqual(Object.keys(out.spec), ['containers', 'enableServiceLinks', 'dnsPolicy', 'restartPolicy', 'securityContext', 'terminationGracePeriodSeconds', 'schedulerName']);
  });

  it('one container object at two places (a JSON Patch copy) is defaulted at each, the original untouched', () => {
    const shared = deepFreeze({ name: 'c', image: 'c:1', resources: { limits: { cpu: '1' } } });
    const out = defaultObject(deepFreeze(pod({ containers: [shared], initContainers: [shared] })), { apiVersion: 'v1', kind: 'Pod' }, defaultedParts()) as { spec: { containers: unknown[]; initContainers: unknown[] } };
    const expected = { name: 'c', image: 'c:1', resources: { limits: { cpu: '1' }, requests: { cpu: '1' } }, imagePullPolicy: 'IfNotPresent', ...containerDefaults };
    assert.deepEqual(out.spec.containers[0], expected);
    assert.deepEqual(out.spec.initContainers[0], expected);
    assert.notEqual(out.spec.containers[0], out.spec.initContainers[0]);
  });

  it('a read after a write at the same place sees the write (StatefulSet: the strategy type, then its partition)', () => {
    const out = d({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { updateStrategy: {} } }) as { spec: { updateStrategy: unknown } };
    assert.deepEqual(out.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  });

  it('the memo holds what a write made: a later version sharing the defaulted container skips and shares it', () => {
    const memo = defaultedParts();
    const first = defaultObject(deepFreeze(pod({ containers: [{ name: 'c', image: 'c:1' }] })), { apiVersion: 'v1', kind: 'Pod' }, memo) as { spec: Record<string, unknown> & { containers: unknown[] } };
    const defaulted = deepFreeze(first.spec.containers[0]!);
    const later = deepFreeze({ ...first, spec: { ...first.spec, containers: [defaulted, { name: 'd', image: 'd:1' }] } });
    const out = defaultObject(later, { apiVersion: 'v1', kind: 'Pod' }, memo) as { spec: { containers: unknown[] } };
    assert.equal(out.spec.containers[0], defaulted);
    assert.deepEqual(out, defaultObject(structuredClone(later), { apiVersion: 'v1', kind: 'Pod' }));
  });
});

describe('objects nested 10,000 levels', () => {
  it('a Deployment carrying a 10,000-level field is defaulted, and shares that field', () => {
    // sigs.k8s.io/json scanner.go maxNestingDepth = 10000: a review may carry such a field; defaulting copies and
    // compares the object on the main thread
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [{ a: deep }];
    const o = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', annotations: { x: 'y' } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }, extra: deep };
    const out = defaultObject(o, { apiVersion: 'apps/v1', kind: 'Deployment' }) as Record<string, unknown> & { spec: { replicas: number } };
    assert.notEqual(out, o);
    assert.equal(out.spec.replicas, 1);
    assert.equal(out['extra'], deep, 'the untouched deep field is the original one');
    assert.equal(out['metadata'], o.metadata);
  });
});
