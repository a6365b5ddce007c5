// The compile step (what admission runs) declares what upstream's compilers declare: each variable typed by its
// expression's output type in declaration order (k8s plugin/cel/composition.go CompileAndStoreVariable, AddField),
// no `variables` in a policy's matchConditions, `params` only with a paramKind (compile.go createEnvForOpts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidatingAdmissionPolicy } from '../../lib/api/types.js';
import { compileManifests } from '../../lib/manifest/compile.js';
import { ManifestError } from '../../lib/manifest/errors.js';

function policy(spec: NonNullable<ValidatingAdmissionPolicy['spec']>): ValidatingAdmissionPolicy {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p.static.k8s.io' }, spec };
}

function compileError(spec: NonNullable<ValidatingAdmissionPolicy['spec']>): string {
  try {
    compileManifests('ValidatingAdmissionPolicy', { family: 'policy', policies: [policy(spec)], bindings: [] });
  } catch (error) {
    assert.ok(error instanceof ManifestError);
    return error.message;
  }
  return assert.fail('expected the compile to fail');
}

test('a variable is typed by its expression for every later expression', () => {
  const message = compileError({
    variables: [{ name: 'v', expression: '"abc"' }, { name: 'w', expression: 'variables.v.size()' }],
    validations: [{ expression: 'variables.w' }],
  });
  assert.equal(message, 'failed to compile policy "p.static.k8s.io": spec.validations[0].expression: must evaluate to bool but got int');
});

test('a variable that is a list keeps its element type', () => {
  const message = compileError({ variables: [{ name: 'names', expression: "['a', 'b']" }], validations: [{ expression: 'variables.names[0] == 1' }] });
  assert.match(message, /spec\.validations\[0\]\.expression: compilation failed: ERROR: <input>:1:20: found no matching overload for '_==_' applied to '\(string, int\)'/);
});

test('matchConditions have no variables, and params needs a paramKind', () => {
  const message = compileError({
    variables: [{ name: 'v', expression: 'true' }],
    matchConditions: [{ name: 'm', expression: 'variables.v' }],
    validations: [{ expression: 'params == null' }],
  });
  assert.match(message, /spec\.matchConditions\[0\]\.expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' \(in container ''\)/);
  assert.match(message, /spec\.validations\[0\]\.expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' \(in container ''\)/);
});

test('the same policy compiles once its expressions have upstream\'s types', () => {
  const compiled = compileManifests('ValidatingAdmissionPolicy', {
    family: 'policy',
    policies: [policy({ variables: [{ name: 'v', expression: '"abc"' }], validations: [{ expression: "variables.v == 'abc'" }] })],
    bindings: [],
  });
  assert.equal(compiled.family, 'policy');
});
