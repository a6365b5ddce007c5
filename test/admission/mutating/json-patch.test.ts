// JSONPatch mutations as upstream applies them (patch/json_patch.go with evanphx/json-patch v4): the cases of
// upstream's json_patch_test.go and the Kubernetes documentation examples, through real policies and the /mutate
// chain, the answer's patch applied to the object that was sent.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, PatchError } from '../../../lib/admission/mutating/json-patch.js';
import { createMutatingPolicyPlugin } from '../../../lib/admission/mutating/plugin.js';
import { mutateRequest } from '../../../lib/admission/mutate.js';
import { defaulted, loadHooks, mutate, pod, policy, requestFor } from './helpers.js';

const deployment = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'default', ...metadata }, spec });

const containers = (...names: string[]): Record<string, unknown> => ({ template: { spec: { containers: names.map((name) => ({ name })) } } });

async function patchDeployment(expression: string, object: Record<string, unknown>): Promise<{ patched: unknown; message?: string }> {
  const hooks = loadHooks(policy('jp', [{ jsonPatch: expression }], { group: 'apps', resources: 'deployments' }));
  const { response, patched } = await mutate(hooks, requestFor(object));
  return response.allowed ? { patched } : { patched, message: response.status?.message ?? '' };
}

describe('upstream json_patch_test cases', () => {
  const cases: ReadonlyArray<[string, string, Record<string, unknown>, Record<string, unknown>]> = [
    ['a false test operation drops the whole patch', '[JSONPatch{op: "test", path: "/spec/replicas", value: 100}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]',
      deployment({ replicas: 1 }), deployment({ replicas: 1 })],
    ['a true test operation lets the patch apply', '[JSONPatch{op: "test", path: "/spec/replicas", value: 1}, JSONPatch{op: "replace", path: "/spec/replicas", value: 3}]',
      deployment({ replicas: 1 }), deployment({ replicas: 3 })],
    ['remove unsets a field', '[JSONPatch{op: "remove", path: "/spec/replicas"}]', deployment({ replicas: 1 }), deployment({})],
    ['remove a map entry by key', '[JSONPatch{op: "remove", path: "/metadata/labels/y"}]',
      deployment({}, { labels: { x: '1', y: '1' } }), deployment({}, { labels: { x: '1' } })],
    ['remove a list element', '[JSONPatch{op: "remove", path: "/spec/template/spec/containers/1"}]',
      deployment(containers('a', 'b', 'c')), deployment(containers('a', 'c'))],
    ['copy a map entry', '[JSONPatch{op: "copy", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
      deployment({}, { labels: { x: '1' } }), deployment({}, { labels: { x: '1', y: '1' } })],
    ['copy the first element to the end', '[JSONPatch{op: "copy", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
      deployment(containers('a', 'b', 'c')), deployment(containers('a', 'b', 'c', 'a'))],
    ['move a map entry', '[JSONPatch{op: "move", from: "/metadata/labels/x", path: "/metadata/labels/y"}]',
      deployment({}, { labels: { x: '1' } }), deployment({}, { labels: { y: '1' } })],
    ['move the first element to the end', '[JSONPatch{op: "move", from: "/spec/template/spec/containers/0", path: "/spec/template/spec/containers/-"}]',
      deployment(containers('a', 'b', 'c')), deployment(containers('b', 'c', 'a'))],
    ['add a map entry', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: "2"}]',
      deployment({}, { labels: { y: '1' } }), deployment({}, { labels: { y: '1', x: '2' } })],
    ['add a map to an existing map replaces it', '[JSONPatch{op: "add", path: "/metadata/labels", value: {"y": "2"}}]',
      deployment({}, { labels: { x: '1' } }), deployment({}, { labels: { y: '2' } })],
    ['add at the start of a list', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
      deployment(containers('a')), deployment(containers('x', 'a'))],
    ['add at the end of a list', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]',
      deployment(containers('a')), deployment(containers('a', 'x'))],
    ['replace a missing map key adds it (evanphx)', '[JSONPatch{op: "replace", path: "/metadata/labels/x", value: "2"}]',
      deployment({}, { labels: { y: '1' } }), deployment({}, { labels: { y: '1', x: '2' } })],
    ['replace an unset field sets it', '[JSONPatch{op: "replace", path: "/metadata/labels", value: {"y": "2"}}]',
      deployment({}), deployment({}, { labels: { y: '2' } })],
    ['replace the first list element', '[JSONPatch{op: "replace", path: "/spec/template/spec/containers/0", value: {"name": "x"}}]',
      deployment(containers('a')), deployment(containers('x'))],
    ['an Object initializer as the value', '[JSONPatch{op: "add", path: "/spec", value: Object.spec{selector: Object.spec.selector{}, replicas: 10}}]',
      deployment({}), deployment({ selector: {}, replicas: 10 })],
    ['jsonpatch.escapeKey', '[JSONPatch{op: "add", path: "/metadata/labels", value: {}}, JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/x~y"), value: "true"}]',
      deployment({}, { labels: {} }), deployment({}, { labels: { 'k8s.io/x~y': 'true' } })],
    ['a nested Object initializer in a list', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPort: 8080}]}}]',
      deployment(containers('a')), deployment({ template: { spec: { containers: [{ name: 'a' }, { name: 'x', ports: [{ containerPort: 8080 }] }] } } })],
  ];
  for (const [name, expression, object, expected] of cases) {
    it(name, async () => {
      const { patched, message } = await patchDeployment(expression, object);
      assert.equal(message, undefined);
      // upstream defaults the object after each mutation (mutating/dispatcher.go dispatchOne)
      assert.deepEqual(patched, defaulted(expected));
    });
  }

  it('replace of `-` is not an index: upstream\'s error, denied under Fail', async () => {
    const { message } = await patchDeployment('[JSONPatch{op: "replace", path: "/spec/template/spec/containers/-", value: {"name": "x"}}]', deployment(containers('a')));
    assert.equal(message, "policy 'jp.static.k8s.io' with binding 'jp-binding.static.k8s.io' denied request: JSON Patch: replace operation does not apply: doc is missing key: /spec/template/spec/containers/-: missing value");
  });

  it('an unknown field of a built-in kind fails the request as upstream\'s strict decoding does', async () => {
    const hooks = loadHooks(policy('jp', [{ jsonPatch: '[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.ports{containerPortZ: 8080}]}}]' }], { group: 'apps', resources: 'deployments', failurePolicy: 'Ignore' }));
    const { response } = await mutate(hooks, requestFor(deployment(containers('a'))));
    assert.equal(response.allowed, false, 'an internal error ignores the failure policy');
    assert.deepEqual(response.status, {
      metadata: {}, status: 'Failure', reason: 'InternalError', code: 500,
      message: 'Internal error occurred: strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"',
      details: { causes: [{ message: 'strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"' }] },
    });
  });

  it('an Object initializer of the wrong type name is a type mismatch', async () => {
    const { message } = await patchDeployment('[JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "x", ports: [Object.spec.template.spec.containers.portsZ{containerPort: 8080}]}}]', deployment(containers('a')));
    assert.equal(message, "policy 'jp.static.k8s.io' with binding 'jp-binding.static.k8s.io' denied request: type mismatch: unexpected type name \"Object.spec.template.spec.containers.portsZ\", expected \"Object.spec.template.spec.containers.ports\", which matches field name path from root Object type");
  });
});

describe('the Kubernetes documentation examples', () => {
  it('sidecar injection with JSONPatch (json-patch-example.yaml) on a real pod', async () => {
    const hooks = loadHooks(policy('sidecar', [{
      jsonPatch: '[JSONPatch{op: "add", path: "/spec/initContainers/-", value: Object.spec.initContainers{name: "mesh-proxy", image: "mesh-proxy/v1.0.0", restartPolicy: "Always"}}]',
    }], { reinvocationPolicy: 'IfNeeded', operations: '[CREATE]', extra: '  matchConditions:\n  - name: does-not-already-have-sidecar\n    expression: "!object.spec.initContainers.exists(ic, ic.name == \\"mesh-proxy\\")"\n' }));
    const object = pod({ initContainers: [{ name: 'myapp-initializer', image: 'example/initializer:v1.0.0' }], containers: [{ name: 'myapp', image: 'app' }] });
    const { patched, checks } = await mutate(hooks, requestFor(object));
    // the apiserver sent the pod defaulted; the injected container is defaulted after the mutation, as upstream
    // (SetDefaults_Container: the image has no tag, so pull Always)
    const defaults = { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' };
    assert.deepEqual((patched as { spec: { initContainers: unknown[] } }).spec.initContainers, [
      { name: 'myapp-initializer', image: 'example/initializer:v1.0.0', imagePullPolicy: 'IfNotPresent', ...defaults },
      { name: 'mesh-proxy', image: 'mesh-proxy/v1.0.0', restartPolicy: 'Always', imagePullPolicy: 'Always', ...defaults },
    ]);
    // IfNeeded and the object changed: upstream runs the policy again, and its matchCondition now says no
    assert.deepEqual(checks.map((c) => [c.policy, c.binding, c.errorType]), [['sidecar.static.k8s.io', 'sidecar-binding.static.k8s.io', 'no_error']]);
  });

  it('test then replace: a value changed only when it has the expected one', async () => {
    const expression = '[JSONPatch{op: "test", path: "/spec/example", value: "Red"}, JSONPatch{op: "replace", path: "/spec/example", value: "Green"}]';
    const hooks = loadHooks(policy('color', [{ jsonPatch: expression }], { group: 'example.com', resources: 'widgets' }));
    const widget = (example: string): Record<string, unknown> => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { example } });
    assert.deepEqual((await mutate(hooks, requestFor(widget('Red')))).patched, widget('Green'));
    const blue = await mutate(hooks, requestFor(widget('Blue')));
    assert.equal(blue.response.patch, undefined, 'unchanged: no patch');
  });

  it('an Object value and an escaped label key', async () => {
    const hooks = loadHooks(policy('env', [
      { jsonPatch: '[JSONPatch{op: "add", path: "/spec/selector", value: Object.spec.selector{matchLabels: {"environment": "test"}}}]' },
      { jsonPatch: '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/environment"), value: "test"}]' },
    ], { group: 'apps', resources: 'deployments' }));
    const { patched } = await mutate(hooks, requestFor(deployment({ replicas: 1 }, { labels: { app: 'a' } })));
    assert.deepEqual(patched, defaulted(deployment({ replicas: 1, selector: { matchLabels: { environment: 'test' } } }, { labels: { app: 'a', 'example.com/environment': 'test' } })));
  });
});

describe('applyJsonPatch (evanphx v4 rules)', () => {
  const doc = { a: { b: [1, 2, 3] }, m: { k: 'v' } };
  const fails = (ops: Parameters<typeof applyJsonPatch>[1], message: string): void => {
    assert.throws(() => applyJsonPatch(doc, ops), (err: unknown) => err instanceof PatchError && err.message === message);
  };

  it('reports errors with evanphx\'s texts', () => {
    fails([{ op: 'remove', path: '/x/y' }], 'remove operation does not apply: doc is missing path: "/x/y": missing value');
    fails([{ op: 'remove', path: '/m/nope' }], "error in remove for path: '/m/nope': Unable to remove nonexistent key: nope: missing value");
    fails([{ op: 'add', path: '/a/b/7', value: 1 }], "error in add for path: '/a/b/7': Unable to access invalid index: 7: invalid index referenced");
    fails([{ op: 'add', path: '/a/b/x', value: 1 }], "error in add for path: '/a/b/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax");
    fails([{ op: 'add', path: '', value: 1 }], 'add operation does not apply: doc is missing path: "": missing value');
    fails([{ op: 'move', from: '/m/nope', path: '/m/k2' }], "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value");
    fails([{ op: 'copy', from: '/x/y', path: '/m/k2' }], 'copy operation does not apply: doc is missing from path: /x/y: missing value');
    fails([{ op: 'test', path: '/x/y', value: 1 }], 'test operation does not apply: is missing path: /x/y: missing value');
    fails([{ op: 'merge', path: '/m' }], 'Unexpected kind: merge');
  });

  it('negative indexes count from the end; the document is never modified', () => {
    assert.deepEqual(applyJsonPatch(doc, [{ op: 'remove', path: '/a/b/-1' }]), { a: { b: [1, 2] }, m: { k: 'v' } });
    assert.deepEqual(applyJsonPatch(doc, [{ op: 'add', path: '/a/b/-1', value: 9 }]), { a: { b: [1, 2, 3, 9] }, m: { k: 'v' } });
    assert.deepEqual(doc, { a: { b: [1, 2, 3] }, m: { k: 'v' } });
  });

  it('a failed test returns the document itself, even after earlier operations', () => {
    assert.equal(applyJsonPatch(doc, [{ op: 'add', path: '/n', value: 1 }, { op: 'test', path: '/m/k', value: 'other' }]), doc);
  });
});

describe('applyJsonPatch copies on write', () => {
  it('never changes the document it is given, and shares what the patch does not touch', () => {
    const doc = {
      metadata: { labels: { app: 'web' }, annotations: { a: '1' } },
      spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }] }, { name: 'b' }], volumes: [{ name: 'v' }] },
    };
    const before = JSON.stringify(doc);
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/metadata/labels/tier', value: 'front' },
      { op: 'replace', path: '/spec/containers/0/env/0/value', value: '2' },
      { op: 'move', from: '/metadata/annotations/a', path: '/metadata/annotations/b' },
      { op: 'remove', path: '/spec/containers/1' },
    ]) as typeof doc;
    assert.equal(JSON.stringify(doc), before);
    assert.deepEqual(out.metadata, { labels: { app: 'web', tier: 'front' }, annotations: { b: '1' } });
    assert.deepEqual(out.spec.containers, [{ name: 'a', env: [{ name: 'X', value: '2' }] }]);
    // untouched subtrees are the same objects; every container on a written path is a new one
    assert.equal(out.spec.volumes, doc.spec.volumes);
    assert.notEqual(out.spec.containers, doc.spec.containers);
    assert.notEqual(out.spec.containers[0]!.env, doc.spec.containers[0]!.env);
    assert.notEqual(out.metadata.labels, doc.metadata.labels);
  });

  it('keeps a "__proto__" key as data in the containers it copies', () => {
    const doc = JSON.parse('{"metadata": {"labels": {"__proto__": "x"}}}') as { metadata: { labels: Record<string, string> } };
    const out = applyJsonPatch(doc, [{ op: 'add', path: '/metadata/labels/b', value: 'y' }]) as typeof doc;
    assert.deepEqual(Object.keys(out.metadata.labels), ['__proto__', 'b']);
    assert.equal(Object.getPrototypeOf(out.metadata.labels), Object.prototype);
  });
});

describe('applyJsonPatch: evanphx v4 details', () => {
  const doc = () => ({ a: [1, 2, 3], b: [{ x: 1 }, { x: 2 }], m: { k: 'v' } });

  it('accepts negative indexes in every operation and in the middle of a path (SupportNegativeIndices)', () => {
    assert.deepEqual((applyJsonPatch(doc(), [{ op: 'replace', path: '/a/-1', value: 9 }]) as { a: number[] }).a, [1, 2, 9]);
    assert.deepEqual((applyJsonPatch(doc(), [{ op: 'replace', path: '/b/-1/x', value: 7 }]) as { b: unknown[] }).b, [{ x: 1 }, { x: 7 }]);
    assert.deepEqual((applyJsonPatch(doc(), [{ op: 'copy', from: '/a/-3', path: '/c' }]) as { c: number }).c, 1);
    const tested = doc();
    assert.equal(applyJsonPatch(tested, [{ op: 'test', path: '/a/-1', value: 4 }]), tested);
    assert.throws(() => applyJsonPatch(doc(), [{ op: 'replace', path: '/a/-4', value: 0 }]),
      (e: unknown) => e instanceof PatchError && e.message === 'replace operation does not apply: doc is missing key: /a/-4: missing value');
    assert.throws(() => applyJsonPatch(doc(), [{ op: 'remove', path: '/a/-4' }]),
      (e: unknown) => e instanceof PatchError && /Unable to access invalid index: -4: invalid index referenced/.test(e.message));
  });

  it('test needs the same keys: extra keys in the value fail it, and the whole patch is dropped', () => {
    const d = doc();
    assert.equal(applyJsonPatch(d, [{ op: 'test', path: '/m', value: { k: 'v', extra: 1 } }, { op: 'add', path: '/n', value: 1 }]), d);
    assert.deepEqual((applyJsonPatch(d, [{ op: 'test', path: '/m', value: { k: 'v' } }, { op: 'add', path: '/n', value: 1 }]) as { n: number }).n, 1);
  });

  it('the root path: replace swaps the document for an object (a scalar is ignored), test compares it whole', () => {
    assert.deepEqual(applyJsonPatch(doc(), [{ op: 'replace', path: '', value: { z: 1 } }, { op: 'add', path: '/y', value: 2 }]), { z: 1, y: 2 });
    assert.deepEqual(applyJsonPatch({ q: 1 }, [{ op: 'replace', path: '', value: 5 }]), { q: 1 });
    const d = { q: 1 };
    assert.deepEqual(applyJsonPatch(d, [{ op: 'test', path: '', value: { q: 1 } }, { op: 'add', path: '/r', value: 2 }]), { q: 1, r: 2 });
    assert.equal(applyJsonPatch(d, [{ op: 'test', path: '', value: { q: 2 } }, { op: 'add', path: '/r', value: 2 }]), d);
    assert.throws(() => applyJsonPatch(d, [{ op: 'test', path: '', value: { q: 2 } }], { failedTest: 'error' }),
      (e: unknown) => e instanceof PatchError && e.message === 'testing value  failed: test failed');
  });
});

describe('values as deep as the objects kube-apiserver sends (10,000 levels)', () => {
  it('test, copy and replace of a 10,000-level value, and a pointer 10,000 segments long', () => {
    // sigs.k8s.io/json scanner.go maxNestingDepth = 10000; JSON Patch runs on the main thread for /mutate
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const doc = { spec: { deep } };
    const leaf = `/spec/deep${'/a'.repeat(10_000)}`;
    const patched = applyJsonPatch(doc, [
      { op: 'test', path: '/spec/deep', value: deep },
      { op: 'copy', from: '/spec/deep', path: '/spec/copy' },
      { op: 'replace', path: leaf, value: 2 },
    ]) as { spec: { deep: unknown; copy: unknown } };
    const bottom = (v: unknown): unknown => {
      while (typeof v === 'object' && v !== null) v = (v as { a: unknown }).a;
      return v;
    };
    assert.equal(bottom(patched.spec.deep), 2);
    assert.equal(bottom(patched.spec.copy), 1, 'the copy is a copy');
    assert.equal(bottom(doc.spec.deep), 1, 'the document is not modified');
    // a failed test of a deep value drops the patch, as upstream
    assert.equal(applyJsonPatch(doc, [{ op: 'test', path: '/spec/deep', value: patched.spec.deep }, { op: 'remove', path: '/spec' }]), doc);
  });
});

describe('a deep value patched into a typed field', () => {
  it('fails the strict decode with Quantity\'s error, as upstream, instead of overflowing the stack', async () => {
    // json_patch.go decodes the patched Deployment strictly; resource.Quantity's UnmarshalJSON parses the value's
    // JSON text (quantity.go) and refuses it with ErrFormatWrong. A review may carry a field nested 10,000 levels
    // (sigs.k8s.io/json scanner.go maxNestingDepth = 10000), whose JSON text is past the native stringify's reach.
    let deep: unknown = 1;
    for (let i = 0; i < 9_990; i++) deep = { a: deep };
    const object = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } }, x: deep },
    };
    const hooks = loadHooks(policy('q', [{ jsonPatch: '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources", value: {"limits": {"cpu": object.spec.x}}}]' }], { group: 'apps', resources: 'deployments' }));
    const plugin = createMutatingPolicyPlugin({ hooks: () => hooks, onChecks: () => undefined });
    const { response } = await mutateRequest(requestFor(object), [plugin], { deadline: Date.now() + 10_000, signal: new AbortController().signal });
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 500);
    assert.equal(response.status?.message, "Internal error occurred: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });
});
