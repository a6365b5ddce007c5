import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from './helpers.js';
import { tempDir, vap, vapb, writeFiles } from '../helpers/fs.js';

const root = new URL('../../../', import.meta.url).pathname;

test('review prints the AdmissionReview response; a denial still exits 0', async () => {
  const r = await run(['review', '--dev', join(root, 'testdata/dev/requests/privileged-pod.json')]);
  assert.equal(r.code, 0, r.err);
  const response = (JSON.parse(r.out) as { response: { allowed: boolean; status: { code: number; message: string } } }).response;
  assert.equal(response.allowed, false);
  assert.equal(response.status.code, 403);
  assert.match(response.status.message, /^pods "privileged-demo" is forbidden: ValidatingAdmissionPolicy 'deny-privileged\.static\.k8s\.io'/);
});

test('review reads standard input with -, and answers an allowed capture', async () => {
  const { readFileSync } = await import('node:fs');
  const capture = readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'), 'utf8');
  const r = await run(['review', '--dev', '-'], capture);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: (JSON.parse(capture) as { request: { uid: string } }).request.uid, allowed: true } });
});

test('invalid input and invalid configuration exit 1 with the reason', async () => {
  const bad = await run(['review', '--dev', '-'], '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /^error: -: /);

  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, {
      'policies/p.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'missing.static.k8s.io'),
      'config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
    });
    const r = await run(['review', '--admission-config', join(dir, 'config.yaml'), join(root, 'testdata/dev/requests/privileged-pod.json')]);
    assert.equal(r.code, 1);
    assert.equal(r.err, `error: failed to load static policy manifests from "${join(dir, 'policies')}": binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory\n`);
  } finally {
    cleanup();
  }
  const unknown = await run(['review', '--dev', '--operation', 'admit', '-'], '{}');
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /invalid --operation "admit"/);
});

// upstream: github.com/google/cel-go@v0.26.0 cel/library.go decorateOptionalOr, the cel-go kube-apiserver 1.36 builds
// with (k8s.io/apiserver@v0.36.3 pkg/cel/environment/base.go enables cel.OptionalTypes()): `object.data` is `dyn`, so
// `.orValue({})` type-checks, and at run time the map comes back unchanged rather than failing the policy.
test('review: orValue on a map reached through dyn returns the map, as cel-go v0.26.0 does', async () => {
  const { readFileSync } = await import('node:fs');
  const { dir, cleanup } = tempDir();
  try {
    const rule = `  validations:\n  - expression: "object.data.orValue({}).size() >= 2"\n    message: fewer than two keys\n`;
    writeFiles(dir, {
      'policies/p.yaml': vap('keys.static.k8s.io').replace(/  validations:\n.*\n/, rule) + '---\n' + vapb('keys-binding.static.k8s.io', 'keys.static.k8s.io'),
      'config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
    });
    const capture = readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'), 'utf8');
    const r = await run(['review', '--admission-config', join(dir, 'config.yaml'), '-'], capture);
    assert.equal(r.code, 0, r.err);
    const status = (JSON.parse(r.out) as { response: { status: { message: string } } }).response.status;
    assert.equal(status.message, `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'keys.static.k8s.io' with binding 'keys-binding.static.k8s.io' denied request: fewer than two keys`);
  } finally {
    cleanup();
  }
});
