// Shared by the admission tests: real apiserver captures, and ValidatingAdmissionPolicy manifests loaded through the
// real loader.
import { readFileSync } from 'node:fs';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import type { PolicyHook } from '../../lib/manifest/compile.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

const root = new URL('../../../', import.meta.url).pathname;

/** The request of testdata/admission/apiserver-captures/<name>.json */
export function capture(name: string): AdmissionRequest {
  return (JSON.parse(readFileSync(`${root}testdata/admission/apiserver-captures/${name}.json`, 'utf8')) as { request: AdmissionRequest }).request;
}

/** ValidatingAdmissionPolicy manifests loaded from a temporary directory, as the daemon loads them. */
export function loadPolicies(yaml: string): readonly PolicyHook[] {
  const { dir, cleanup } = tempDir('sad-admission-');
  try {
    writeFiles(dir, { 'p.yaml': yaml });
    const snap = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    return snap.compiled.family === 'policy' ? snap.compiled.hooks : [];
  } finally {
    cleanup();
  }
}
