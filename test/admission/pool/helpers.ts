// Shared pieces of the policy pool tests: policy directories, AdmissionReview bodies as the listener hands them
// over (parsed request + raw bytes), request contexts, and a pool that is always closed.
import type { TestContext } from 'node:test';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import type { AdmissionRequest } from '../../../lib/api/admission.js';
import { PolicyPool } from '../../../lib/admission/pool/pool.js';
import type { PolicyPoolOptions } from '../../../lib/admission/pool/pool.js';
import type { RequestContext, ReviewInput } from '../../../lib/review/validate-handler.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import type { Snapshot } from '../../../lib/reload/snapshot.js';
import { tempDir, writeFiles } from '../../helpers/fs.js';
import { sampleValue } from '../../server/helpers.js';

/** dist/test/admission/pool → the package root */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export function capture(name: string): AdmissionRequest {
  return (JSON.parse(readFileSync(`${packageRoot}/testdata/admission/apiserver-captures/${name}.json`, 'utf8')) as { request: AdmissionRequest }).request;
}

export function benchPod(): AdmissionRequest {
  return (JSON.parse(readFileSync(`${packageRoot}/testdata/bench/pod-review.json`, 'utf8')) as { request: AdmissionRequest }).request;
}

/** What the admission listener hands a route: the parsed request and the body bytes it came in. */
export function review(request: AdmissionRequest, apiVersion = 'admission.k8s.io/v1'): ReviewInput {
  return { request, body: Buffer.from(JSON.stringify({ kind: 'AdmissionReview', apiVersion, request })) };
}

export function context(timeoutMs = 10_000): RequestContext & { controller: AbortController } {
  const controller = new AbortController();
  return { deadline: Date.now() + timeoutMs, signal: controller.signal, controller };
}

/** A snapshot of `files` written to a temporary directory (removed when the test ends). */
export function snapshotOf(t: TestContext, files: Record<string, string>): Snapshot {
  const { dir, cleanup } = tempDir('sad-pool-');
  t.after(cleanup);
  writeFiles(dir, files);
  return loadSnapshotSync('ValidatingAdmissionPolicy', dir);
}

export function snapshotDir(dir: string): Snapshot {
  return loadSnapshotSync('ValidatingAdmissionPolicy', dir);
}

/** A started pool, closed when the test ends; resolves once every worker compiled its snapshot. */
export async function startPool(t: TestContext, options: Partial<PolicyPoolOptions> & { snapshot: Snapshot }): Promise<{ pool: PolicyPool; registry: Registry }> {
  const registry = options.registry ?? new Registry();
  // no reserve worker: these tests count and address the workers they start (the reserve: isolation.test.ts)
  const pool = new PolicyPool({ threads: 1, reserveThreads: 0, ...options, registry });
  t.after(() => pool.close());
  await pool.ready();
  return { pool, registry };
}

export function policy(name: string, body: string, resources = 'configmaps', extra = ''): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
${extra}  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE, DELETE], resources: [${resources}]}
${body}`;
}

export function binding(name: string, policyName: string, actions = '[Deny]', extra = ''): string {
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${policyName}
  validationActions: ${actions}
${extra}`;
}

/** The value of one sample in Prometheus text output. */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  return sampleValue(await registry.metrics(), name, labels);
}
