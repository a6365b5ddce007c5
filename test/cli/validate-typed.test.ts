// `validate` on a directory that loaded before issue 19 (the engine's lenient checker) names what kube-apiserver
// 1.36 refuses: the file, the object, the field and upstream's text. This is how an operator who upgrades learns
// it before a reload fails (README, Upgrade notes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { run } from './helpers.js';

function policy(name: string, body: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}.static.k8s.io}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
${body}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}-binding.static.k8s.io}
spec: {policyName: ${name}.static.k8s.io, validationActions: [Deny]}
`;
}

const cases: ReadonlyArray<{ name: string; body: string; expected: RegExp }> = [
  {
    name: 'typed-variable',
    body: `  variables:\n  - {name: v, expression: '"abc"'}\n  validations:\n  - expression: variables.v\n`,
    expected: /typed-variable\.yaml: ValidatingAdmissionPolicy "typed-variable\.static\.k8s\.io": spec\.validations\[0\]\.expression: Invalid value: "variables\.v": must evaluate to bool but got string/,
  },
  {
    name: 'dyn-result',
    body: `  validations:\n  - expression: object.spec.paused\n`,
    expected: /dyn-result\.yaml: ValidatingAdmissionPolicy "dyn-result\.static\.k8s\.io": spec\.validations\[0\]\.expression: Invalid value: "object\.spec\.paused": must evaluate to bool but got dyn/,
  },
  {
    name: 'null-string',
    body: `  validations:\n  - expression: request.name != null\n`,
    expected: /null-string\.yaml: ValidatingAdmissionPolicy "null-string\.static\.k8s\.io": spec\.validations\[0\]\.expression: Invalid value: "request\.name != null": compilation failed: ERROR: <input>:1:14: found no matching overload for '_!=_' applied to '\(string, null\)'/,
  },
  {
    name: 'undeclared-params',
    body: `  matchConditions:\n  - {name: p, expression: params == null}\n  validations:\n  - expression: "true"\n`,
    expected: /spec\.matchConditions\[0\]\.expression: Invalid value: "params == null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' \(in container ''\)/,
  },
];

for (const c of cases) {
  test(`validate names the file, object and field upstream refuses: ${c.name}`, async () => {
    const { dir, cleanup } = tempDir('sad-typed-');
    try {
      writeFiles(dir, { [`${c.name}.yaml`]: policy(c.name, c.body) });
      const r = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', join(dir)]);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.err, c.expected);
    } finally {
      cleanup();
    }
  });
}

test('validate accepts the upstream-correct forms of the same policies', async () => {
  const { dir, cleanup } = tempDir('sad-typed-');
  try {
    writeFiles(dir, {
      'ok.yaml': policy('ok', `  variables:\n  - {name: v, expression: '"abc"'}\n  validations:\n  - expression: variables.v == 'abc' && object.spec.paused == true && authorizer != null\n`),
    });
    const r = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
    assert.equal(r.code, 0, r.out + r.err);
  } finally {
    cleanup();
  }
});
