import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readManifestFilesSync } from '../../lib/manifest/files.js';
import { loadManifests } from '../../lib/manifest/load.js';
import type { LoadedManifests } from '../../lib/manifest/load.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { tempDir, vap, vapb, vwc, writeFiles } from '../helpers/fs.js';

function load(plugin: PluginName, files: Record<string, string>): { result?: LoadedManifests; error?: string; dir: string } {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, files);
    try {
      return { result: loadManifests(plugin, readManifestFilesSync(dir)), dir };
    } catch (err) {
      return { error: (err as Error).message, dir };
    }
  } finally {
    cleanup();
  }
}

const names = (objs: ReadonlyArray<{ metadata?: { name?: string } }>): string[] => objs.map((o) => o.metadata?.name ?? '');

test('policies and bindings load from any file order, sorted by name, binding before its policy allowed', () => {
  const { result } = load('ValidatingAdmissionPolicy', {
    '01-bindings.yaml': vapb('z-binding.static.k8s.io', 'b.static.k8s.io') + '---\n' + vapb('a-binding.static.k8s.io', 'a.static.k8s.io'),
    '02-policies.yaml': vap('b.static.k8s.io') + '---\n' + vap('a.static.k8s.io'),
  });
  assert.equal(result?.family, 'policy');
  if (result?.family !== 'policy') return;
  assert.deepEqual(names(result.policies), ['a.static.k8s.io', 'b.static.k8s.io']);
  assert.deepEqual(names(result.bindings), ['a-binding.static.k8s.io', 'z-binding.static.k8s.io']);
  // defaults were applied
  assert.equal(result.policies[0]!.spec?.failurePolicy, 'Fail');
  assert.equal(result.policies[0]!.spec?.matchConstraints?.matchPolicy, 'Equivalent');
  assert.deepEqual(result.policies[0]!.spec?.matchConstraints?.namespaceSelector, {});
  assert.equal(result.policies[0]!.spec?.matchConstraints?.resourceRules?.[0]?.scope, '*');
});

test('webhook configurations get webhook defaults', () => {
  const { result } = load('ValidatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io') });
  assert.equal(result?.family, 'webhook');
  if (result?.family !== 'webhook') return;
  const w = result.configurations[0]!.webhooks![0]!;
  assert.deepEqual([w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.rules?.[0]?.scope], ['Fail', 'Equivalent', 10, '*']);
  assert.deepEqual([w.namespaceSelector, w.objectSelector], [{}, {}]);
});

test('static name rules: suffix, duplicates across files with first occurrence, per kind family', () => {
  let r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('plain-name') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: "plain-name" in file "${join(r.dir, 'a.yaml')}" must have a name ending with ".static.k8s.io"`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io'), 'b.yaml': vap('p.static.k8s.io') });
  assert.equal(r.error, `error loading ${join(r.dir, 'b.yaml')}: duplicate name "p.static.k8s.io" found in file "${join(r.dir, 'b.yaml')}" (previously seen in "${join(r.dir, 'a.yaml')}")`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + vapb('p.static.k8s.io', 'p.static.k8s.io') });
  assert.equal(r.error, undefined, 'a policy and a binding may share a name');
  r = load('ValidatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io') + '---\n' + vwc('v.static.k8s.io') });
  assert.match(r.error ?? '', /duplicate name "v.static.k8s.io" found in file ".*a.yaml" \(previously seen in ".*a.yaml"\)$/);
});

test('an empty name fails REST validation first', () => {
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('""') });
  assert.match(r.error ?? '', /^error loading .*a\.yaml: ValidatingAdmissionPolicy "": .*metadata\.name: Required value: name or generateName is required/);
});

test('binding constraints and references', () => {
  let r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'other') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: binding "b.static.k8s.io": spec.policyName "other" must end with ".static.k8s.io"`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'p.static.k8s.io', '  paramRef: {name: x, parameterNotFoundAction: Deny}\n') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: binding "b.static.k8s.io": spec.paramRef is not supported for static manifests`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'q.static.k8s.io') });
  assert.equal(r.error, 'binding "b.static.k8s.io" references policy "q.static.k8s.io" which does not exist in the manifest directory');
});

// upstream: k8s.io/kubernetes pkg/apis/admissionregistration/v1/defaults.go (no ParamRef default in v1; v1alpha1 has
// one), validation/validation.go validateParamRef, run by policy/manifest/loader before the static-only checks
test('a v1 paramRef without parameterNotFoundAction is not defaulted: validation refuses it first', () => {
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'p.static.k8s.io', '  paramRef: {name: x}\n') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: ValidatingAdmissionPolicyBinding "b.static.k8s.io": spec.paramRef.parameterNotFoundAction: Required value`);
});

test('paramKind is not supported for static policies', () => {
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io', '  paramKind: {apiVersion: v1, kind: ConfigMap}\n') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: ValidatingAdmissionPolicy "p.static.k8s.io": spec.paramKind is not supported for static manifests`);
});

test('webhooks: service references and missing URLs', () => {
  let r = load('ValidatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io', 'check.example.static.k8s.io', 'service: {namespace: ns, name: svc}') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: webhook "check.example.static.k8s.io" in "v.static.k8s.io" (file "${join(r.dir, 'a.yaml')}"): clientConfig.service is not supported for static manifests; use clientConfig.url instead`);
  r = load('ValidatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io', 'check.example.static.k8s.io', 'url: null') });
  assert.match(r.error ?? '', /clientConfig/, 'neither url nor service fails (API validation first)');
});

test('kind dispatch: wrong plugin, foreign versions, non-admission kinds', () => {
  let r = load('MutatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: unsupported resource type *v1.ValidatingWebhookConfiguration`);
  r = load('MutatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: unsupported resource type *v1.ValidatingAdmissionPolicy`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io').replace('admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1beta1') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: unsupported resource type *v1beta1.ValidatingAdmissionPolicy`);
  r = load('ValidatingAdmissionPolicy', { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n' });
  assert.match(r.error ?? '', new RegExp(`^error loading ${join(r.dir, 'a.yaml')}: no kind "ConfigMap" is registered for version "v1"`));
});

test('generic List unwrapping (recursive) and typed Lists without item apiVersion/kind', () => {
  const list = `apiVersion: v1
kind: List
items:
- ${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [JSON.parse(JSON.stringify(require_vap('a.static.k8s.io')))] })}
- ${JSON.stringify(require_vapb('ab.static.k8s.io', 'a.static.k8s.io'))}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyList
items:
- metadata: {name: b.static.k8s.io}
  spec:
    matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]}
    validations: [{expression: "true"}]
`;
  const { result, error } = load('ValidatingAdmissionPolicy', { 'list.yaml': list });
  assert.equal(error, undefined);
  assert.equal(result?.family, 'policy');
  if (result?.family !== 'policy') return;
  assert.deepEqual(names(result.policies), ['a.static.k8s.io', 'b.static.k8s.io']);
  assert.deepEqual(names(result.bindings), ['ab.static.k8s.io']);

  const r = load('ValidatingAdmissionPolicy', { 'list.yaml': 'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n' });
  assert.match(r.error ?? '', /^error loading .*list\.yaml: failed to decode list item: no kind "ConfigMap" is registered for version "v1"/);
});

test('REST validation errors are wrapped as <Kind> "<name>": <aggregate>', () => {
  const r = load('ValidatingAdmissionWebhook', { 'a.yaml': vwc('v.static.k8s.io').replace('  sideEffects: None\n', '') });
  assert.equal(r.error, `error loading ${join(r.dir, 'a.yaml')}: ValidatingWebhookConfiguration "v.static.k8s.io": webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun`);
});

test('CEL compile errors fail the load', () => {
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io').replace("object.metadata.name != 'forbidden'", 'object.metadata.name ==') });
  assert.match(r.error ?? '', /^error loading .*a\.yaml: ValidatingAdmissionPolicy "p\.static\.k8s\.io": spec\.validations\[0\]\.expression: Invalid value: .*compilation failed/);
});

test('a constant conversion that fails when the program is built fails the load as an internal error', () => {
  // plugin/cel/compile.go: env.Program's error is `program instantiation failed: …` (ErrorTypeInternal), which
  // validation reports with field.InternalError (convertCELErrorToValidationError).
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io').replace("object.metadata.name != 'forbidden'", "int('abc') > 0") });
  assert.equal(r.result, undefined);
  assert.equal(
    r.error,
    `error loading ${join(r.dir, 'a.yaml')}: ValidatingAdmissionPolicy "p.static.k8s.io": spec.validations[0].expression: Internal error: program instantiation failed: type conversion error from 'string' to 'int'`,
  );
});

test('all-or-nothing: one bad document fails the whole directory', () => {
  const r = load('ValidatingAdmissionPolicy', { 'a.yaml': vap('a.static.k8s.io'), 'b.yaml': vap('b.static.k8s.io') + 'extra: 1\n' });
  assert.equal(r.result, undefined);
  assert.equal(r.error, `error loading ${join(r.dir, 'b.yaml')}: strict decoding error: unknown field "extra"`);
});

test('a full snapshot: content hash, counts, compiled expressions and webhook accessor UIDs', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'p.yaml': vap('a.static.k8s.io') + '---\n' + vapb('ab.static.k8s.io', 'a.static.k8s.io') });
    const snap = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    assert.equal(snap.hash, readManifestFilesSync(dir).hash);
    assert.deepEqual(snap.counts, { ValidatingAdmissionPolicy: 1, ValidatingAdmissionPolicyBinding: 1 });
    assert.equal(snap.compiled.family, 'policy');
    if (snap.compiled.family !== 'policy') return;
    const hook = snap.compiled.hooks[0]!;
    assert.deepEqual(names(hook.bindings), ['ab.static.k8s.io']);
    const validation = hook.expressions.find((e) => e.path === 'spec.validations[0].expression')!;
    assert.equal(validation.compiled.evaluate({ object: { metadata: { name: 'forbidden' } } }), false);
    assert.equal(validation.compiled.evaluate({ object: { metadata: { name: 'fine' } } }), true);
    assert.ok(Object.isFrozen(snap) && Object.isFrozen(snap.manifests));

    writeFiles(dir, { 'p.yaml': vwc('v.static.k8s.io') + '---\n' + vwc('w.static.k8s.io') });
    const wh = loadSnapshotSync('ValidatingAdmissionWebhook', dir);
    assert.equal(wh.compiled.family, 'webhook');
    if (wh.compiled.family !== 'webhook') return;
    assert.deepEqual(wh.compiled.webhooks.map((w) => w.uid), ['manifest/v.static.k8s.io/check.example.static.k8s.io/0', 'manifest/w.static.k8s.io/check.example.static.k8s.io/0']);
  } finally {
    cleanup();
  }
});

function require_vap(name: string): unknown {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'true' }] } };
}
function require_vapb(name: string, policyName: string): unknown {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'] } };
}

test('the document cache never changes results: file-dependent checks and wrapping run on every load', async () => {
  const { DocumentCache } = await import('../../lib/manifest/load.js');
  const { renameSync } = await import('node:fs');
  const { dir, cleanup } = tempDir();
  try {
    const cache = new DocumentCache();
    writeFiles(dir, { 'a.yaml': vap('a.static.k8s.io'), 'b.yaml': vap('b.static.k8s.io') + 'extra: 1\n' });
    const first = (): string => {
      try {
        loadManifests('ValidatingAdmissionPolicy', readManifestFilesSync(dir), cache);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    };
    assert.equal(first(), `error loading ${join(dir, 'b.yaml')}: strict decoding error: unknown field "extra"`);
    renameSync(join(dir, 'b.yaml'), join(dir, 'c.yaml'));
    assert.equal(first(), `error loading ${join(dir, 'c.yaml')}: strict decoding error: unknown field "extra"`, 'a cached error names the file it is in now');
    writeFiles(dir, { 'c.yaml': vap('a.static.k8s.io') });
    assert.match(first(), /duplicate name "a\.static\.k8s\.io" found in file ".*c\.yaml" \(previously seen in ".*a\.yaml"\)/, 'cached items still meet the cross-file name checks');
    writeFiles(dir, { 'c.yaml': vap('c.static.k8s.io') });
    const loaded = loadManifests('ValidatingAdmissionPolicy', readManifestFilesSync(dir), cache);
    const uncached = loadManifests('ValidatingAdmissionPolicy', readManifestFilesSync(dir));
    assert.deepEqual(loaded, uncached);
  } finally {
    cleanup();
  }
});
