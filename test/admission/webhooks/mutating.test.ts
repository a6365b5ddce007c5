// The MutatingAdmissionWebhook plugin against real local HTTPS webhooks, driven by a small local chain runner with
// upstream's reinvocation (run every plugin; if one asked, run them all again with isReinvoke): patches applied in
// order and seen by the next webhook, reinvocationPolicy IfNeeded (after a later webhook or another plugin changed
// the object), upstream's audit annotations, failures under Fail and Ignore, rejections, metrics type="admit".
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import type { MutatingPlugin, MutatingPluginName, MutationAttributes, MutationResult } from '../../../lib/admission/mutation.js';
import { WebhookClients } from '../../../lib/webhook/client.js';
import { createWebhookMetrics } from '../../../lib/webhook/metrics.js';
import { MutatingWebhookPlugin } from '../../../lib/admission/webhooks/mutating.js';
import { memoryLogger } from '../../server/helpers.js';
import { allow, configMapRequest, configurationYAML, contextFor, deny, loadWebhooks, metricValue, newRegistry, patchReply, startWebhookServer, testPKI } from '../../webhook/helpers.js';
import type { Handler, HookSpec, Received, WebhookServer } from '../../webhook/helpers.js';

const servers: WebhookServer[] = [];
const clients: WebhookClients[] = [];
let caPEM: string;
before(async () => {
  caPEM = (await testPKI()).ca.certPEM;
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(clients.map((c) => c.close()));
});

async function server(handler: Handler): Promise<WebhookServer> {
  const s = await startWebhookServer({ serving: (await testPKI()).serving }, handler);
  servers.push(s);
  return s;
}

function plugin(hooks: readonly HookSpec[]) {
  const registry = newRegistry();
  const c = new WebhookClients();
  clients.push(c);
  const webhooks = loadWebhooks('MutatingAdmissionWebhook', { 'm.yaml': configurationYAML('MutatingWebhookConfiguration', 'm.static.k8s.io', hooks) });
  const p = new MutatingWebhookPlugin({ hooks: () => webhooks, clients: c, metrics: createWebhookMetrics(registry), logger: memoryLogger().logger, excludeWebhookVirtualResources: true });
  return { plugin: p, registry };
}

/** upstream's reinvoker around the plugins: one pass, then a second with isReinvoke if any plugin asked for it */
async function runChain(plugins: readonly MutatingPlugin[], request: AdmissionRequest): Promise<{ result: MutationResult; attributes: MutationAttributes }> {
  let isReinvoke = false;
  let shouldReinvoke = false;
  const values = new Map<MutatingPluginName, unknown>();
  const attributes: MutationAttributes = {
    request,
    object: request.object ?? null,
    reinvocation: {
      get isReinvoke() { return isReinvoke; },
      setShouldReinvoke() { shouldReinvoke = true; },
      value<T>(name: MutatingPluginName, create: () => T): T {
        if (!values.has(name)) values.set(name, create());
        return values.get(name) as T;
      },
    },
    warnings: [],
    auditAnnotations: {},
  };
  const ctx = contextFor();
  for (let pass = 0; pass < 2; pass++) {
    if (pass === 1) {
      if (!shouldReinvoke) break;
      isReinvoke = true;
    }
    for (const p of plugins) {
      const result = await p.admit(attributes, ctx);
      if (!result.allowed) return { result, attributes };
    }
  }
  return { result: { allowed: true }, attributes };
}

type Labels = Record<string, string>;
const labelsOf = (r: Received): Labels => ((r.review.request.object as { metadata: { labels?: Labels } }).metadata.labels ?? {});

/** a webhook that adds label k=v when it is missing */
function addLabel(k: string, v: string): Handler {
  return (r) => (labelsOf(r)[k] === undefined ? patchReply(r, [{ op: 'add', path: `/metadata/labels/${k}`, value: v }]) : allow(r));
}

describe('mutating webhooks', () => {
  test('patches apply in order; IfNeeded webhooks run again after a later change; annotations as upstream', async () => {
    const a = await server(addLabel('a', '1'));
    const b = await server(addLabel('b', '1'));
    const { plugin: p, registry } = plugin([
      { name: 'a.example.static.k8s.io', url: `${a.url}/mutate`, caPEM, reinvocationPolicy: 'IfNeeded' },
      { name: 'b.example.static.k8s.io', url: `${b.url}/mutate`, caPEM, reinvocationPolicy: 'Never' },
    ]);
    const request = configMapRequest();
    const { result, attributes } = await runChain([p], request);
    assert.deepEqual(result, { allowed: true });
    assert.deepEqual((attributes.object as { metadata: { labels: Labels } }).metadata.labels, { app: 'x', a: '1', b: '1' });
    assert.deepEqual((request.object as { metadata: { labels: Labels } }).metadata.labels, { app: 'x' }, 'the request object is never modified');
    assert.equal(a.received.length, 2, 'a is reinvoked');
    assert.equal(b.received.length, 1, 'b (Never) is not');
    assert.deepEqual(labelsOf(b.received[0]!), { app: 'x', a: '1' }, 'b sees the object as modified so far');
    assert.deepEqual(labelsOf(a.received[1]!), { app: 'x', a: '1', b: '1' });
    assert.deepEqual(attributes.auditAnnotations, {
      'patch.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"m.static.k8s.io","webhook":"a.example.static.k8s.io","patch":[{"op":"add","path":"/metadata/labels/a","value":"1"}],"patchType":"JSONPatch"}',
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"m.static.k8s.io","webhook":"a.example.static.k8s.io","mutated":true}',
      'patch.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"m.static.k8s.io","webhook":"b.example.static.k8s.io","patch":[{"op":"add","path":"/metadata/labels/b","value":"1"}],"patchType":"JSONPatch"}',
      'mutation.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"m.static.k8s.io","webhook":"b.example.static.k8s.io","mutated":true}',
      'mutation.webhook.admission.k8s.io/round_1_index_0': '{"configuration":"m.static.k8s.io","webhook":"a.example.static.k8s.io","mutated":false}',
    });
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_request_total', { name: 'a.example.static.k8s.io', type: 'admit', operation: 'CREATE', code: '200', rejected: 'false' }), 2);
  });

  test('an IfNeeded webhook runs again when another plugin changed the object between the passes', async () => {
    const a = await server(addLabel('a', '1'));
    const { plugin: p } = plugin([{ name: 'a.example.static.k8s.io', url: `${a.url}/mutate`, caPEM, reinvocationPolicy: 'IfNeeded' }]);
    const policyLike: MutatingPlugin = {
      name: 'MutatingAdmissionPolicy',
      async admit(attributes) {
        if (!attributes.reinvocation.isReinvoke) {
          const o = attributes.object as { metadata: { labels: Labels } };
          attributes.object = { ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, z: '1' } } };
          attributes.reinvocation.setShouldReinvoke();
        }
        return { allowed: true };
      },
    };
    const { attributes } = await runChain([p, policyLike], configMapRequest());
    assert.equal(a.received.length, 2);
    assert.deepEqual(labelsOf(a.received[1]!), { app: 'x', a: '1', z: '1' });
    assert.deepEqual((attributes.object as { metadata: { labels: Labels } }).metadata.labels, { app: 'x', a: '1', z: '1' });
  });

  test('without a change nothing is reinvoked', async () => {
    const a = await server((r) => allow(r));
    const { plugin: p } = plugin([{ name: 'a.example.static.k8s.io', url: `${a.url}/mutate`, caPEM, reinvocationPolicy: 'IfNeeded' }]);
    await runChain([p], configMapRequest());
    assert.equal(a.received.length, 1);
  });

  test('failurePolicy Fail stops the chain; Ignore goes on with a failed-open annotation', async () => {
    const broken = await server(() => ({ text: 'boom', status: 500 }));
    const b = await server(addLabel('b', '1'));
    const failing = plugin([
      { name: 'broken.example.static.k8s.io', url: `${broken.url}/mutate`, caPEM, failurePolicy: 'Fail' },
      { name: 'b.example.static.k8s.io', url: `${b.url}/mutate`, caPEM },
    ]);
    const denied = await runChain([failing.plugin], configMapRequest());
    assert.equal(denied.result.allowed, false);
    assert.equal(!denied.result.allowed && denied.result.status.message, 'Internal error occurred: failed calling webhook "broken.example.static.k8s.io": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding');
    assert.equal(b.received.length, 0);
    assert.equal(await metricValue(failing.registry, 'apiserver_admission_webhook_rejection_count', { name: 'broken.example.static.k8s.io', type: 'admit', error_type: 'calling_webhook_error', rejection_code: '500' }), 1);

    const ignoring = plugin([
      { name: 'broken.example.static.k8s.io', url: `${broken.url}/mutate`, caPEM, failurePolicy: 'Ignore' },
      { name: 'b.example.static.k8s.io', url: `${b.url}/mutate`, caPEM },
    ]);
    const admitted = await runChain([ignoring.plugin], configMapRequest());
    assert.deepEqual(admitted.result, { allowed: true });
    assert.equal(admitted.attributes.auditAnnotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_0'], 'broken.example.static.k8s.io');
    assert.equal(admitted.attributes.auditAnnotations['mutation.webhook.admission.k8s.io/round_0_index_0'], '{"configuration":"m.static.k8s.io","webhook":"broken.example.static.k8s.io","mutated":false}');
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_webhook_fail_open_count', { name: 'broken.example.static.k8s.io', type: 'admit' }), 1);
    assert.equal(b.received.length, 1);
  });

  test('a rejection denies with the webhook Status; warnings are kept', async () => {
    const d = await server((r) => deny(r, { code: 422, message: 'bad labels', reason: 'Invalid' }, { warnings: ['w1'] }));
    const { plugin: p, registry } = plugin([{ name: 'deny.example.static.k8s.io', url: `${d.url}/mutate`, caPEM }]);
    const { result, attributes } = await runChain([p], configMapRequest());
    assert.equal(result.allowed, false);
    assert.deepEqual(!result.allowed && { message: result.status.message, code: result.status.code, reason: result.status.reason }, { message: 'admission webhook "deny.example.static.k8s.io" denied the request: bad labels', code: 422, reason: 'Invalid' });
    assert.deepEqual(attributes.warnings, ['w1']);
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_rejection_count', { name: 'deny.example.static.k8s.io', type: 'admit', error_type: 'no_error', rejection_code: '422' }), 1);
  });

  test('a patch for a request without an object, a patch without patchType, a patch that does not apply', async () => {
    const patching = await server((r) => patchReply(r, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }]));
    const { plugin: p } = plugin([{ name: 'p.example.static.k8s.io', url: `${patching.url}/mutate`, caPEM, operations: ['DELETE'] }]);
    const del = await runChain([p], configMapRequest({ operation: 'DELETE', object: null, oldObject: configMapRequest().object }));
    assert.equal(!del.result.allowed && del.result.status.message, 'Internal error occurred: admission webhook "p.example.static.k8s.io" attempted to modify the object, which is not supported for this operation');

    const noType = await server((r) => allow(r, { patch: Buffer.from('[]').toString('base64') }));
    const q = plugin([{ name: 'q.example.static.k8s.io', url: `${noType.url}/mutate`, caPEM }]);
    const r1 = await runChain([q.plugin], configMapRequest());
    assert.equal(!r1.result.allowed && r1.result.status.message, 'Internal error occurred: failed calling webhook "q.example.static.k8s.io": received invalid webhook response: webhook returned response.patch but not response.patchType');

    const bad = await server((r) => patchReply(r, [{ op: 'replace', path: '/spec/missing', value: 1 }]));
    const s = plugin([{ name: 's.example.static.k8s.io', url: `${bad.url}/mutate`, caPEM }]);
    const r2 = await runChain([s.plugin], configMapRequest());
    assert.equal(r2.result.allowed, false);
    assert.match(!r2.result.allowed ? r2.result.status.message ?? '' : '', /^Internal error occurred: /);
    assert.equal(await metricValue(s.registry, 'apiserver_admission_webhook_rejection_count', { name: 's.example.static.k8s.io', type: 'admit', error_type: 'apiserver_internal_error', rejection_code: '0' }), 1);
  });
});

describe('mutating webhook patches as upstream decodes and applies them (evanphx json-patch v4)', () => {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const rawPatch = (text: string): Handler => (r) => allow(r, { patchType: 'JSONPatch', patch: b64(text) });
  const denial = (result: MutationResult): { message: string | undefined; code: number | undefined; reason: string | undefined } =>
    (result.allowed ? { message: undefined, code: undefined, reason: undefined } : { message: result.status.message, code: result.status.code, reason: result.status.reason });
  async function admitWith(handler: Handler, request = configMapRequest(), failurePolicy: 'Fail' | 'Ignore' = 'Fail') {
    const s = await server(handler);
    const { plugin: p, registry } = plugin([{ name: 'p.example.static.k8s.io', url: `${s.url}/mutate`, caPEM, failurePolicy }]);
    return { ...(await runChain([p], request)), registry };
  }

  test('replace of a missing object key adds it', async () => {
    const { result, attributes } = await admitWith((r) => patchReply(r, [{ op: 'replace', path: '/data/new', value: 'x' }]));
    assert.deepEqual(result, { allowed: true });
    assert.deepEqual((attributes.object as { data: unknown }).data, { k: 'v', new: 'x' });
  });

  test('add without a value adds null', async () => {
    const { result, attributes } = await admitWith((r) => patchReply(r, [{ op: 'add', path: '/data/n' }]));
    assert.deepEqual(result, { allowed: true });
    assert.deepEqual((attributes.object as { data: unknown }).data, { k: 'v', n: null });
  });

  test('add at index -1 appends: evanphx counts a negative add index over size+1', async () => {
    const request = configMapRequest({ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', finalizers: ['a', 'b'] } } });
    const { result, attributes } = await admitWith((r) => patchReply(r, [{ op: 'add', path: '/metadata/finalizers/-1', value: 'x' }]), request);
    assert.deepEqual(result, { allowed: true });
    assert.deepEqual((attributes.object as { metadata: { finalizers: unknown } }).metadata.finalizers, ['a', 'b', 'x']);
    // the object the chain started with is never modified
    assert.deepEqual((request.object as { metadata: { finalizers: unknown } }).metadata.finalizers, ['a', 'b']);
  });

  test('a failing test operation is an internal error (Patch.Apply reports it), counted as apiserver_internal_error', async () => {
    const { result, registry, attributes } = await admitWith((r) => patchReply(r, [{ op: 'add', path: '/data/a', value: '1' }, { op: 'test', path: '/data/k', value: 'other' }]));
    assert.deepEqual(denial(result), { message: 'Internal error occurred: testing value /data/k failed: test failed', code: 500, reason: 'InternalError' });
    assert.deepEqual((attributes.object as { data: unknown }).data, { k: 'v' });
    assert.equal(await metricValue(registry, 'apiserver_admission_webhook_rejection_count', { name: 'p.example.static.k8s.io', type: 'admit', error_type: 'apiserver_internal_error', rejection_code: '0' }), 1);
  });

  test('operations whose op or path do not decode fail with evanphx\'s messages', async () => {
    const cases: Array<[unknown[], string]> = [
      [[{ path: '/data/x', value: 1 }], 'Unexpected kind: unknown'],
      [[{ op: 7, path: '/data/x' }], 'Unexpected kind: unknown'],
      [[null], 'Unexpected kind: unknown'],
      [[{ op: 'replace', value: 1 }], 'replace operation failed to decode path: operation missing path field: missing value'],
      [[{ op: 'test', path: 3, value: 1 }], 'test operation failed to decode path: json: cannot unmarshal number into Go value of type string'],
      // add, remove and copy wrap ErrMissing whatever the cause
      [[{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
      [[{ op: 'remove', path: null }], 'remove operation failed to decode path: missing value'],
      // move reads from (and removes it) before the path
      [[{ op: 'move', from: '/data/nope' }], 'error in move for path: \'nope\': Unable to remove nonexistent key: nope: missing value'],
      [[{ op: 'move', from: '/data/k' }], 'move operation failed to decode path: operation missing path field: missing value'],
      [[{ op: 'copy', from: 1, path: '/data/x' }], 'copy operation failed to decode from: json: cannot unmarshal number into Go value of type string'],
      // the operations before a bad one are applied first: their error comes first
      [[{ op: 'remove', path: '/data/nope' }, { op: 'add' }], 'error in remove for path: \'/data/nope\': Unable to remove nonexistent key: nope: missing value'],
    ];
    for (const [ops, message] of cases) {
      const { result } = await admitWith((r) => patchReply(r, ops));
      assert.deepEqual(denial(result), { message: `Internal error occurred: ${message}`, code: 500, reason: 'InternalError' }, JSON.stringify(ops));
    }
  });

  test('a JSON null patch is an empty patch: nothing applied, no patch annotation', async () => {
    const { result, attributes } = await admitWith(rawPatch('null'));
    assert.deepEqual(result, { allowed: true });
    assert.equal(attributes.auditAnnotations['patch.webhook.admission.k8s.io/round_0_index_0'], undefined);
    assert.equal(attributes.auditAnnotations['mutation.webhook.admission.k8s.io/round_0_index_0'], '{"configuration":"m.static.k8s.io","webhook":"p.example.static.k8s.io","mutated":false}');
  });

  test('a patch that is not an array of objects is undecodable: a call error (503) under the failure policy', async () => {
    const cases: Array<[string, string]> = [
      ['{}', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
      ['[1]', 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
      ['[[]]', 'json: cannot unmarshal array into Go value of type jsonpatch.Operation'],
    ];
    for (const [text, cause] of cases) {
      const failing = await admitWith(rawPatch(text));
      assert.deepEqual(denial(failing.result), { message: `Internal error occurred: failed calling webhook "p.example.static.k8s.io": received undecodable patch in webhook response: ${cause}`, code: 500, reason: 'InternalError' }, text);
      assert.equal(await metricValue(failing.registry, 'apiserver_admission_webhook_rejection_count', { name: 'p.example.static.k8s.io', type: 'admit', error_type: 'calling_webhook_error', rejection_code: '503' }), 1);

      const ignoring = await admitWith(rawPatch(text), configMapRequest(), 'Ignore');
      assert.deepEqual(ignoring.result, { allowed: true }, text);
      assert.equal(ignoring.attributes.auditAnnotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_0'], 'p.example.static.k8s.io');
      assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_webhook_fail_open_count', { name: 'p.example.static.k8s.io', type: 'admit' }), 1);
      assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_webhook_request_total', { name: 'p.example.static.k8s.io', type: 'admit', code: '503', rejected: 'false' }), 1);
    }
  });

  test('a wrongly typed response.status fails the call (failure policy applies); the mutating code stays 503', async () => {
    const failing = await admitWith((r) => deny(r, { code: '403', message: 'no' }));
    assert.deepEqual(denial(failing.result), { message: 'Internal error occurred: failed calling webhook "p.example.static.k8s.io": failed to call webhook: json: cannot unmarshal string into Go struct field Status.response.status.code of type int32', code: 500, reason: 'InternalError' });
    assert.equal(await metricValue(failing.registry, 'apiserver_admission_webhook_rejection_count', { name: 'p.example.static.k8s.io', type: 'admit', error_type: 'calling_webhook_error', rejection_code: '503' }), 1);
    const ignoring = await admitWith((r) => deny(r, { code: 403, message: 'no', details: { retryAfterSeconds: 1.5 } }), configMapRequest(), 'Ignore');
    assert.deepEqual(ignoring.result, { allowed: true });
    assert.equal(await metricValue(ignoring.registry, 'apiserver_admission_webhook_fail_open_count', { name: 'p.example.static.k8s.io', type: 'admit' }), 1);
  });
});
