// `review --operation mutate`: the /mutate answer offline, and `-o yaml-object` for the mutated object itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import jsonPatch from 'fast-json-patch';
import { parse } from 'yaml';
import { run } from './helpers.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

const root = new URL('../../../', import.meta.url).pathname;
const capturePath = join(root, 'testdata/admission/captures/001-mutate-CREATE-ConfigMap-cm1.json');

const capture = JSON.parse(readFileSync(capturePath, 'utf8')) as { request: { uid: string; object: Record<string, unknown> } };
const labelled = (): Record<string, unknown> => {
  const object = structuredClone(capture.request.object) as { metadata: Record<string, unknown> };
  object.metadata['labels'] = { team: 'unassigned' };
  return object;
};

test('review --operation mutate prints the /mutate answer: one JSONPatch against the object sent', async () => {
  const r = await run(['review', '--dev', '--operation', 'mutate', capturePath]);
  assert.equal(r.code, 0, r.err);
  const answer = JSON.parse(r.out) as { apiVersion: string; response: { uid: string; allowed: boolean; patch: string; patchType: string } };
  assert.equal(answer.response.uid, capture.request.uid);
  assert.equal(answer.response.allowed, true);
  assert.equal(answer.response.patchType, 'JSONPatch');
  const ops = JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) as jsonPatch.Operation[];
  assert.deepEqual(jsonPatch.applyPatch(structuredClone(capture.request.object), ops, true, false).newDocument, labelled());
});

test('-o yaml-object prints the mutated object; from standard input too', async () => {
  const r = await run(['review', '--dev', '--operation', 'mutate', '-o', 'yaml-object', '-'], readFileSync(capturePath, 'utf8'));
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(parse(r.out), labelled());
});

test('a denial: the answer carries the Status; with -o yaml-object it is reported on stderr, exit 0', async () => {
  const { dir, cleanup } = tempDir('sad-review-mutate-');
  try {
    writeFiles(dir, {
      'mutating/p.yaml': `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: broken.static.k8s.io}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "remove", path: "/metadata/labels/none"}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: broken-binding.static.k8s.io}
spec: {policyName: broken.static.k8s.io}
`,
      'config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: MutatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: MutatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'mutating')}\n`,
    });
    const message = "policy 'broken.static.k8s.io' with binding 'broken-binding.static.k8s.io' denied request: JSON Patch: remove operation does not apply: doc is missing path: \"/metadata/labels/none\": missing value";
    const json = await run(['review', '--admission-config', join(dir, 'config.yaml'), '--operation', 'mutate', capturePath]);
    assert.equal(json.code, 0, json.err);
    const response = (JSON.parse(json.out) as { response: { allowed: boolean; status: { code: number; reason: string; message: string } } }).response;
    assert.equal(response.allowed, false);
    assert.deepEqual([response.status.code, response.status.reason, response.status.message], [403, 'Invalid', message]);
    const yaml = await run(['review', '--admission-config', join(dir, 'config.yaml'), '--operation', 'mutate', '-o', 'yaml-object', capturePath]);
    assert.equal(yaml.code, 0);
    assert.equal(yaml.out, '');
    assert.equal(yaml.err, `denied: ${message}\n`);
  } finally {
    cleanup();
  }
});

test('-o yaml-object needs --operation mutate; unknown operations and outputs are usage errors', async () => {
  const a = await run(['review', '--dev', '-o', 'yaml-object', capturePath]);
  assert.equal(a.code, 2);
  assert.match(a.err, /-o yaml-object needs --operation mutate/);
  const b = await run(['review', '--dev', '--operation', 'patch', capturePath]);
  assert.equal(b.code, 2);
  assert.match(b.err, /invalid --operation "patch": must be validate or mutate/);
});
