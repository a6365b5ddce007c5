// A JSONPatch result is decoded strictly into the versioned kind's Go type, and a failure is an internal error
// whatever the failure policy. Upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/
// json_patch.go (jsonSerializer with Strict: true, Decode, apierrors.NewInternalError), k8s.io/apimachinery
// runtime/serializer/json/json.go (unmarshal: a type error is returned, the strict errors only without one) and
// meta.go (Interpret), sigs.k8s.io/json's encoding/json fork (UnmarshalTypeError: Struct is the innermost struct,
// Field the JSON field names from the root), resource.Quantity, metav1.Time and intstr.IntOrString UnmarshalJSON.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadHooks, mutate, policy, requestFor } from './helpers.js';

const deployment = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: 'default', labels: { app: 'd' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'a:1' }] } } },
};

async function decodeFailure(patch: string): Promise<unknown> {
  // Ignore: an internal error fails the request anyway
  const hooks = loadHooks(policy('jp', [{ jsonPatch: patch }], { group: 'apps', resources: 'deployments', failurePolicy: 'Ignore' }));
  const { response } = await mutate(hooks, requestFor(structuredClone(deployment)));
  assert.equal(response.allowed, false);
  assert.equal(response.status?.code, 500);
  assert.equal(response.status?.reason, 'InternalError');
  const message = response.status?.message ?? '';
  assert.ok(message.startsWith('Internal error occurred: '), message);
  assert.deepEqual(response.status?.details?.causes, [{ message: message.slice('Internal error occurred: '.length) }]);
  return message.slice('Internal error occurred: '.length);
}

describe('a field of the wrong type', () => {
  const cases: ReadonlyArray<[string, string, string]> = [
    ['a string for an int32', '[JSONPatch{op: "replace", path: "/spec/replicas", value: "3"}]',
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a fraction for an int32', '[JSONPatch{op: "replace", path: "/spec/replicas", value: 1.5}]',
      'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'],
    ['a named string type, deep in a list', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/imagePullPolicy", value: 5}]',
      'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.imagePullPolicy of type v1.PullPolicy'],
    ['an object for a list', '[JSONPatch{op: "replace", path: "/spec/template/spec/containers", value: {"name": "a"}}]',
      'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container'],
    ['a map value', '[JSONPatch{op: "add", path: "/metadata/labels/n", value: 1}]',
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels.n of type string'],
    ['a bad quantity (Quantity.UnmarshalJSON)', '[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources", value: {"limits": {"cpu": "lots"}}}]',
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['a bool for an IntOrString (IntOrString.UnmarshalJSON into an int32)', '[JSONPatch{op: "add", path: "/spec/strategy", value: {"type": "RollingUpdate"}}, JSONPatch{op: "add", path: "/spec/strategy/rollingUpdate", value: {"maxSurge": true}}]',
      'json: cannot unmarshal bool into Go value of type int32'],
    ['a number for a Time (Time.UnmarshalJSON into a string)', '[JSONPatch{op: "add", path: "/metadata/creationTimestamp", value: 5}]',
      'json: cannot unmarshal number into Go value of type string'],
    ['a kind that is not a string (the serializer\'s Interpret)', '[JSONPatch{op: "replace", path: "/kind", value: 5}]',
      "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"],
  ];
  for (const [name, patch, error] of cases) {
    it(`${name}: ${error}`, async () => assert.equal(await decodeFailure(patch), error));
  }

  it('a type error wins over an unknown field, and the first in document order wins (evanphx writes touched objects sorted)', async () => {
    assert.equal(await decodeFailure('[JSONPatch{op: "add", path: "/spec/zzz", value: 1}, JSONPatch{op: "replace", path: "/spec/replicas", value: "x"}]'),
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(await decodeFailure('[JSONPatch{op: "replace", path: "/spec/replicas", value: "x"}, JSONPatch{op: "add", path: "/spec/minReadySeconds", value: "y"}]'),
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.minReadySeconds of type int32');
  });

  // strict-decode.ts remembers what ParseQuantity said of each text, across requests: a text's answer is its own
  it('a quantity is judged by its own text whatever came before (the remembered answers of other requests)', async () => {
    const limits = (cpu: string): string => `[JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources", value: {"limits": {"cpu": "${cpu}"}}}]`;
    const bad = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    for (const [cpu, error] of [['2', undefined], ['lots', bad], ['2', undefined], ['lots', bad], [' 2 ', undefined], ['2x', bad]] as const) {
      const hooks = loadHooks(policy('jp', [{ jsonPatch: limits(cpu) }], { group: 'apps', resources: 'deployments' }));
      const { response } = await mutate(hooks, requestFor(structuredClone(deployment)));
      if (error === undefined) assert.equal(response.allowed, true, cpu);
      else assert.equal(await decodeFailure(limits(cpu)), error);
    }
  });

  it('values of the right type decode (int for int32, number for a quantity, string for an IntOrString)', async () => {
    const hooks = loadHooks(policy('jp', [{ jsonPatch: '[JSONPatch{op: "replace", path: "/spec/replicas", value: 3}, JSONPatch{op: "add", path: "/spec/template/spec/containers/0/resources", value: {"limits": {"cpu": 2}}}, JSONPatch{op: "add", path: "/spec/strategy", value: {"type": "RollingUpdate"}}, JSONPatch{op: "add", path: "/spec/strategy/rollingUpdate", value: {"maxSurge": "50%"}}]' }], { group: 'apps', resources: 'deployments' }));
    const { response } = await mutate(hooks, requestFor(structuredClone(deployment)));
    assert.equal(response.allowed, true);
  });
});
