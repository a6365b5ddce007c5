// The MutatingAdmissionPolicy plugin's decisions: failurePolicy for each kind of error, the Status of a denial,
// matchConditions, variables, DELETE, metrics checks, and reinvocation across policies and a later plugin.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { MutatingPlugin } from '../../../lib/admission/mutation.js';
import { loadHooks, mutate, pod, policy, requestFor } from './helpers.js';

const labelsOf = (o: unknown): Record<string, string> => ((o as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {});
const addLabel = (k: string, v: string): string => `Object{metadata: Object.metadata{labels: {"${k}": ${v}}}}`;
const aPod = (): Record<string, unknown> => pod({ containers: [{ name: 'c', image: 'i' }] }, { labels: { app: 'web' } });

describe('failurePolicy for each kind of error', () => {
  const kinds: ReadonlyArray<[string, { jsonPatch: string } | { applyConfiguration: string }, string]> = [
    // the failing mutation is the document's last block scalar: upstream trims the document (k8s.io/apiserver
    // pkg/admission/plugin/manifest loader.go bytes.TrimSpace), so its text ends without a line break (fixture
    // yaml-block-scalar-at-document-end)
    ['an evaluation error', { applyConfiguration: 'Object{metadata: Object.metadata{labels: {"x": object.spec.nope}}}' },
      "expression 'Object{metadata: Object.metadata{labels: {\"x\": object.spec.nope}}}' resulted in error: no such key: nope"],
    ['a JSON Patch that does not apply', { jsonPatch: '[JSONPatch{op: "remove", path: "/metadata/annotations/none"}]' },
      'JSON Patch: remove operation does not apply: doc is missing path: "/metadata/annotations/none": missing value'],
    ['an unknown op', { jsonPatch: '[JSONPatch{op: "merge", path: "/metadata/labels"}]' }, 'JSON Patch: Unexpected kind: merge'],
    ['an apply configuration with an undeclared field', { applyConfiguration: 'Object{spec: Object.spec{nope: 1}}' },
      'error applying patch: failed to convert patch object to typed object: .spec.nope: field not declared in schema'],
    ['an apply configuration on an atomic map', { applyConfiguration: 'Object{spec: Object.spec{nodeSelector: {"a": "b"}}}' },
      'error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.nodeSelector'],
  ];
  for (const [name, mutation, error] of kinds) {
    it(`${name}: Fail denies with upstream's Status, Ignore admits and keeps the mutations that applied`, async () => {
      const good = { applyConfiguration: addLabel('good', '"yes"') };
      const fail = await mutate(loadHooks(policy('p', [good, mutation])), requestFor(aPod()));
      assert.equal(fail.response.allowed, false);
      const message = `policy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: ${error}`;
      assert.deepEqual(fail.response.status, {
        metadata: {}, status: 'Failure', message, reason: 'Invalid', code: 403,
        details: { name: 'p', group: '', kind: 'pods', causes: [{ message }] },
      });
      assert.equal(fail.response.patch, undefined);
      const ignore = await mutate(loadHooks(policy('p', [good, mutation], { failurePolicy: 'Ignore' })), requestFor(aPod()));
      assert.equal(ignore.response.allowed, true);
      assert.deepEqual(labelsOf(ignore.patched), { app: 'web', good: 'yes' });
      assert.deepEqual(ignore.checks.map((c) => c.errorType), ['no_error', 'invalid_error']);
    });
  }

  it('a failing variable: composited variable "<name>" fails to evaluate, inside the mutation\'s error (plugin/cel/composition.go)', async () => {
    const extra = '  variables:\n  - name: bad\n    expression: "object.metadata.nope"\n';
    const inner = 'composited variable "bad" fails to evaluate: no such key: nope';
    const denied = "policy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: ";
    const mutation = await mutate(loadHooks(policy('p', [{ applyConfiguration: addLabel('x', 'variables.bad') }], { extra })), requestFor(aPod()));
    // (the expression ends the document, so without a line break, as in the first case above)
    assert.equal(mutation.response.status?.message, `${denied}expression '${addLabel('x', 'variables.bad')}' resulted in error: ${inner}`);
    const patch = await mutate(loadHooks(policy('p', [{ jsonPatch: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: variables.bad}]' }], { extra })), requestFor(aPod()));
    assert.equal(patch.response.status?.message, `${denied}expression '[JSONPatch{op: "add", path: "/metadata/labels/x", value: variables.bad}]' resulted in error: ${inner}`);
  });

  it('a matchCondition error: Fail denies (reason Invalid), Ignore skips the policy', async () => {
    const extra = '  matchConditions:\n  - name: broken\n    expression: "object.metadata.nope == \'x\'"\n';
    const fail = await mutate(loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }], { extra })), requestFor(aPod()));
    assert.equal(fail.response.status?.message, "policy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: expression 'object.metadata.nope == 'x'' resulted in error: no such key: nope");
    assert.equal(fail.response.status?.reason, 'Invalid');
    const ignore = await mutate(loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }], { extra, failurePolicy: 'Ignore' })), requestFor(aPod()));
    assert.equal(ignore.response.allowed, true);
    assert.equal(ignore.response.patch, undefined);
    assert.deepEqual(ignore.checks, [], 'no mutation was evaluated');
  });

  it('a binding whose namespace selector cannot be decided: a configuration error under the failure policy', async () => {
    const bindingExtra = '  matchResources:\n    namespaceSelector: {matchLabels: {team: a}}\n';
    const fail = await mutate(loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }], { bindingExtra })), requestFor(aPod()));
    assert.equal(fail.response.allowed, false);
    assert.match(fail.response.status?.message ?? '', /^policy 'p\.static\.k8s\.io' with binding 'p-binding\.static\.k8s\.io' denied request: failed to configure binding: /);
    assert.equal(fail.response.status?.reason, 'Forbidden');
    const ignore = await mutate(loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }], { bindingExtra, failurePolicy: 'Ignore' })), requestFor(aPod()));
    assert.equal(ignore.response.allowed, true);
  });

  it('every failing policy is a cause; the first one is the message', async () => {
    const hooks = loadHooks(policy('a', [{ jsonPatch: '[JSONPatch{op: "merge", path: "/x"}]' }]) + policy('b', [{ jsonPatch: '[JSONPatch{op: "copy", path: "/x"}]' }]));
    const { response } = await mutate(hooks, requestFor(aPod()));
    assert.deepEqual(response.status?.details?.causes?.map((c) => c.message), [
      "policy 'a.static.k8s.io' with binding 'a-binding.static.k8s.io' denied request: JSON Patch: Unexpected kind: merge",
      "policy 'b.static.k8s.io' with binding 'b-binding.static.k8s.io' denied request: JSON Patch: copy operation failed to decode from: operation, missing from field: missing value",
    ]);
  });
});

describe('evaluation', () => {
  it('variables are read lazily, matchConditions select, and the object seen is the one mutated so far', async () => {
    const extra = '  variables:\n  - name: tier\n    expression: "\'front\'"\n  matchConditions:\n  - name: web-only\n    expression: "object.metadata.labels.app == \'web\'"\n';
    const hooks = loadHooks(
      policy('first', [{ applyConfiguration: addLabel('tier', 'variables.tier') }], { extra }) +
      policy('second', [{ applyConfiguration: addLabel('seen', 'object.metadata.labels.tier') }]),
    );
    const { patched } = await mutate(hooks, requestFor(aPod()));
    assert.deepEqual(labelsOf(patched), { app: 'web', tier: 'front', seen: 'front' });
    // the first policy does not match a db pod, so the second reads a label that is not there
    const other = await mutate(hooks, requestFor(pod({ containers: [] }, { labels: { app: 'db' } })));
    assert.equal(other.response.allowed, false);
    assert.match(other.response.status?.message ?? '', /^policy 'second\.static\.k8s\.io' with binding 'second-binding\.static\.k8s\.io' denied request: expression '.*' resulted in error: no such key: tier$/s);
  });

  it('DELETE is not handled at all (operations "*" match it; DELETE itself may not be listed): not even a failing matchCondition runs', async () => {
    const hooks = loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }], { operations: '["*"]', extra: '  matchConditions:\n  - name: broken\n    expression: "oldObject.metadata.nope == \'p\'"\n' }));
    const { response, checks } = await mutate(hooks, requestFor(aPod(), 'DELETE', aPod()));
    assert.deepEqual(response, { uid: 'u-1', allowed: true });
    assert.deepEqual(checks, []);
  });

  it('an object no policy changes gets no patch', async () => {
    const hooks = loadHooks(policy('p', [{ applyConfiguration: addLabel('app', '"web"') }]));
    const { response, checks } = await mutate(hooks, requestFor(aPod()));
    assert.deepEqual(response, { uid: 'u-1', allowed: true });
    assert.equal(checks.length, 1, 'applied once: it changed nothing, and a Never policy is not run again');
  });
});

/**
 * The webhook plugin's place in the chain: in the first pass it sets the label `key` to `value` and asks for the
 * second; `seen` gets the object it was given in each pass.
 */
function labellingWebhook(key: string, value: string, seen: unknown[]): MutatingPlugin {
  return {
    name: 'MutatingAdmissionWebhook',
    admit(attributes) {
      seen.push(attributes.object);
      if (!attributes.reinvocation.isReinvoke) {
        const object = structuredClone(attributes.object) as { metadata: { labels: Record<string, string> } };
        object.metadata.labels[key] = value;
        attributes.object = object;
        attributes.reinvocation.setShouldReinvoke();
      }
      return Promise.resolve({ allowed: true });
    },
  };
}

describe('reinvocation', () => {
  it('an IfNeeded policy runs again when a later policy changed the object; a Never policy does not', async () => {
    const counter = (name: string, reinvocationPolicy: 'IfNeeded' | 'Never'): string => policy(name, [{
      applyConfiguration: addLabel(name, `string(int(object.?metadata.labels["${name}"].orValue("0")) + 1)`),
    }], { reinvocationPolicy });
    const ifNeeded = await mutate(loadHooks(counter('a', 'IfNeeded') + counter('b', 'IfNeeded')), requestFor(aPod()));
    assert.deepEqual(labelsOf(ifNeeded.patched), { app: 'web', a: '2', b: '2' });
    const never = await mutate(loadHooks(counter('a', 'Never') + counter('b', 'Never')), requestFor(aPod()));
    assert.deepEqual(labelsOf(never.patched), { app: 'web', a: '1', b: '1' });
  });

  it('the upstream dispatcher case: a label set by the first policy lets the second match; the first still does not match after', async () => {
    const hooks = loadHooks(
      policy('first', [{ applyConfiguration: addLabel('environment', '"production"') }]) +
      policy('second', [{ applyConfiguration: addLabel('policy1invoked', '"true"') }], { extra: '  matchConditions:\n  - name: prodonly\n    expression: "object.?metadata.labels[\\"environment\\"].orValue(\\"\\") == \\"production\\""\n' }),
    );
    const { patched } = await mutate(hooks, requestFor(aPod()));
    assert.deepEqual(labelsOf(patched), { app: 'web', environment: 'production', policy1invoked: 'true' });
  });

  it('a change by a later plugin (the webhook plugin\'s place) makes IfNeeded policies run in the second pass', async () => {
    const hooks = loadHooks(policy('copy', [{ applyConfiguration: addLabel('copied', 'object.?metadata.labels["hook"].orValue("none")') }], { reinvocationPolicy: 'IfNeeded' }));
    const seen: unknown[] = [];
    const { patched } = await mutate(hooks, requestFor(aPod()), [labellingWebhook('hook', 'set', seen)]);
    assert.deepEqual(labelsOf(patched), { app: 'web', copied: 'set', hook: 'set' });
    assert.equal(seen.length, 2);
  });

  it('the second pass reads the request\'s own oldObject, namespaceObject and request, kept from the first; the next request its own', async () => {
    // the activation's fixed values and `request` are converted once per request and kind, and used in both passes
    const seen = '(oldObject == null ? "none" : oldObject.metadata.name) + "," + namespaceObject.metadata.name + "," + request.namespace + "," + request.operation';
    const hooks = loadHooks(policy('seen', [{ applyConfiguration: addLabel('seen', seen) }], { reinvocationPolicy: 'IfNeeded' }));
    const objects: unknown[] = [];
    const webhook = labellingWebhook('seen', 'changed by the webhook', objects);
    const passes = (): string[] => objects.splice(0).map((o) => labelsOf(o)['seen'] ?? '');
    const create = await mutate(hooks, requestFor(pod({ containers: [{ name: 'c', image: 'i' }] }, { namespace: 'ns-a' })), [webhook]);
    assert.deepEqual(passes(), ['none,ns-a,ns-a,CREATE', 'none,ns-a,ns-a,CREATE']);
    assert.equal(labelsOf(create.patched)['seen'], 'none,ns-a,ns-a,CREATE');
    const old = pod({ containers: [{ name: 'c', image: 'i' }] }, { namespace: 'ns-b', name: 'old-name' });
    const update = await mutate(hooks, requestFor(pod({ containers: [{ name: 'c', image: 'i' }] }, { namespace: 'ns-b' }), 'UPDATE', old), [webhook]);
    assert.deepEqual(passes(), ['old-name,ns-b,ns-b,UPDATE', 'old-name,ns-b,ns-b,UPDATE']);
    assert.equal(labelsOf(update.patched)['seen'], 'old-name,ns-b,ns-b,UPDATE');
  });

  it('a denial by a later plugin is the answer, with no patch', async () => {
    const hooks = loadHooks(policy('p', [{ applyConfiguration: addLabel('x', '"y"') }]));
    const deny: MutatingPlugin = { name: 'MutatingAdmissionWebhook', admit: () => Promise.resolve({ allowed: false, status: { code: 403, message: 'no' } }) };
    const { response } = await mutate(hooks, requestFor(aPod()), [deny]);
    assert.deepEqual(response, { uid: 'u-1', allowed: false, status: { code: 403, message: 'no' } });
  });
});

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating (the patched object decoded into its Go type after
// each mutation, read again through DefaultUnstructuredConverter: omitempty maps left empty are gone)
describe('the object between mutations is held as its Go type', () => {
  it('a map a mutation empties is absent for the next mutation and in the answer', async () => {
    const emptied = { jsonPatch: '[JSONPatch{op: "remove", path: "/metadata/labels/app"}]' };
    const reads = { jsonPatch: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"had-labels": string(has(object.metadata.labels))}}]' };
    const result = await mutate(loadHooks(policy('p', [emptied, reads])), requestFor(aPod()));
    assert.equal(result.response.allowed, true);
    const meta = (result.patched as { metadata: Record<string, unknown> }).metadata;
    assert.equal(meta['labels'], undefined);
    assert.deepEqual(meta['annotations'], { 'had-labels': 'false' });
  });

  it('an empty map added by a patch is not answered', async () => {
    const addsEmpty = { jsonPatch: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}]' };
    const result = await mutate(loadHooks(policy('p', [addsEmpty])), requestFor(aPod()));
    assert.equal((result.patched as { metadata: Record<string, unknown> }).metadata['annotations'], undefined);
  });
});

// upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating/patch/smd.go (the patch object converted without
// typed.AllowDuplicates), structured-merge-diff v6 typed/validate.go visitListItems
describe('an apply configuration with a key twice is refused', () => {
  it('duplicate entries in an associative list and in a set', async () => {
    const twice = { applyConfiguration: 'Object{metadata: Object.metadata{finalizers: ["a/b", "a/b"]}, spec: Object.spec{containers: [Object.spec.containers{name: "x"}, Object.spec.containers{name: "x", image: "y"}]}}' };
    const result = await mutate(loadHooks(policy('p', [twice])), requestFor(aPod()));
    assert.equal(result.response.allowed, false);
    assert.equal(result.response.status?.message, "policy 'p.static.k8s.io' with binding 'p-binding.static.k8s.io' denied request: error applying patch: failed to convert patch object to typed object: errors:\n  .metadata.finalizers: duplicate entries for key [=\"a/b\"]\n  .spec.containers: duplicate entries for key [name=\"x\"]");
  });
});
