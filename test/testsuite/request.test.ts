// The AdmissionRequests `test` builds, compared with what a real kube-apiserver sent for the same operation
// (testdata/admission/captures, kube-apiserver driven by kubectl): same fields, same order, absent fields absent.
// Upstream: S/admission/plugin/webhook/request/admissionreview.go CreateV1AdmissionReview (the request),
// S/endpoints/handlers/create.go createHandler + S/registry/rest/create.go AdmissionToValidateObjectFunc (the name
// /mutate and /validate see), S/registry/generic/registry/store.go Store.create (FillObjectMetaSystemFields and
// the generated name before validation), S/registry/rest/meta.go WipeObjectMetaSystemFields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { SuiteError } from '../../lib/testsuite/fields.js';
import { mutateRequest, prepareCase, validateRequest } from '../../lib/testsuite/request.js';
import type { PreparedCase } from '../../lib/testsuite/request.js';
import { readSuite } from '../../lib/testsuite/suite.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

const root = new URL('../../../', import.meta.url).pathname;

function capture(name: string): AdmissionRequest & Record<string, unknown> {
  return (JSON.parse(readFileSync(join(root, 'testdata/admission/captures', name), 'utf8')) as { request: AdmissionRequest & Record<string, unknown> }).request;
}

/** The suite text's cases, prepared. */
function prepare(casesYAML: string, resources = ''): PreparedCase[] {
  const { dir, cleanup } = tempDir('sad-suite-');
  try {
    writeFiles(dir, {
      'admission-test.yaml': `apiVersion: static-admissiond.io/v1alpha1
kind: AdmissionTest
admission:
  manifests: {}
${resources}
defaults:
  userInfo: {username: admin, uid: admin-uid, groups: ["system:masters"]}
cases:
${casesYAML}`,
    });
    const suite = readSuite(join(dir, 'admission-test.yaml'));
    return suite.cases.map((c) => prepareCase(c, suite.file));
  } finally {
    cleanup();
  }
}

/** Drops what differs per call or per cluster: uids, timestamps set by the server, managedFields. */
function comparable(r: AdmissionRequest): Record<string, unknown> {
  const copy = structuredClone(r) as Record<string, unknown>;
  delete copy.uid;
  for (const key of ['object', 'oldObject']) {
    const meta = (copy[key] as { metadata?: Record<string, unknown> } | null)?.metadata;
    if (meta !== undefined) {
      delete meta.managedFields;
      if (meta.uid !== undefined) meta.uid = '<uid>';
      if (typeof meta.creationTimestamp === 'string') meta.creationTimestamp = '<time>';
      delete meta.resourceVersion;
    }
  }
  return copy;
}

const configMapCM1 = `  object:
    kind: ConfigMap
    apiVersion: v1
    metadata: {name: cm1, namespace: wh}
    data: {a: "1"}
  options: {fieldManager: kubectl-create, fieldValidation: Strict}
  expect: {allowed: true}`;

test('CREATE: /mutate gets the request kube-apiserver sent (capture 001), field for field and in order', () => {
  const [p] = prepare(`- name: create\n${configMapCM1}`);
  const built = mutateRequest(p!);
  const sent = capture('001-mutate-CREATE-ConfigMap-cm1.json');
  assert.deepEqual(Object.keys(built), Object.keys(sent));
  assert.deepEqual(comparable(built), comparable(sent));
  // the wiped creationTimestamp of a typed object marshals as null, as in the capture
  assert.equal((built.object as { metadata: Record<string, unknown> }).metadata.creationTimestamp, null);
  assert.match(built.uid!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('CREATE: /validate sees uid and creationTimestamp filled, as after Store.create (capture 002)', () => {
  const [p] = prepare(`- name: create\n${configMapCM1}`);
  const mutated = structuredClone(p!.object!);
  (mutated.metadata as Record<string, unknown>).labels = { 'mutated-by': 'test-webhook' };
  const built = validateRequest(p!, mutated);
  const sent = capture('002-validate-CREATE-ConfigMap-cm1.json');
  assert.deepEqual(Object.keys(built), Object.keys(sent));
  assert.deepEqual(comparable(built), comparable(sent));
  const meta = (built.object as { metadata: Record<string, string> }).metadata;
  assert.match(meta.creationTimestamp!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.notEqual(built.uid, mutateRequest(p!).uid, 'every call has its own uid');
});

test('a dry-run CREATE carries dryRun true and options.dryRun ["All"] (capture 016)', () => {
  const [p] = prepare(`- name: dry
  dryRun: true
  object:
    kind: ConfigMap
    apiVersion: v1
    metadata: {name: cm-dry, namespace: wh}
    data: {a: "1"}
  options: {fieldManager: kubectl-create, fieldValidation: Strict}
  expect: {allowed: true}`);
  const built = mutateRequest(p!);
  const sent = capture('016-mutate-CREATE-ConfigMap-cm-dry.json');
  assert.deepEqual(comparable(built), comparable(sent));
});

test('UPDATE carries the stored object; /validate carries its uid and creationTimestamp over (capture 003)', () => {
  const sent = capture('003-validate-UPDATE-ConfigMap-cm1.json');
  const old = sent.oldObject as { metadata: Record<string, unknown> };
  const [p] = prepare(`- name: update
  operation: UPDATE
  oldObject:
    kind: ConfigMap
    apiVersion: v1
    metadata: {name: cm1, namespace: wh, uid: ${old.metadata.uid as string}, creationTimestamp: "${old.metadata.creationTimestamp as string}", labels: {mutated-by: test-webhook}}
    data: {a: "1"}
  object:
    kind: ConfigMap
    apiVersion: v1
    metadata: {name: cm1, namespace: wh, labels: {mutated-by: test-webhook}}
    data: {a: "2"}
  options: {fieldManager: kubectl-patch}
  expect: {allowed: true}`);
  const built = validateRequest(p!, p!.object);
  assert.deepEqual(Object.keys(built), Object.keys(sent));
  assert.deepEqual(comparable(built), comparable(sent));
  const meta = (built.object as { metadata: Record<string, unknown> }).metadata;
  assert.equal(meta.uid, old.metadata.uid);
  assert.equal(meta.creationTimestamp, old.metadata.creationTimestamp);
});

test('DELETE: object null, the stored object as oldObject, DeleteOptions (capture 012)', () => {
  const [p] = prepare(`- name: delete
  operation: DELETE
  oldObject:
    kind: ConfigMap
    apiVersion: v1
    metadata: {name: cm-prot, namespace: wh, labels: {mutated-by: test-webhook}, annotations: {protect: "true"}}
    data: {a: "1"}
  options: {propagationPolicy: Background}
  expect: {allowed: true}`);
  for (const built of [mutateRequest(p!), validateRequest(p!, null)]) {
    const sent = capture('012-validate-DELETE-ConfigMap-cm-prot.json');
    assert.deepEqual(Object.keys(built), Object.keys(sent));
    assert.deepEqual(comparable(built), comparable(sent));
    assert.equal(built.object, null);
    // a stored object always has a uid and a creationTimestamp
    const meta = (built.oldObject as { metadata: Record<string, string> }).metadata;
    assert.ok(meta.uid !== undefined && meta.creationTimestamp !== undefined);
  }
});

test('generateName: /mutate sees no name, /validate the generated one (SimpleNameGenerator)', () => {
  const [p] = prepare(`- name: generated
  object:
    apiVersion: v1
    kind: ConfigMap
    metadata: {generateName: job-output-}
  expect: {allowed: true}`);
  const m = mutateRequest(p!);
  assert.equal('name' in m, false, 'omitempty: no name on /mutate');
  assert.equal((m.object as { metadata: Record<string, unknown> }).metadata.name, undefined);
  const v = validateRequest(p!, m.object as never);
  assert.match(v.name!, /^job-output-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal((v.object as { metadata: Record<string, unknown> }).metadata.name, v.name);
  const long = prepare(`- name: long
  object:
    apiVersion: v1
    kind: ConfigMap
    metadata: {generateName: ${'a'.repeat(70)}}
  expect: {allowed: true}`)[0]!;
  assert.equal(validateRequest(long, long.object).name!.length, 63, 'the base is cut to 58 characters');
});

test('namespace filled from the defaults, cleared for cluster-scoped kinds; a Namespace is its own namespace', () => {
  const [pod, ns, node, sub] = prepare(`- name: pod
  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}
  expect: {allowed: true}
- name: namespace
  operation: DELETE
  oldObject: {apiVersion: v1, kind: Namespace, metadata: {name: team-a}}
  expect: {allowed: true}
- name: node
  object: {apiVersion: v1, kind: Node, metadata: {name: n1, namespace: ignored}}
  expect: {allowed: true}
- name: scale
  operation: UPDATE
  resource: {group: apps, version: v1, resource: deployments}
  subResource: scale
  namespace: shop
  oldObject: {apiVersion: autoscaling/v1, kind: Scale, metadata: {name: web}, spec: {replicas: 3}}
  object: {apiVersion: autoscaling/v1, kind: Scale, metadata: {name: web}, spec: {replicas: 50}}
  expect: {allowed: true}`);
  const r = mutateRequest(pod!);
  assert.equal(r.namespace, 'default');
  assert.equal((r.object as { metadata: Record<string, unknown> }).metadata.namespace, 'default');
  const d = mutateRequest(ns!);
  assert.equal(d.namespace, 'team-a');
  assert.deepEqual((d.oldObject as { metadata: { labels: unknown } }).metadata.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  const n = mutateRequest(node!);
  assert.equal('namespace' in n, false);
  assert.equal((n.object as { metadata: Record<string, unknown> }).metadata.namespace, undefined);
  const s = mutateRequest(sub!);
  assert.deepEqual([s.kind, s.resource, s.subResource, s.requestSubResource, s.namespace], [
    { group: 'autoscaling', version: 'v1', kind: 'Scale' }, { group: 'apps', version: 'v1', resource: 'deployments' }, 'scale', 'scale', 'shop',
  ]);
  assert.deepEqual(s.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
});

test('CONNECT: the options object, no oldObject, options null, dryRun false', () => {
  const [p] = prepare(`- name: exec
  operation: CONNECT
  resource: {version: v1, resource: pods}
  subResource: exec
  requestName: p1
  object: {kind: PodExecOptions, apiVersion: v1, stdin: true, tty: true, container: p1, command: [sh]}
  expect: {allowed: true}`);
  const r = mutateRequest(p!);
  assert.deepEqual(comparable(r), {
    kind: { group: '', version: 'v1', kind: 'PodExecOptions' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subResource: 'exec',
    requestKind: { group: '', version: 'v1', kind: 'PodExecOptions' },
    requestResource: { group: '', version: 'v1', resource: 'pods' },
    requestSubResource: 'exec',
    name: 'p1',
    namespace: 'default',
    operation: 'CONNECT',
    userInfo: { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] },
    object: { kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, tty: true, container: 'p1', command: ['sh'] },
    oldObject: null,
    dryRun: false,
    options: null,
  });
});

test('userInfo: system:authenticated added as the authenticator adds it; extra kept; anonymous unauthenticated', () => {
  const [a, b] = prepare(`- name: a
  userInfo: {username: bob, groups: [dev], extra: {scopes: [read]}}
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}
- name: anonymous
  userInfo: {username: "system:anonymous"}
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}`);
  assert.deepEqual(mutateRequest(a!).userInfo, { username: 'bob', groups: ['dev', 'system:authenticated'], extra: { scopes: ['read'] } });
  assert.deepEqual(mutateRequest(b!).userInfo, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
});

test('namespace labels other than kubernetes.io/metadata.name are noted: the daemon cannot see them', () => {
  const [p] = prepare(`- name: labelled
  namespace: team-a
  namespaceLabels: {kubernetes.io/metadata.name: team-a, env: prod}
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}`);
  assert.equal(p!.notes.length, 1);
  assert.match(p!.notes[0]!, /namespace labels "env" are not seen by static-admissiond/);
  assert.throws(() => prepare(`- name: wrong
  namespace: team-a
  namespaceLabels: {kubernetes.io/metadata.name: team-b}
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}`), (err: unknown) => err instanceof SuiteError && /the apiserver sets it to the namespace's name \("team-a"\)/.test(err.message));
});

test('cases the apiserver would refuse before admission are bad cases', () => {
  const bad = (yaml: string, message: RegExp): void => {
    assert.throws(() => prepare(yaml), (err: unknown) => err instanceof SuiteError && message.test(err.message), message.source);
  };
  bad(`- name: x\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {namespace: a}}\n  expect: {allowed: true}`, /cases\[0\]\.object\.metadata\.name: Required value: name or generateName is required/);
  bad(`- name: x\n  namespace: b\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}}\n  expect: {allowed: true}`, /the namespace of the provided object \(a\) does not match the namespace sent on the request/);
  bad(`- name: x\n  operation: DELETE\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}`, /cases\[0\]\.object: Forbidden: a DELETE sends no object/);
  bad(`- name: x\n  operation: UPDATE\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}`, /cases\[0\]\.oldObject: Required value/);
  bad(`- name: x\n  object: {apiVersion: apps/v1beta1, kind: Deployment, metadata: {name: d}}\n  expect: {allowed: true}`, /no matches for kind "Deployment" in version "apps\/v1beta1"/);
  bad(`- name: x\n  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}\n  expect: {allowed: true}`, /kind "Widget" of "example.com\/v1" is not in the table of built-in types: give the case a resource/);
  bad(`- name: x\n  subResource: scale\n  object: {apiVersion: v1, kind: Pod, metadata: {name: p}}\n  expect: {allowed: true}`, /subResource: Unsupported value: "scale": pods has subresources/);
  bad(`- name: x\n  namespace: a\n  object: {apiVersion: v1, kind: Node, metadata: {name: n1}}\n  expect: {allowed: true}`, /namespace: Forbidden: nodes is cluster-scoped/);
  // YAML 1.1, as sigs.k8s.io/yaml reads it: n is false
  bad(`- name: x\n  object: {apiVersion: v1, kind: Node, metadata: {name: n}}\n  expect: {allowed: true}`, /cases\[0\]\.object\.metadata\.name: Invalid value: false: must be a string \(quote it/);
  bad(`- name: x\n  options: {dryRun: [All]}\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}`, /options\.dryRun: Forbidden: set the case's dryRun/);
  bad(`- name: x\n  options: {gracePeriodSeconds: 1}\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}`, /unknown field "cases\[0\]\.options\.gracePeriodSeconds" \(CreateOptions fields: fieldManager, fieldValidation\)/);
});

test('a custom resource with an explicit resource: its wiped creationTimestamp is absent, not null', () => {
  const [p] = prepare(`- name: widget
  resource: {group: example.com, version: v1, resource: widgets}
  object: {apiVersion: example.com/v1, kind: Widget, metadata: {name: w, uid: stale}, spec: {size: 3}}
  expect: {allowed: true}`);
  const r = mutateRequest(p!);
  assert.deepEqual(r.resource, { group: 'example.com', version: 'v1', resource: 'widgets' });
  assert.deepEqual((r.object as { metadata: unknown }).metadata, { name: 'w', namespace: 'default' });
});
