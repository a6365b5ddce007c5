import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readManifestFilesSync } from '../../lib/manifest/files.js';
import { loadManifests } from '../../lib/manifest/load.js';
import { manifestWarnings, readsObject } from '../../lib/manifest/warnings.js';
import { tempDir, vap, vapb, vwc, writeFiles } from '../helpers/fs.js';

function warningsFor(plugin: 'ValidatingAdmissionPolicy' | 'ValidatingAdmissionWebhook', files: Record<string, string>): string[] {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, files);
    const loaded = loadManifests(plugin, readManifestFilesSync(dir));
    return plugin === 'ValidatingAdmissionPolicy'
      ? manifestWarnings('ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', loaded)
      : manifestWarnings('ValidatingWebhookConfiguration', undefined, loaded);
  } finally {
    cleanup();
  }
}

test('readsObject finds the object variable, not oldObject, namespaceObject, fields or string literals', () => {
  assert.equal(readsObject('object.metadata.name == "x"'), true);
  assert.equal(readsObject('has(object.spec)'), true);
  assert.equal(readsObject('oldObject.metadata.name == "object"'), false);
  assert.equal(readsObject("namespaceObject.metadata.name != 'object.x'"), false);
  assert.equal(readsObject('request.object'), false);
});

test('a policy matching DELETE that reads object is warned about; one reading oldObject is not', () => {
  const deleting = vap('p.static.k8s.io').replace('operations: ["CREATE", "UPDATE"]', 'operations: ["DELETE"]');
  const warnings = warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': deleting + '---\n' + vapb('b.static.k8s.io', 'p.static.k8s.io') });
  assert.deepEqual(warnings, ['ValidatingAdmissionPolicy "p.static.k8s.io": matches DELETE but spec.validations[0].expression reads object, which is null on DELETE (use oldObject, or exclude DELETE)']);
  const fixed = deleting.replace("object.metadata.name != 'forbidden'", "oldObject.metadata.name != 'forbidden'");
  assert.deepEqual(warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': fixed }), []);
  const star = vap('p.static.k8s.io').replace('operations: ["CREATE", "UPDATE"]', 'operations: ["*"]');
  assert.equal(warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': star }).length, 1);
});

test('namespace selectors on labels other than kubernetes.io/metadata.name, on policies, bindings and webhooks', () => {
  const binding = vapb('b.static.k8s.io', 'p.static.k8s.io', '  matchResources:\n    namespaceSelector:\n      matchLabels: {team: a, kubernetes.io/metadata.name: x}\n');
  const warnings = warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + binding });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^ValidatingAdmissionPolicyBinding "b\.static\.k8s\.io": spec\.matchResources\.namespaceSelector uses namespace label "team": only "kubernetes\.io\/metadata\.name" is known/);
  const okBinding = vapb('b.static.k8s.io', 'p.static.k8s.io', '  matchResources:\n    namespaceSelector:\n      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]\n');
  assert.deepEqual(warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': vap('p.static.k8s.io') + '---\n' + okBinding }), []);
  const webhook = vwc('v.static.k8s.io').replace('  sideEffects: None', '  namespaceSelector: {matchExpressions: [{key: env, operator: Exists}]}\n  sideEffects: None');
  assert.match(warningsFor('ValidatingAdmissionWebhook', { 'a.yaml': webhook })[0] ?? '', /webhooks\[0\]\.namespaceSelector uses namespace label "env"/);
});

test('wildcard resources with failurePolicy Fail are warned about; with Ignore they are not', () => {
  const wildcard = vap('p.static.k8s.io').replace('resources: ["configmaps"]', 'resources: ["*"]');
  assert.match(warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': wildcard })[0] ?? '', /spec\.matchConstraints\.resourceRules\[0\] matches all resources \("\*"\) with failurePolicy Fail/);
  const ignore = wildcard.replace('spec:\n', 'spec:\n  failurePolicy: Ignore\n');
  assert.deepEqual(warningsFor('ValidatingAdmissionPolicy', { 'a.yaml': ignore }), []);
});
