// The scheme's defaulting after a MutatingAdmissionPolicy's mutation, daemon against upstream, for every kind the
// daemon defaults (lib/admission/defaulting defaultedKinds): a policy that sets a label mutates minimal objects of
// each kind (defaulting-samples.ts), and the object each side ends with must agree (compareMutations). A kind whose
// defaulting drifts from kube-apiserver 1.36's fails here, and a kind added to the table without samples. (A default
// of a field the internal type holds as a plain value, e.g. a webhook service's port, cannot show here: see
// reviewFor; test/admission/defaulting states those from the source.)
// upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher.go dispatchOne (GetObjectDefaulter)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultedKinds } from '../../lib/admission/defaulting/index.js';
import { compareMutations } from './compare.js';
import { DaemonSide, namespaceFor } from './daemon.js';
import { defaultingSamples, undefaultedSamples } from './defaulting-samples.js';
import type { DefaultingSample, JsonObject } from './defaulting-samples.js';
import { scratch, writeDir } from './differential.js';
import { Oracle, oracleTestOption } from './oracle.js';
import type { MutateAnswer } from './oracle.js';

const labelPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: label.static.k8s.io}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: ["*/*"]}]
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration: {expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: label-binding.static.k8s.io}
spec: {policyName: label.static.k8s.io}
`;

/**
 * A CREATE request for `object`, as the apiserver sends it for `resource`. The samples carry every field whose v1
 * pointer is a plain value in the internal type (Deployment replicas, a webhook service's port, …): the oracle
 * decodes the object through the internal type, where such a field left out becomes 0, while a real request has it
 * from the defaulting the apiserver ran when it decoded the object.
 */
function reviewFor(object: JsonObject, resource: string, subResource: string | undefined): JsonObject {
  const apiVersion = String(object['apiVersion']);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
  const kind = { group, version, kind: String(object['kind']) };
  const gvr = { group, version, resource };
  const metadata = object['metadata'] as { name: string; namespace?: string };
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: '00000000-0000-4000-8000-000000000026', kind, resource: gvr, requestKind: kind, requestResource: gvr,
      ...(subResource === undefined ? {} : { subResource, requestSubResource: subResource }),
      name: metadata.name, namespace: metadata.namespace ?? '', operation: 'CREATE', userInfo: { username: 'admin' },
      object, oldObject: null, dryRun: false, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

const mutatedLabel = (answer: MutateAnswer): unknown => (answer.object as { metadata?: { labels?: Record<string, unknown> } } | undefined)?.metadata?.labels?.['mutated'];

it('every kind the daemon defaults has samples here', () => {
  assert.deepEqual(defaultedKinds().filter((k) => !Object.hasOwn(defaultingSamples, k)), []);
  assert.deepEqual(Object.keys(defaultingSamples).filter((k) => !defaultedKinds().includes(k)), [], 'a sample for a kind the daemon does not default');
});

const option = oracleTestOption();
const tmp = scratch();
const daemon = new DaemonSide();
let oracle: Oracle;
let dir: string;

before(() => {
  dir = writeDir(tmp.dir, 'label', { 'policies.yaml': labelPolicy });
  if (option.skip === false) oracle = new Oracle({ timeoutMs: 60_000 });
});
after(async () => {
  await oracle?.close();
  tmp.cleanup();
});

async function agree(sample: DefaultingSample): Promise<void> {
  for (const object of sample.objects) {
    const review = reviewFor(object, sample.resource, sample.subResource);
    const request = review['request'] as Parameters<typeof namespaceFor>[0];
    const [upstream, mine] = await Promise.all([oracle.mutate(dir, review, namespaceFor(request)), daemon.mutate(dir, review)]);
    assert.equal(mutatedLabel(upstream), 'yes', `upstream mutated ${JSON.stringify(object)}: ${JSON.stringify(upstream.status)}`);
    assert.deepEqual(compareMutations(upstream, mine, true), [], JSON.stringify(object));
  }
}

describe('defaulting after a mutation: daemon against upstream', option, () => {
  for (const [kind, sample] of Object.entries(defaultingSamples)) it(kind, () => agree(sample));
  for (const [kind, sample] of Object.entries(undefaultedSamples)) it(`${kind} (nothing to default)`, () => agree(sample));
});
