// Shared by the MutatingAdmissionPolicy tests: real manifests loaded as the daemon loads them, real requests, and
// the chain's answer with its patch applied to the object that was sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import jsonPatch from 'fast-json-patch';
import type { AdmissionRequest, AdmissionResponse } from '../../../lib/api/admission.js';
import { defaultObject } from '../../../lib/admission/defaulting/index.js';
import { mutateRequest } from '../../../lib/admission/mutate.js';
import type { MutatingPlugin } from '../../../lib/admission/mutation.js';
import { createMutatingPolicyPlugin } from '../../../lib/admission/mutating/plugin.js';
import type { MutationCheck } from '../../../lib/admission/mutating/dispatcher.js';
import type { PolicyHook } from '../../../lib/manifest/compile.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { tempDir, writeFiles } from '../../helpers/fs.js';

export const root = new URL('../../../../', import.meta.url).pathname;

export const capture = (name: string): AdmissionRequest =>
  (JSON.parse(readFileSync(`${root}testdata/admission/apiserver-captures/${name}.json`, 'utf8')) as { request: AdmissionRequest }).request;

/** Loads MutatingAdmissionPolicy manifests from a temporary directory, as the daemon would. */
export function loadHooks(yaml: string): readonly PolicyHook[] {
  const { dir, cleanup } = tempDir('sad-map-');
  try {
    writeFiles(dir, { 'policies.yaml': yaml });
    const snapshot = loadSnapshotSync('MutatingAdmissionPolicy', dir);
    assert.equal(snapshot.compiled.family, 'policy');
    return snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
  } finally {
    cleanup();
  }
}

export interface PolicyOptions {
  readonly resources?: string;
  readonly group?: string;
  /** apiVersions, as YAML: default `v1` */
  readonly versions?: string;
  readonly operations?: string;
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** raw YAML lines at spec level (matchConditions, variables), indented by two spaces */
  readonly extra?: string;
  /** binding spec extra (matchResources), indented by two spaces */
  readonly bindingExtra?: string;
}

const indent = (text: string, by: string): string => text.split('\n').map((l) => (l === '' ? l : by + l)).join('\n');

/** A MutatingAdmissionPolicy (`<name>.static.k8s.io`) with the given mutations and its binding. */
export function policy(name: string, mutations: ReadonlyArray<{ jsonPatch: string } | { applyConfiguration: string }>, o: PolicyOptions = {}): string {
  const m = mutations.map((x) => 'jsonPatch' in x
    ? `  - patchType: JSONPatch\n    jsonPatch:\n      expression: |\n${indent(x.jsonPatch, '        ')}\n`
    : `  - patchType: ApplyConfiguration\n    applyConfiguration:\n      expression: |\n${indent(x.applyConfiguration, '        ')}\n`).join('');
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: ${name}.static.k8s.io}
spec:
  failurePolicy: ${o.failurePolicy ?? 'Fail'}
  reinvocationPolicy: ${o.reinvocationPolicy ?? 'Never'}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["${o.group ?? ''}"], apiVersions: [${o.versions ?? 'v1'}], operations: ${o.operations ?? '[CREATE, UPDATE]'}, resources: [${o.resources ?? 'pods'}]}
${o.extra ?? ''}  mutations:
${m}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: ${name}-binding.static.k8s.io}
spec:
  policyName: ${name}.static.k8s.io
${o.bindingExtra ?? ''}`;
}

/** `o` with the scheme's defaults, as the apiserver sends objects and as upstream leaves them after a mutation. */
export function defaulted<T>(o: T): T {
  const { apiVersion, kind } = o as { apiVersion?: string; kind?: string };
  return defaultObject(o, { apiVersion: apiVersion ?? '', kind: kind ?? '' }) as T;
}

/** A request for `object` (kind/resource from apiVersion/kind; pods, configmaps, deployments), the object defaulted
 * as the apiserver defaults it before admission. */
export function requestFor(object: Record<string, unknown>, operation = 'CREATE', oldObject: unknown = null): AdmissionRequest {
  const apiVersion = String(object['apiVersion']);
  const kind = String(object['kind']);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
  const resource = `${kind.toLowerCase()}s`;
  const meta = object['metadata'] as { name?: string; namespace?: string } | undefined;
  return {
    uid: 'u-1',
    kind: { group, version, kind },
    resource: { group, version, resource },
    requestKind: { group, version, kind },
    requestResource: { group, version, resource },
    name: meta?.name ?? '',
    namespace: meta?.namespace ?? 'default',
    operation,
    userInfo: { username: 'admin' },
    object: operation === 'DELETE' ? null : defaulted(object),
    oldObject,
    dryRun: false,
  } as AdmissionRequest;
}

export interface Mutated {
  readonly response: AdmissionResponse;
  /** the chain's object */
  readonly object: unknown;
  /** request.object with the answer's patch applied (what the apiserver ends up with) */
  readonly patched: unknown;
  readonly operations: ReadonlyArray<Record<string, unknown>>;
  readonly checks: readonly MutationCheck[];
}

/** Runs the /mutate chain with the MutatingAdmissionPolicy plugin (and `extra` plugins after it). */
export async function mutate(hooks: readonly PolicyHook[], request: AdmissionRequest, extra: readonly MutatingPlugin[] = []): Promise<Mutated> {
  const checks: MutationCheck[] = [];
  const plugin = createMutatingPolicyPlugin({ hooks: () => hooks, onChecks: (c) => checks.push(...c) });
  const sent = structuredClone(request.object);
  const { response, object } = await mutateRequest(request, [plugin, ...extra], { deadline: Date.now() + 10_000, signal: new AbortController().signal });
  assert.deepEqual(request.object, sent, 'the request object is never modified');
  let operations: Array<Record<string, unknown>> = [];
  let patched: unknown = request.object;
  if (response.patch) {
    assert.equal(response.patchType, 'JSONPatch');
    operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as Array<Record<string, unknown>>;
    patched = jsonPatch.applyPatch(structuredClone(request.object), operations as never, true, false).newDocument;
  }
  return { response, object, patched, operations, checks };
}

export function pod(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec };
}
