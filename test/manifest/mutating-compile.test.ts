// MutatingAdmissionPolicy mutations are compiled at load time: a valid JSONPatch or ApplyConfiguration expression
// (CEL message construction) loads, a broken one fails the whole load with the mutation's field path, as upstream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constructionTypeOf } from '../../lib/cel/index.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import type { Snapshot } from '../../lib/reload/snapshot.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A MutatingAdmissionPolicy with one mutation, plus its binding. */
function map(name: string, mutation: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  variables:
  - name: team
    expression: "'platform'"
  mutations:
${mutation}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name.replace('.static.k8s.io', '-binding.static.k8s.io')}
spec:
  policyName: ${name}
`;
}

const jsonPatch = (expression: string): string => `  - patchType: JSONPatch
    jsonPatch:
      expression: '${expression.replaceAll("'", "''")}'
`;

const applyConfiguration = (expression: string): string => `  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: '${expression.replaceAll("'", "''")}'
`;

function loadPolicies(files: Record<string, string>): { snapshot?: Snapshot; error?: string } {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, files);
    try {
      return { snapshot: loadSnapshotSync('MutatingAdmissionPolicy', dir) };
    } catch (err) {
      return { error: (err as Error).message };
    }
  } finally {
    cleanup();
  }
}

function mutation(snapshot: Snapshot | undefined, path: string): { evaluate(activation: Record<string, unknown>): unknown } {
  assert.equal(snapshot?.compiled.family, 'policy');
  if (snapshot?.compiled.family !== 'policy') throw new Error('unreachable');
  const found = snapshot.compiled.hooks[0]!.expressions.find((e) => e.path === path);
  assert.ok(found, `no compiled expression at ${path}`);
  return found.compiled;
}

test('the dev example testdata/dev/mutating-policies/default-team-label.yaml loads and its JSONPatch evaluates', () => {
  const snapshot = loadSnapshotSync('MutatingAdmissionPolicy', join(root, 'testdata', 'dev', 'mutating-policies'));
  const patch = mutation(snapshot, 'spec.mutations[0].jsonPatch.expression');
  const withLabels = patch.evaluate({ object: { metadata: { name: 'c', labels: { app: 'x' } } } }) as unknown[];
  assert.deepEqual(withLabels, [{ op: 'add', path: '/metadata/labels/team', value: 'unassigned' }]);
  assert.equal(constructionTypeOf(withLabels[0]), 'JSONPatch');
  assert.deepEqual(patch.evaluate({ object: { metadata: { name: 'c' } } }), [
    { op: 'add', path: '/metadata/labels', value: { team: 'unassigned' } },
  ]);
});

test('a valid JSONPatch mutation loads and is compiled with the policy variables in scope', () => {
  const { snapshot, error } = loadPolicies({
    'p.yaml': map('team.static.k8s.io', jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/team", value: variables.team}]')),
  });
  assert.equal(error, undefined);
  const patch = mutation(snapshot, 'spec.mutations[0].jsonPatch.expression');
  const team = 'platform';
  assert.deepEqual(patch.evaluate({ object: {}, variables: { team } }), [{ op: 'add', path: '/metadata/labels/team', value: team }]);
});

test('a valid ApplyConfiguration mutation loads', () => {
  const { snapshot, error } = loadPolicies({
    'p.yaml': map('sidecar.static.k8s.io', applyConfiguration(
      'Object{spec: Object.spec{initContainers: [Object.spec.initContainers{name: "mesh-proxy", image: "mesh/proxy:v1.0.0", restartPolicy: "Always"}]}}',
    )),
  });
  assert.equal(error, undefined);
  const patch = mutation(snapshot, 'spec.mutations[0].applyConfiguration.expression');
  assert.deepEqual(patch.evaluate({ object: {} }), {
    spec: { initContainers: [{ name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', restartPolicy: 'Always' }] },
  });
});

test('an undeclared reference in a JSONPatch mutation fails the load with the mutation path', () => {
  const { snapshot, error } = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', jsonPatch('[JSONPatch{op: "add", path: objekt.x}]')) });
  assert.equal(snapshot, undefined);
  assert.ok(error?.includes('spec.mutations[0].jsonPatch.expression'), error);
  assert.ok(error?.includes("undeclared reference to 'objekt' (in container '')"), error);
  // The caret points at `objekt` in the expression as written.
  assert.ok(error?.includes('ERROR: <input>:1:29:'), error);
});

test('a JSONPatch mutation of the wrong result type fails validation, naming the file, the object and the field', () => {
  const { error } = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', jsonPatch('JSONPatch{op: "remove", path: "/metadata/labels"}')) });
  assert.match(error ?? '', /error loading \S+p\.yaml: MutatingAdmissionPolicy "bad\.static\.k8s\.io": spec\.mutations\[0\]\.jsonPatch\.expression: Invalid value: .*: must evaluate to list\(JSONPatch\) but got JSONPatch/);
  // an empty list literal is list(dyn), not list(JSONPatch) (compile.go IsExactType)
  const empty = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', jsonPatch('[]')) });
  assert.ok(empty.error?.includes('must evaluate to list(JSONPatch) but got list(dyn)'), empty.error);
});

test('an ApplyConfiguration mutation of the wrong result type fails validation, naming the file, the object and the field', () => {
  const { error } = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', applyConfiguration('"spec"')) });
  assert.match(error ?? '', /p\.yaml: MutatingAdmissionPolicy "bad\.static\.k8s\.io": spec\.mutations\[0\]\.applyConfiguration\.expression: Invalid value: .*: must evaluate to Object but got string/);
  const dyn = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', applyConfiguration('object.spec')) });
  assert.ok(dyn.error?.includes('must evaluate to Object but got dyn'), dyn.error);
});

test('a syntax error in an ApplyConfiguration construction fails the load, pointing into the original text', () => {
  const { error } = loadPolicies({ 'p.yaml': map('bad.static.k8s.io', applyConfiguration('Object{spec: Object.spec{replicas 1}}')) });
  assert.ok(error?.includes('spec.mutations[0].applyConfiguration.expression'), error);
  // upstream (tools/upstream-oracle compile): ANTLR inserts the missing ':' and reports it
  assert.ok(error?.includes("ERROR: <input>:1:35: Syntax error: missing ':' at '1'"), error);
});
