// The strict decoder's fast yes (lib/api/strict-check.ts) never says yes where the walker finds an error: checked
// against the walker (lib/api/strict-walker.ts, the words of sigs.k8s.io/json's strict decoding) on a pod and on
// variants of it with each kind of error the walker reports, and with an earlier version that decoded: what stands
// at the same place in it is passed over, a subtree of it met elsewhere (as another type) is checked again. Upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/json_patch.go
// (the strict Decode after a JSON Patch), sigs.k8s.io/json internal/golang/encoding/json/decode.go.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StrictCheck } from '../../lib/api/strict-check.js';
import { StrictWalker } from '../../lib/api/strict-walker.js';
import { decodeTypes } from '../../lib/admission/mutating/decode-types.generated.js';
import { decodeScalars } from '../../lib/admission/mutating/strict-decode.js';

const { types } = decodeTypes();
const podType = 'core.v1.Pod';

/** Whether the walker decodes `pod` without any error. */
function walkerAccepts(pod: unknown): boolean {
  const walker = new StrictWalker(types, { scalars: decodeScalars, check: true });
  walker.object(pod as Parameters<StrictWalker['object']>[0], types[podType]!, '', '');
  return walker.typeError === undefined && walker.unknown.length === 0;
}

const container = {
  name: 'app', image: 'app:1', ports: [{ containerPort: 8080, protocol: 'TCP' }],
  resources: { limits: { cpu: '500m', memory: 2 } }, livenessProbe: { httpGet: { port: 'http', path: '/' }, periodSeconds: 10 },
};
const pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, creationTimestamp: '2026-11-21T18:20:18Z', annotations: null },
  spec: { containers: [container], terminationGracePeriodSeconds: 30, activeDeadlineSeconds: 2 ** 40, securityContext: {} },
};

const withSpec = (spec: Record<string, unknown>): unknown => ({ ...pod, spec: { ...pod.spec, ...spec } });
const withContainer = (c: Record<string, unknown>): unknown => withSpec({ containers: [{ ...container, ...c }] });

describe('StrictCheck against the strict walker', () => {
  it('says yes for a pod the walker decodes', () => {
    assert.equal(walkerAccepts(pod), true);
    assert.equal(new StrictCheck(types, decodeScalars).decodes(pod, podType), true);
  });

  const rejected: ReadonlyArray<[string, unknown]> = [
    ['a string for an int32', withSpec({ terminationGracePeriodSeconds: '30' })],
    ['a fraction for an int64', withSpec({ terminationGracePeriodSeconds: 1.5 })],
    ['an int32 out of range', withContainer({ ports: [{ containerPort: 2 ** 31 }] })],
    ['an int64 beyond 2^53', withSpec({ activeDeadlineSeconds: 2 ** 60 })],
    ['a bad quantity', withContainer({ resources: { limits: { cpu: 'lots' } } })],
    ['a bool for an IntOrString', withContainer({ livenessProbe: { httpGet: { port: true } } })],
    ['a fraction for an IntOrString', withContainer({ livenessProbe: { httpGet: { port: 1.5 } } })],
    ['a time that does not parse', { ...pod, metadata: { ...pod.metadata, creationTimestamp: 'yesterday' } }],
    ['a number for a time', { ...pod, metadata: { ...pod.metadata, creationTimestamp: 5 } }],
    ['an unknown field deep in a list', withContainer({ imageTypo: 'x' })],
    ['an object for a list', withSpec({ containers: { name: 'a' } })],
    ['a list for a struct', withSpec({ securityContext: [] })],
    ['a number for a map value', { ...pod, metadata: { ...pod.metadata, labels: { n: 1 } } }],
    ['a string for a map', { ...pod, metadata: { ...pod.metadata, labels: 'x' } }],
  ];
  for (const [name, value] of rejected) {
    it(`leaves ${name} to the walker, which finds the error`, () => {
      assert.equal(walkerAccepts(value), false);
      assert.equal(new StrictCheck(types, decodeScalars).decodes(value, podType), false);
    });
  }

  it('null leaves fields unset, in structs, lists and maps alike', () => {
    const value = withSpec({ securityContext: null, tolerations: [null], nodeSelector: { a: null } });
    assert.equal(walkerAccepts(value), true);
    assert.equal(new StrictCheck(types, decodeScalars).decodes(value, podType), true);
  });

  it('a subtree of the earlier version is checked again where it stands at another place, as another type', () => {
    const check = new StrictCheck(types, decodeScalars);
    // {name, image} is a container, and as a pod's metadata `image` is an unknown field
    const part = { name: 'x', image: 'y' };
    const earlier = withSpec({ containers: [part] });
    assert.equal(check.decodes(earlier, podType), true);
    const misplaced = { ...pod, metadata: part };
    assert.equal(walkerAccepts(misplaced), false);
    assert.equal(check.decodes(misplaced, podType, earlier), false);
    // moved within a list: index 1 of the earlier version held nothing
    assert.equal(check.decodes(withSpec({ containers: [{ name: 'a', imageTypo: 'b' }, part] }), podType, earlier), false);
  });

  it('passes over what the earlier version holds at the same place, walking only the rest', () => {
    const check = new StrictCheck(types, decodeScalars);
    // the same spec object: taken as decoded without a walk (it is what the previous version held there)
    const next = { ...pod, metadata: { ...pod.metadata, labels: { a: 'c' } } };
    assert.equal(check.decodes(next, podType, pod), true);
    // shown by an earlier version that did not decode (never passed by the caller): its spec is not walked again
    const bad = withContainer({ imageTypo: 'x' }) as Record<string, unknown>;
    assert.equal(check.decodes({ ...bad, metadata: { name: 'q' } }, podType, bad), true);
    // new objects in place of the shared ones are walked
    assert.equal(check.decodes(withContainer({ imageTypo: 'x' }), podType, bad), false);
    // not an earlier version of the same shape: the list's elements are compared by index, a map's by key
    assert.equal(check.decodes(bad, podType, { spec: [] }), false);
  });
});
