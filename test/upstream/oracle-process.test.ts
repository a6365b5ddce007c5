// The upstream oracle as a process (tools/upstream-oracle, PROTOCOL.md): spawned once, each op asked on a tiny case
// over JSON lines, answers checked against what kube-apiserver 1.36's code says. Where the binary is not built it is
// skipped, saying why; under CI=true (CI builds it) a missing binary fails.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { configMapRequest } from '../webhook/helpers.js';

const oraclePath = new URL('../../../tools/upstream-oracle/bin/upstream-oracle', import.meta.url).pathname;

function skipReason(): string | false {
  if (existsSync(oraclePath) || process.env['CI'] === 'true') return false;
  const goMissing = spawnSync('go', ['version'], { stdio: 'ignore' }).error !== undefined;
  return goMissing
    ? 'go is not installed, so tools/upstream-oracle cannot be built'
    : 'tools/upstream-oracle is not built: run tools/upstream-oracle/build.sh';
}
const needsOracle = { skip: skipReason() } as const;

type Answer = Record<string, unknown> & { id: number };

/** Sends every request at once, then collects the answers, which must come back in order. */
async function ask(requests: ReadonlyArray<Record<string, unknown>>): Promise<Answer[]> {
  const child = spawn(oraclePath, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const answers: Answer[] = [];
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  lines.on('line', (line) => answers.push(JSON.parse(line) as Answer));
  for (const r of requests) child.stdin.write(JSON.stringify(r) + '\n');
  child.stdin.end();
  assert.equal(await exited, 0);
  return answers;
}

const policies = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: needs a team, reason: Forbidden}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team.static.k8s.io}
spec: {policyName: team.static.k8s.io, validationActions: [Deny]}
`;

const mutating = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: team.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch: {expression: '[JSONPatch{op: "add", path: "/metadata/labels", value: {"team": "blue"}}]'}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {name: team.static.k8s.io}
spec: {policyName: team.static.k8s.io}
`;

/** A ConfigMap CREATE in namespace apps, as the apiserver sends it, wrapped in its AdmissionReview. */
function configMapReview(labels?: Record<string, string>): unknown {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'apps', ...(labels ? { labels } : {}) } };
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: configMapRequest({ name: 'cm1', namespace: 'apps', object }) };
}

let root = '';
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'oracle-process-'));
});
after(async () => {
  if (root !== '') await rm(root, { recursive: true, force: true });
});

async function dir(name: string, content: string): Promise<string> {
  const path = join(root, name);
  await mkdir(path);
  await writeFile(join(path, 'manifests.yaml'), content);
  return path;
}

test('every op answers in order, echoing ids, as kube-apiserver 1.36 decides', needsOracle, async () => {
  const vap = await dir('vap', policies);
  const map = await dir('map', mutating);
  const broken = await dir('broken', policies.replace('policyName: team.static.k8s.io', 'policyName: gone.static.k8s.io'));
  const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } };
  const answers = await ask([
    { id: 1, op: 'load', plugin: 'ValidatingAdmissionPolicy', dir: vap },
    { id: 2, op: 'load', plugin: 'ValidatingAdmissionPolicy', dir: broken },
    { id: 3, op: 'validate', dir: vap, review: configMapReview(), namespace },
    { id: 4, op: 'validate', dir: vap, review: configMapReview({ team: 'x' }), namespace },
    { id: 5, op: 'mutate', dir: map, review: configMapReview(), namespace },
    { id: 6, op: 'compile', object: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'object.x ==' }] } } },
    { id: 7, op: 'no-such-op' },
  ]);
  assert.deepEqual(answers.map((a) => a.id), [1, 2, 3, 4, 5, 6, 7]);
  const [load, refused, denied, allowed, mutated, compiled, bad] = answers as [Answer, Answer, Answer, Answer, Answer, Answer, Answer];

  // upstream: k8s.io/apiserver pkg/admission/plugin/manifest/loader.go (sha256 over the files read)
  assert.equal(load['ok'], true);
  assert.match(String(load['hash']), /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(load['counts'], { ValidatingAdmissionPolicy: 1, ValidatingAdmissionPolicyBinding: 1 });
  // upstream: k8s.io/apiserver pkg/admission/plugin/policy/manifest/loader/loader.go (validateBindingReferences)
  assert.equal(refused['ok'], false);
  assert.match(String(refused['error']), /binding "team.static.k8s.io" references policy "gone.static.k8s.io" which does not exist in the manifest directory/);

  // upstream: k8s.io/apiserver pkg/admission/plugin/policy/validating/dispatcher.go (reason Forbidden -> 403)
  assert.equal(denied['allowed'], false);
  assert.deepEqual({ ...(denied['status'] as Record<string, unknown>), details: undefined }, {
    code: 403,
    reason: 'Forbidden',
    message: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'team.static.k8s.io' with binding 'team.static.k8s.io' denied request: needs a team`,
    details: undefined,
  });
  assert.equal(allowed['allowed'], true);
  assert.equal(allowed['status'], undefined);

  // upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher.go (patched, then defaulted)
  assert.equal(mutated['allowed'], true);
  const object = mutated['object'] as { metadata: { labels: Record<string, string> } };
  assert.deepEqual(object.metadata.labels, { team: 'blue' });

  // upstream: k8s.io/kubernetes pkg/apis/admissionregistration/validation/validation.go
  const errors = compiled['errors'] as string[];
  assert.equal(errors.length, 1);
  assert.match(errors[0] ?? '', /^spec\.validations\[0\]\.expression: Invalid value: "object\.x ==": compilation failed: ERROR: <input>:1:12: Syntax error/);

  assert.match(String(bad['oracleError']), /unknown op "no-such-op"/);
});
