// Objects nested as deep as kube-apiserver decodes them, through the real executable on both endpoints. Upstream's
// JSON decoder stops at 10,000 levels (sigs.k8s.io/json internal/golang/encoding/json/scanner.go: maxNestingDepth =
// 10000, `invalid character '{' exceeded max depth`; k8s.io/apimachinery pkg/util/json/json.go: maxDepth = 10000), so
// an object the apiserver sends can nest that deep. Each step must cope: the parse, the conversion to CEL values (on
// the policy workers for /validate, on the main thread for /mutate), a JSONPatch's test/copy/move, an
// ApplyConfiguration merged over the same deep subtree, reinvocation's comparison, the calls to static webhooks and
// the patch a webhook returns, and the final diff that becomes the answer's JSONPatch. One level more is refused with
// a 400 naming the limit, never a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { equalJson, stringifyJson } from '../../lib/json/index.js';
import { tempDir } from '../helpers/fs.js';
import { allow, configurationYAML, patchReply, startWebhookServer, testPKI } from '../webhook/helpers.js';
import type { WebhookServer } from '../webhook/helpers.js';
import { post, spawnDaemon, stop, waitFor } from './helpers.js';
import type { Daemon } from './helpers.js';

const maxDepth = 10_000;

/** A value nesting `levels` containers, objects and arrays in turn ({"a":[{"a":[…1…]}]}). */
function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = levels - 1; i >= 0; i--) v = i % 2 === 0 ? { a: v } : [v];
  return v;
}

/** The JSON Pointer to the leaf of nested(levels). */
function leafPath(levels: number): string {
  let path = '';
  for (let i = 0; i < levels; i++) path += i % 2 === 0 ? '/a' : '/0';
  return path;
}

/** The nesting depth of a JSON value, walked without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [v, d] = item;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) pending.push([child, d + 1]);
  }
  return max;
}

/** A widget whose spec.deep makes the whole object nest `depth` levels (object and spec are two). */
function widget(name: string, depth: number, leaf: unknown = 1): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { deep: nested(depth - 2, leaf) } };
}

function review(object: Record<string, unknown>): string {
  const name = (object['metadata'] as { name: string }).name;
  return stringifyJson({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `deep-${name}`, kind: { group: 'example.com', version: 'v1', kind: 'Widget' }, resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      requestKind: { group: 'example.com', version: 'v1', kind: 'Widget' }, requestResource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      name, namespace: 'default', operation: 'CREATE', userInfo: { username: 'alice' }, object, oldObject: null, dryRun: false,
    },
  });
}

/** Applies add/replace/remove operations with pointers of any length (the test's own, independent of lib/). */
function applyOps(doc: unknown, ops: ReadonlyArray<{ op: string; path: string; value?: unknown }>): unknown {
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let parent = doc as Record<string, unknown>;
    for (const p of parts.slice(0, -1)) parent = parent[p] as Record<string, unknown>;
    const last = parts[parts.length - 1]!;
    if (op.op === 'remove') delete parent[last];
    else if (op.op === 'add' || op.op === 'replace') parent[last] = op.value;
    else assert.fail(`unexpected operation ${op.op}`);
  }
  return doc;
}

const tmp = tempDir('sad-e2e-deep-');
let daemon: Daemon;
let url: string;
let caPEM: string;
let validatingWebhook: WebhookServer;
let mutatingWebhook: WebhookServer;

before(async () => {
  const { ca, serving } = await testPKI();
  caPEM = ca.certPEM;
  validatingWebhook = await startWebhookServer({ serving }, (r) => allow(r));
  // replaces the innermost value of spec.deep: the daemon applies a pointer 10,000 segments long
  mutatingWebhook = await startWebhookServer({ serving }, (r) => {
    const depth = depthOf(r.review.request.object);
    return patchReply(r, [{ op: 'replace', path: `/spec/deep${leafPath(depth - 2)}`, value: 2 }]);
  });
  const dirs = ['policies', 'mutating', 'webhooks', 'mutating-webhooks'].map((d) => join(tmp.dir, d));
  dirs.forEach((d) => mkdirSync(d));
  const rules = '    resourceRules:\n    - {apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}';
  writeFileSync(join(dirs[0]!, 'p.yaml'), `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deep.static.k8s.io}
spec:
  failurePolicy: Fail
  matchConstraints:
${rules}
  validations:
  - expression: "object.metadata.name != 'denied' && has(object.spec.deep.a)"
    message: "denied by name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deep-binding.static.k8s.io}
spec: {policyName: deep.static.k8s.io, validationActions: [Deny]}
`);
  writeFileSync(join(dirs[1]!, 'm.yaml'), `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: patch.static.k8s.io}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
${rules}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "test", path: "/spec/deep", value: object.spec.deep},
         JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "deep"}},
         JSONPatch{op: "copy", from: "/spec/deep", path: "/spec/c1"},
         JSONPatch{op: "move", from: "/spec/c1", path: "/spec/copy"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: patch-binding.static.k8s.io}
spec: {policyName: patch.static.k8s.io}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: apply.static.k8s.io}
spec:
  failurePolicy: Fail
  reinvocationPolicy: IfNeeded
  matchConstraints:
${rules}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{spec: Object.spec{deep: object.spec.deep, extra: "x"}}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: apply-binding.static.k8s.io}
spec: {policyName: apply.static.k8s.io}
`);
  const hook = (name: string, server: WebhookServer, path: string) => ({ name, url: `${server.url}${path}`, caPEM, apiGroups: ['example.com'], resources: ['widgets'], operations: ['CREATE'] });
  writeFileSync(join(dirs[2]!, 'v.yaml'), configurationYAML('ValidatingWebhookConfiguration', 'deep-v.static.k8s.io', [hook('v.deep.static.k8s.io', validatingWebhook, '/validate')]));
  writeFileSync(join(dirs[3]!, 'm.yaml'), configurationYAML('MutatingWebhookConfiguration', 'deep-m.static.k8s.io', [hook('m.deep.static.k8s.io', mutatingWebhook, '/mutate')]));
  const plugin = (name: string, kind: string, dir: string) => `- name: ${name}\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ${kind}\n    staticManifestsDir: ${JSON.stringify(dir)}\n`;
  writeFileSync(join(tmp.dir, 'admission-config.yaml'), `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${
    plugin('ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyConfiguration', dirs[0]!)}${
    plugin('MutatingAdmissionPolicy', 'MutatingAdmissionPolicyConfiguration', dirs[1]!)}${
    plugin('ValidatingAdmissionWebhook', 'WebhookAdmissionConfiguration', dirs[2]!)}${
    plugin('MutatingAdmissionWebhook', 'WebhookAdmissionConfiguration', dirs[3]!)}`);
  const { serving: daemonPair } = await testPKI();
  writeFileSync(join(tmp.dir, 'tls.crt'), daemonPair.certPEM);
  writeFileSync(join(tmp.dir, 'tls.key'), daemonPair.keyPEM);
  // one policy worker: /validate converts the object on a worker thread, /mutate on the main thread
  daemon = spawnDaemon(['serve', '--admission-config', join(tmp.dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0', '--secure-port', '0',
    '--workers', '1', '--tls-cert-file', join(tmp.dir, 'tls.crt'), '--tls-private-key-file', join(tmp.dir, 'tls.key')]);
  url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
});

after(async () => {
  if (daemon) await stop(daemon);
  await validatingWebhook?.close();
  await mutatingWebhook?.close();
  tmp.cleanup();
});

interface Answer {
  response: { uid: string; allowed: boolean; patch?: string; patchType?: string; status?: { code: number; message: string } };
}

async function admit(endpoint: string, body: string): Promise<Answer> {
  const res = await post(`${url}${endpoint}?timeout=10s`, caPEM, body);
  assert.equal(res.status, 200, res.body.slice(0, 500));
  return JSON.parse(res.body) as Answer;
}

describe(`objects nested ${maxDepth} levels`, () => {
  test('/validate: the policy decides on the converted object and the webhook receives it whole', async () => {
    const object = widget('w1', maxDepth);
    assert.equal(depthOf(object), maxDepth);
    const answer = await admit('/validate', review(object));
    assert.deepEqual(answer.response, { uid: 'deep-w1', allowed: true });
    const sent = validatingWebhook.received.at(-1)!;
    assert.equal(sent.review.request.name, 'w1');
    assert.ok(equalJson(sent.review.request.object, object), 'the webhook got the object as sent');

    const denied = await admit('/validate', review(widget('denied', maxDepth)));
    assert.equal(denied.response.allowed, false);
    assert.match(denied.response.status!.message, /denied request: denied by name$/);
  });

  test('/mutate: JSONPatch test/copy/move, an ApplyConfiguration over the deep subtree, a webhook patch at the leaf, one JSONPatch answer', async () => {
    const object = widget('w2', maxDepth);
    const answer = await admit('/mutate', review(object));
    assert.equal(answer.response.allowed, true, JSON.stringify(answer.response.status));
    assert.equal(answer.response.patchType, 'JSONPatch');
    // the webhook saw the object the policies left: labelled, the copy made, the leaf still 1
    const seen = mutatingWebhook.received.at(-1)!.review.request.object as { metadata: { labels: unknown }; spec: Record<string, unknown> };
    assert.deepEqual(seen.metadata.labels, { team: 'deep' });
    assert.ok(equalJson(seen.spec['copy'], (object['spec'] as { deep: unknown }).deep));

    const ops = JSON.parse(Buffer.from(answer.response.patch!, 'base64').toString('utf8')) as Array<{ op: string; path: string; value?: unknown }>;
    const applied = applyOps(JSON.parse(stringifyJson(object)), ops);
    const expected = widget('w2', maxDepth, 2) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    expected.metadata['labels'] = { team: 'deep' };
    expected.spec['copy'] = nested(maxDepth - 2, 1);
    expected.spec['extra'] = 'x';
    assert.ok(equalJson(applied, expected), `the patch leads to the mutated object; operations: ${stringifyJson(ops.map((o) => ({ op: o.op, path: o.path.slice(0, 40) })))}`);
    // the leaf changed 10,000 levels down: the diff descended all the way
    assert.ok(ops.some((o) => o.op === 'replace' && o.path === `/spec/deep${leafPath(maxDepth - 2)}` && o.value === 2), 'one replace at the leaf');
  });
});

describe(`one level more than ${maxDepth}`, () => {
  for (const endpoint of ['/validate', '/mutate']) {
    test(`${endpoint}: 400 naming the limit, nothing evaluated`, async () => {
      const calls = validatingWebhook.received.length + mutatingWebhook.received.length;
      const body = review(widget('too-deep', maxDepth + 1));
      const res = await post(`${url}${endpoint}?timeout=10s`, caPEM, body);
      assert.equal(res.status, 400, res.body.slice(0, 300));
      const status = JSON.parse(res.body) as { code: number; reason: string; message: string };
      // the review holds its object at level 3, so the bracket opening level 10,003 is the one past the limit (no
      // string in this body contains a bracket)
      let depth = 0;
      let position = -1;
      for (let i = 0; i < body.length && position < 0; i++) {
        if (body[i] === '{' || body[i] === '[') {
          if (++depth === maxDepth + 3) position = i;
        } else if (body[i] === '}' || body[i] === ']') depth--;
      }
      assert.equal(status.code, 400);
      assert.equal(status.reason, 'BadRequest');
      assert.equal(status.message, `request body nests deeper than kube-apiserver decodes: invalid character '${body[position]}' exceeded max depth at position ${position} (line 1, column ${position + 1}): an object may nest 10000 levels (10002 in the AdmissionReview around it)`);
      assert.equal(validatingWebhook.received.length + mutatingWebhook.received.length, calls, 'no webhook was called');
    });
  }
});
