// Keys named like Object.prototype members (`constructor`, `__proto__`, `valueOf`, …) are data like any other key.
// Every such name is sent as a key at every object position of a pod review and of a custom-resource review, to
// /validate and /mutate, through a daemon evaluating on a policy worker and through one with --workers 0. Each answer
// must be exactly the answer to the same review with the key renamed (`zz<name>`), the name mapped back: upstream
// decodes with sigs.k8s.io/json, whose field matching is case-sensitive (UnmarshalCaseSensitivePreserveInts), so no
// such name collides with a known field, and an unknown one is unknown whatever it is called.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { post, root, spawnDaemon, stop, waitFor } from './helpers.js';

const prototypeNames = Object.getOwnPropertyNames(Object.prototype);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The paths of every object in `value` (arrays' elements included), the root first. */
function objectPaths(value: Json, path: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => objectPaths(v, [...path, i]));
  return [path, ...Object.keys(value).flatMap((k) => objectPaths(value[k]!, [...path, k]))];
}

/** `review` (as JSON text) with an own property `key: value` added to the object at `path`. */
function withKey(review: Json, path: ReadonlyArray<string | number>, key: string, value: Json): string {
  const copy = JSON.parse(JSON.stringify(review)) as Json;
  let target = copy as { [key: string]: Json } | Json[];
  for (const step of path) target = (target as Record<string | number, Json>)[step] as { [key: string]: Json };
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(copy);
}

/** An answer as text with its patch decoded, so that a key renamed in the patch can be mapped back too. */
function readable(status: number, body: string): string {
  try {
    const answer = JSON.parse(body) as { response?: { patch?: string } };
    if (answer.response?.patch !== undefined) answer.response.patch = Buffer.from(answer.response.patch, 'base64').toString('utf8');
    return `${status} ${JSON.stringify(answer)}`;
  } catch {
    return `${status} ${body}`;
  }
}

// a pod the apiserver sent, its container given limits (requests default to them: a map keyed by data)
const podReview = JSON.parse(readFileSync(join(root, 'testdata/admission/apiserver-captures/007-validate-CREATE-Pod-p1.json'), 'utf8')) as {
  request: { object: { spec: { containers: Array<{ resources: Json }> } } };
};
podReview.request.object.spec.containers[0]!.resources = { limits: { cpu: '500m', memory: '64Mi' } };

const cronTab = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
const customResourceReview: Json = {
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '5d5fc0e0-3a54-4f5b-9d4b-7d3b1c0f7a11',
    kind: cronTab,
    resource: { group: 'stable.example.com', version: 'v1', resource: 'crontabs' },
    requestKind: cronTab,
    requestResource: { group: 'stable.example.com', version: 'v1', resource: 'crontabs' },
    name: 'nightly',
    namespace: 'jobs',
    operation: 'CREATE',
    userInfo: { username: 'alice', uid: 'alice-uid', groups: ['developers', 'system:authenticated'], extra: { 'example.com/team': ['payments'] } },
    object: {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'nightly', namespace: 'jobs', labels: { app: 'backup' }, annotations: { note: 'n' } },
      spec: { cronSpec: '0 3 * * *', image: 'backup:1', replicas: 1, schedule: { zone: 'UTC', window: { hours: 2 } }, targets: [{ name: 'db', options: { full: true } }] },
    },
    oldObject: null,
    dryRun: false,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
  },
};

// Policies that read the object every way a policy can: has(), map access and iteration, optional fields, label
// selectors, matchConditions, messageExpressions that print what they read, a JSONPatch and ApplyConfigurations.
const validatingPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pods.static.k8s.io}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}
  matchConditions:
  - {name: has-spec, expression: "has(object.spec)"}
  variables:
  - {name: labels, expression: "object.metadata.?labels.orValue({})"}
  validations:
  - expression: "object.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || !c.securityContext.privileged)"
    message: privileged containers are not allowed
  - expression: "variables.labels.all(k, k.size() < 60 && variables.labels[k] != 'deny')"
    messageExpression: "'labels: ' + variables.labels.map(k, k).join(',')"
  - expression: "!has(object.metadata.annotations) || object.metadata.annotations.size() < 50"
  auditAnnotations:
  - {key: label-count, valueExpression: "string(variables.labels.size())"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: pods-binding.static.k8s.io}
spec:
  policyName: pods.static.k8s.io
  validationActions: [Deny, Audit]
  matchResources:
    objectSelector:
      matchExpressions:
      - {key: blocked, operator: DoesNotExist}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: crontabs.static.k8s.io}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [crontabs]}
  validations:
  - expression: "object.spec.replicas <= 5 && object.spec.schedule.window.hours < 4"
    messageExpression: "'spec keys: ' + object.spec.map(k, k).join(',') + '; schedule: ' + object.spec.schedule.map(k, k).join(',')"
  - expression: "object.spec.targets.all(t, has(t.name) && (!has(t.options) || t.options.all(k, k != 'wipe')))"
  - expression: "!has(request.userInfo.extra) || request.userInfo.extra.all(k, request.userInfo.extra[k].size() < 5)"
    messageExpression: "'extra: ' + request.userInfo.extra.map(k, k).join(',')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: crontabs-binding.static.k8s.io}
spec:
  policyName: crontabs.static.k8s.io
  validationActions: [Deny]
  matchResources:
    objectSelector:
      matchLabels: {app: backup}
`;

const mutatingPolicies = `${readFileSync(join(root, 'testdata/admission/mutating/policies.yaml'), 'utf8')}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: pod-labels.static.k8s.io}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/metadata/annotations", value: {"label-keys": object.metadata.?labels.orValue({}).map(k, k).join(",")}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: pod-labels-binding.static.k8s.io}
spec:
  policyName: pod-labels.static.k8s.io
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: crontabs.static.k8s.io}
spec:
  reinvocationPolicy: IfNeeded
  matchConstraints:
    resourceRules:
    - {apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"schedule-keys": string(object.spec.schedule.size())}},
          spec: Object.spec{schedule: Object.spec.schedule{window: Object.spec.schedule.window{hours: 3}}}}
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "replace", path: "/spec/replicas", value: object.spec.replicas + 1}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: crontabs-binding.static.k8s.io}
spec:
  policyName: crontabs.static.k8s.io
`;

interface Variant {
  readonly label: string;
  readonly endpoint: '/validate' | '/mutate';
  readonly body: string;
  readonly renamed: string;
  readonly name: string;
}

function variants(review: Json, what: string): Variant[] {
  const out: Variant[] = [];
  for (const path of objectPaths(review)) {
    for (const name of prototypeNames) {
      // a string, and for __proto__ also an object (assigned, it would replace the prototype)
      const values: Json[] = name === '__proto__' ? ['v', { polluted: 'yes' }] : ['v'];
      for (const value of values) {
        for (const endpoint of ['/validate', '/mutate'] as const) {
          out.push({
            label: `${what} ${endpoint} ${JSON.stringify(path)} ${name}=${JSON.stringify(value)}`,
            endpoint,
            body: withKey(review, path, name, value),
            renamed: withKey(review, path, `zz${name}`, value),
            name,
          });
        }
      }
    }
  }
  return out;
}

async function checkDaemon(t: { after: (fn: () => unknown) => void }, workers: string): Promise<number> {
  const { dir, cleanup } = tempDir('sad-e2e-prototype-');
  t.after(cleanup);
  writeFiles(dir, {
    'validating/policies.yaml': validatingPolicies,
    'mutating/policies.yaml': mutatingPolicies,
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ValidatingAdmissionPolicyConfiguration, staticManifestsDir: ${join(dir, 'validating')}}
- name: MutatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: MutatingAdmissionPolicyConfiguration, staticManifestsDir: ${join(dir, 'mutating')}}
`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, '--workers', workers]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon, 60_000);

  const all = [...variants(podReview as unknown as Json, 'pod'), ...variants(customResourceReview, 'crontab')];
  const mismatches: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < all.length; i = next++) {
      const v = all[i]!;
      const [got, want] = await Promise.all([post(`${url}${v.endpoint}`, certs.caPEM, v.body), post(`${url}${v.endpoint}`, certs.caPEM, v.renamed)]);
      statuses.set(got.status, (statuses.get(got.status) ?? 0) + 1);
      const expected = readable(want.status, want.body).replaceAll(`zz${v.name}`, v.name);
      const actual = readable(got.status, got.body);
      if (actual !== expected && mismatches.length < 20) mismatches.push(`${v.label}:\n  got  ${actual.slice(0, 600)}\n  want ${expected.slice(0, 600)}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ from the renamed key's (first 20 shown)`);
  assert.ok(![...statuses.keys()].some((s) => s >= 500), `5xx answers: ${JSON.stringify([...statuses])}`);
  // the renamed keys were not all refused: the variants reached the policies
  assert.ok((statuses.get(200) ?? 0) > all.length / 2, JSON.stringify([...statuses]));
  return all.length;
}

test('Object.prototype names as keys everywhere in a pod and a custom resource review: answered as any other key, on a policy worker', { timeout: 600_000 }, async (t) => {
  const sent = await checkDaemon(t, '1');
  t.diagnostic(`${sent} reviews, each against its renamed twin`);
});

test('Object.prototype names as keys everywhere in a pod and a custom resource review: answered as any other key, --workers 0', { timeout: 600_000 }, async (t) => {
  await checkDaemon(t, '0');
});
