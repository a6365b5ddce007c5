// ApplyConfiguration mutations: CEL object construction merged into the object with server-side-apply semantics
// (patch/smd.go; upstream's smd_test.go cases and the merge cases operators meet): containers and env by name,
// ports by containerPort+protocol, atomic lists replaced by the merge but refused in an apply configuration, maps
// merged, nothing removed that apply would keep.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeValue } from '../../../lib/admission/mutating/merge.js';
import { rootShape } from '../../../lib/admission/mutating/schema.js';
import { capture, defaulted, loadHooks, mutate, pod, policy, requestFor } from './helpers.js';

const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'default', ...metadata }, spec });
const podSpec = (spec: Record<string, unknown>): Record<string, unknown> => ({ template: { spec } });

async function applyTo(expression: string, object: Record<string, unknown>, resources = 'deployments', group = 'apps'): Promise<{ patched: unknown; message?: string }> {
  const hooks = loadHooks(policy('ac', [{ applyConfiguration: expression }], { group, resources }));
  const { response, patched } = await mutate(hooks, requestFor(object));
  return response.allowed ? { patched } : { patched, message: response.status?.message ?? '' };
}

const denied = (message: string): string => `policy 'ac.static.k8s.io' with binding 'ac-binding.static.k8s.io' denied request: ${message}`;

describe('upstream smd_test cases', () => {
  it('adds to a listType=map list', async () => {
    const { patched } = await applyTo('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y"}]}}}}',
      deployment(podSpec({ volumes: [{ name: 'x' }] })));
    assert.deepEqual(patched, defaulted(deployment(podSpec({ volumes: [{ name: 'x' }, { name: 'y' }] }))));
  });

  it('updates a listType=map entry in place', async () => {
    const { patched } = await applyTo('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{volumes: [Object.spec.template.spec.volumes{name: "y", hostPath: Object.spec.template.spec.volumes.hostPath{path: "a"}}]}}}}',
      deployment(podSpec({ volumes: [{ name: 'x' }, { name: 'y', hostPath: { path: 'b' } }] })));
    assert.deepEqual(patched, defaulted(deployment(podSpec({ volumes: [{ name: 'x' }, { name: 'y', hostPath: { path: 'a' } }] }))));
  });

  it('reads object and oldObject in conditionals', async () => {
    const { patched } = await applyTo('Object{spec: Object.spec{replicas: object.spec.replicas % 2 == 0 ? object.spec.replicas + 1 : object.spec.replicas}}', deployment({ replicas: 2 }));
    assert.deepEqual(patched, defaulted(deployment({ replicas: 3 })));
  });

  it('builds a whole pod template', async () => {
    const { patched } = await applyTo(`Object{spec: Object.spec{replicas: 1, template: Object.spec.template{
  metadata: Object.spec.template.metadata{labels: {"app": "nginx"}},
  spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", image: "nginx:1.14.2",
    ports: [Object.spec.template.spec.containers.ports{containerPort: 80}],
    resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "128M"}}}]}}}}`, deployment({}));
    assert.deepEqual(patched, defaulted(deployment({ replicas: 1, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } }] } } })));
  });

  it('refuses an atomic struct', async () => {
    const { message } = await applyTo('Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"l": "v"}}}}', deployment({ replicas: 1 }));
    assert.equal(message, denied('error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector'));
  });

  it('refuses a type name that is not the field path', async () => {
    const { message } = await applyTo('Object{spec: Object.specx{replicas: 1}}', deployment({ replicas: 1 }));
    assert.equal(message, denied('type mismatch: unexpected type name "Object.specx", expected "Object.spec", which matches field name path from root Object type'));
  });

  it('refuses a field the schema does not declare', async () => {
    const { message } = await applyTo('Object{spec: Object.spec{replicasx: 1}}', deployment({ replicas: 1 }));
    assert.equal(message, denied('error applying patch: failed to convert patch object to typed object: .spec.replicasx: field not declared in schema'));
  });

  it('keeps duplicate env entries it does not touch, merges the ones it does', async () => {
    const env = [{ name: 'test', value: 'a' }, { name: 'test', value: 'b' }, { name: 'foo', value: 'bar' }];
    const untouched = await applyTo('Object{spec: Object.spec{replicas: 3}}', deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', env }] } } }));
    assert.deepEqual(untouched.patched, defaulted(deployment({ replicas: 3, template: { spec: { containers: [{ name: 'nginx', env }] } } })));
    const touched = await applyTo('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "nginx", env: [Object.spec.template.spec.containers.env{name: "test", value: "c"}]}]}}}}',
      deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', env }] } } }));
    assert.deepEqual(touched.patched, defaulted(deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }, { name: 'foo', value: 'bar' }] }] } } })));
  });
});

describe('the Kubernetes documentation examples', () => {
  it('label defaulting with Object.metadata merges into the labels already there', async () => {
    const hooks = loadHooks(policy('labels', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"environment": "production"}}}' }]));
    const { patched, operations } = await mutate(hooks, requestFor(pod({ containers: [{ name: 'c', image: 'i' }] }, { labels: { app: 'web' } })));
    assert.deepEqual(patched, defaulted(pod({ containers: [{ name: 'c', image: 'i' }] }, { labels: { app: 'web', environment: 'production' } })));
    assert.deepEqual(operations, [{ op: 'add', path: '/metadata/labels/environment', value: 'production' }]);
  });

  it('the sidecar example as written sets the atomic `args` and is refused, as upstream refuses it', async () => {
    const expression = 'Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", args: ["proxy", "sidecar"], restartPolicy: "Always"}]}}';
    const { message } = await applyTo(expression, pod({ containers: [{ name: 'c' }] }), 'pods', '');
    assert.equal(message, denied('error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.initContainers[0].args'));
  });

  it('the sidecar without args is added to the real pod the apiserver sent, after its init containers', async () => {
    const hooks = loadHooks(policy('sidecar', [{ applyConfiguration: 'Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", restartPolicy: "Always"}]}}' }], { operations: '[CREATE]' }));
    const request = capture('007-validate-CREATE-Pod-p1');
    const { patched, operations } = await mutate(hooks, request);
    const expected = structuredClone(request.object) as { spec: Record<string, unknown> };
    // the new container is defaulted as upstream defaults the object after the mutation (SetDefaults_Container)
    const sidecar = {
      name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', restartPolicy: 'Always',
      imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    };
    expected.spec['initContainers'] = [sidecar];
    assert.deepEqual(patched, expected);
    assert.deepEqual(operations, [{ op: 'add', path: '/spec/initContainers', value: [sidecar] }]);
  });
});

describe('merge cases', () => {
  const live = pod({
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }] },
      { name: 'log', image: 'log:1' },
    ],
    tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }],
    nodeSelector: { zone: 'x' },
  }, { labels: { app: 'web' }, annotations: { keep: 'me' } });
  const shape = rootShape('v1', 'Pod');
  const merge = (applied: Record<string, unknown>): Record<string, unknown> => mergeValue(shape, live, applied) as Record<string, unknown>;
  type PodSpec = { containers: Array<Record<string, unknown>>; tolerations: unknown[]; nodeSelector: unknown };
  const spec = (o: Record<string, unknown>): PodSpec => o['spec'] as PodSpec;

  it('containers by name: the named one merged in place, the others untouched, new ones appended', () => {
    const out = merge({ spec: { containers: [{ name: 'new', image: 'n:1' }, { name: 'app', image: 'app:2' }] } });
    assert.deepEqual(spec(out).containers.map((c) => [c['name'], c['image']]), [['app', 'app:2'], ['log', 'log:1'], ['new', 'n:1']]);
    assert.deepEqual(spec(out).containers[0]!['env'], [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], 'fields left out are kept');
  });

  it('env by name', () => {
    const out = merge({ spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } });
    assert.deepEqual(spec(out).containers[0]!['env'], [{ name: 'A', value: '1' }, { name: 'B', value: 'two' }, { name: 'C', value: '3' }]);
  });

  it('ports by containerPort and protocol, protocol defaulting to TCP', () => {
    const out = merge({ spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 53, protocol: 'TCP' }] }] } });
    assert.deepEqual(spec(out).containers[0]!['ports'], [
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 53, protocol: 'UDP' },
      { containerPort: 53, protocol: 'TCP' },
    ]);
  });

  it('tolerations and nodeSelector are atomic: replaced whole by the merge', () => {
    const out = merge({ spec: { tolerations: [{ key: 'c', operator: 'Exists' }], nodeSelector: { disk: 'ssd' } } });
    assert.deepEqual(spec(out).tolerations, [{ key: 'c', operator: 'Exists' }]);
    assert.deepEqual(spec(out).nodeSelector, { disk: 'ssd' });
  });

  it('maps merged key by key; finalizers (listType=set) unioned', () => {
    const withFinalizers = { ...live, metadata: { ...(live['metadata'] as object), finalizers: ['a', 'b'] } };
    const out = mergeValue(shape, withFinalizers, { metadata: { labels: { tier: 'front', app: 'api' }, finalizers: ['b', 'c'] } }) as { metadata: Record<string, unknown> };
    assert.deepEqual(out.metadata['labels'], { app: 'api', tier: 'front' });
    assert.deepEqual(out.metadata['annotations'], { keep: 'me' });
    assert.deepEqual(out.metadata['finalizers'], ['a', 'b', 'c']);
  });

  it('a field is removed only where apply would remove it: a scalar set to null; empty or absent values keep what is there', () => {
    const before = structuredClone(live);
    const out = merge({ metadata: { labels: {} }, spec: { containers: [{ name: 'app', image: null }], tolerations: null } });
    assert.deepEqual((out['metadata'] as Record<string, unknown>)['labels'], { app: 'web' });
    assert.equal('image' in spec(out).containers[0]!, false);
    assert.deepEqual(spec(out).tolerations, [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }]);
    assert.deepEqual(live, before, 'the live object is not modified');
  });

  // merge.ts: a container the merge leaves as it was is the live one itself, so the request's memos keyed by identity
  // (CEL values, pruning, defaulting, the strict decode) keep holding after a configuration that changes nothing
  it('a configuration that changes nothing gives the live object itself; one that changes a field shares the rest', () => {
    assert.equal(merge({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'log', image: 'log:1' }], nodeSelector: null } }), live);
    assert.equal(merge({}), live);
    const out = merge({ spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }] }] } });
    const liveSpec = spec(live);
    assert.notEqual(out, live);
    assert.equal(out['metadata'], live['metadata']);
    assert.equal(spec(out).containers[1], liveSpec.containers[1]);
    assert.equal(spec(out).containers[0]!['ports'], liveSpec.containers[0]!['ports']);
    assert.equal((spec(out).containers[0]!['env'] as unknown[])[0], (liveSpec.containers[0]!['env'] as unknown[])[0]);
    assert.deepEqual((spec(out).containers[0]!['env'] as unknown[])[1], { name: 'B', value: 'two' });
    assert.equal(spec(out).tolerations, liveSpec.tolerations);
    // a scalar set to what it holds, a new key, a removal: each a change
    assert.equal(merge({ spec: { containers: [{ name: 'app', image: 'app:1' }] } }), live);
    assert.notEqual(merge({ spec: { containers: [{ name: 'app', workingDir: '/' }] } }), live);
    assert.notEqual(merge({ spec: { containers: [{ name: 'app', image: null }] } }), live);
    // keys in the live order, merged ones in their place, new ones after them in the configuration's order
    const app = spec(merge({ spec: { containers: [{ workingDir: '/', name: 'app', image: 'app:2', args: ['x'] }] } })).containers[0]!;
    assert.deepEqual(Object.keys(app), [...Object.keys(liveSpec.containers[0]!), 'workingDir', 'args']);
    assert.equal(app['image'], 'app:2');
    assert.deepEqual(Object.keys(merge({ spec: { priorityClassName: 'p' } })), Object.keys(live));
  });

  it('a configuration that changes nothing answers no patch, also with a policy reinvoked after it', async () => {
    const hooks = loadHooks(
      policy('a-same', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"app": "web"}}}' }], { reinvocationPolicy: 'IfNeeded' }) +
      policy('b-same', [{ applyConfiguration: 'Object{spec: Object.spec{containers: [Object.spec.containers{name: "log", image: "log:1"}]}}' }]),
    );
    const out = await mutate(hooks, requestFor(defaulted(live)));
    assert.equal(out.response.allowed, true);
    assert.equal(out.response.patch, undefined);
  });

  it('a kind without shipped schema merges maps and replaces lists', () => {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: '1' } }, spec: { items: [1, 2], nested: { x: 1 } } };
    const out = mergeValue(rootShape('example.com/v1', 'Widget'), widget, { metadata: { labels: { b: '2' } }, spec: { items: [3], nested: { y: 2 } } });
    assert.deepEqual(out, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: '1', b: '2' } }, spec: { items: [3], nested: { x: 1, y: 2 } } });
  });

  it('an apply configuration setting tolerations is refused (atomic), under Ignore the pod passes unchanged', async () => {
    const expression = 'Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: "c", operator: "Exists"}]}}';
    const fail = await applyTo(expression, live, 'pods', '');
    assert.equal(fail.message, denied('error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations'));
    const hooks = loadHooks(policy('ac', [{ applyConfiguration: expression }], { failurePolicy: 'Ignore' }));
    const ignored = await mutate(hooks, requestFor(live));
    assert.equal(ignored.response.allowed, true);
    assert.equal(ignored.response.patch, undefined);
    assert.deepEqual(ignored.checks.map((c) => c.errorType), ['invalid_error']);
  });
});

describe('a merge as deep as the objects kube-apiserver sends (10,000 levels)', () => {
  it('an apply configuration overlapping the live object 10,000 levels down merges at the bottom', () => {
    // sigs.k8s.io/json scanner.go maxNestingDepth = 10000; the merge runs on the main thread
    const nest = (levels: number, leaf: Record<string, unknown>): Record<string, unknown> => {
      let v: Record<string, unknown> = leaf;
      for (let i = 0; i < levels; i++) v = { a: v };
      return v;
    };
    const live = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: nest(9_997, { keep: 1, change: 1 }) };
    const applied = { spec: nest(9_997, { change: 2, add: 3 }) };
    const merged = mergeValue(rootShape('example.com/v1', 'Widget'), live, applied) as { spec: Record<string, unknown> };
    let bottom: unknown = merged.spec;
    for (let i = 0; i < 9_997; i++) bottom = (bottom as { a: unknown }).a;
    assert.deepEqual(bottom, { keep: 1, change: 2, add: 3 });
    assert.equal((live.spec as { a: unknown }).a !== (merged.spec as { a: unknown }).a, true, 'the live object is not modified');
  });
});
