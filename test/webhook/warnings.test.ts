// The load-time advisory for a webhook configuration whose rules name an excluded review resource explicitly
// (upstream's logExcludedWebhookResources): only while ExcludeAdmissionWebhookVirtualResources is on, not for
// wildcard rules, resources listed as `resource.group`, sorted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifestWarnings } from '../../lib/manifest/warnings.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { configurationYAML } from './helpers.js';

function warningsFor(apiGroups: readonly string[], resources: readonly string[], excludeWebhookVirtualResources: boolean): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sad-warnings-'));
  try {
    writeFileSync(join(dir, 'w.yaml'), configurationYAML('ValidatingWebhookConfiguration', 'w.static.k8s.io', [
      { name: 'w.example.static.k8s.io', url: 'https://127.0.0.1:8443/v', caPEM: 'x', apiGroups, resources },
    ]));
    const snapshot = loadSnapshotSync('ValidatingAdmissionWebhook', dir);
    return manifestWarnings('ValidatingWebhookConfiguration', undefined, snapshot.manifests, { excludeWebhookVirtualResources })
      .filter((w) => w.includes('excluded from admission webhooks'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a rule naming excluded review resources is reported while the gate is on', () => {
  assert.deepEqual(warningsFor(['authorization.k8s.io', 'authentication.k8s.io'], ['tokenreviews', 'subjectaccessreviews', 'pods'], true), [
    'ValidatingWebhookConfiguration "w.static.k8s.io": Admission webhook configuration names resources that are excluded from admission webhooks; the matching rules will have no effect: excludedResources=[subjectaccessreviews.authorization.k8s.io tokenreviews.authentication.k8s.io]',
  ]);
  assert.deepEqual(warningsFor(['authentication.k8s.io'], ['tokenreviews'], false), []);
});

test('wildcard rules are not reported (their intent is ambiguous)', () => {
  assert.deepEqual(warningsFor(['*'], ['tokenreviews'], true), []);
  assert.deepEqual(warningsFor(['authentication.k8s.io'], ['*'], true), []);
});
