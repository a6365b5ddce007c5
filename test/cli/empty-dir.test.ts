// An empty manifest directory path is refused, never taken for the working directory. Upstream: LoadFiles
// (k8s.io/apiserver pkg/admission/plugin/manifest/loader.go) returns `manifest directory path is empty`; an empty
// staticManifestsDir in a plugin configuration means the plugin has no static manifests
// (pkg/admission/plugin/manifest/validation.go ValidateStaticManifestsDir checks only a non-empty path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../lib/log/logger.js';
import { createReloadMetrics } from '../../lib/metrics/reload.js';
import { InitialLoadError, ManifestSource } from '../../lib/reload/manifest-source.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { run } from './helpers.js';

/** Runs `fn` with the working directory set to a directory holding a valid manifest (what a cwd fallback would read). */
async function inDirWithManifest<T>(fn: () => Promise<T>): Promise<T> {
  const { dir, cleanup } = tempDir('sad-cwd-');
  writeFiles(dir, { 'p.yaml': 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b.static.k8s.io}\nspec: {policyName: p.static.k8s.io, validationActions: [Deny]}\n' });
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return await fn();
  } finally {
    process.chdir(cwd);
    cleanup();
  }
}

test('hash "" is refused with upstream\'s message instead of hashing the working directory', async () => {
  const r = await inDirWithManifest(() => run(['hash', '']));
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.equal(r.err, 'error: manifest directory path is empty\n');
});

test('validate --plugin NAME "" is refused the same way', async () => {
  const r = await inDirWithManifest(() => run(['validate', '--plugin', 'ValidatingAdmissionPolicy', '', '-o', 'json']));
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.out), {
    plugins: [],
    errors: [{ plugin: 'ValidatingAdmissionPolicy', message: 'failed to load static policy manifests from "": manifest directory path is empty' }],
  });
});

test('an empty staticManifestsDir in the configuration configures no static manifests (nothing is read)', async () => {
  const { dir, cleanup } = tempDir('sad-empty-config-');
  try {
    writeFiles(dir, {
      'admission-config.yaml': admissionConfigYAML('""'),
    });
    const r = await inDirWithManifest(() => run(['validate', '--admission-config', join(dir, 'admission-config.yaml'), '-o', 'json']));
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), { plugins: [], errors: [] });
  } finally {
    cleanup();
  }
});

test('a manifest source given an empty directory fails its initial load with the loader\'s message', async () => {
  await inDirWithManifest(async () => {
    const source = new ManifestSource({ plugin: 'ValidatingAdmissionPolicy', dir: '', metrics: createReloadMetrics(new Registry(), 'x'), logger: createLogger({ write: () => {} }) });
    assert.throws(() => source.loadInitial(), (err: unknown) => {
      assert.ok(err instanceof InitialLoadError);
      assert.equal(err.message, 'failed to load static policy manifests from "": manifest directory path is empty');
      return true;
    });
  });
});
