// `static-admissiond audit-policy`: the audit.k8s.io/v1 Policy that records what `replay` needs of a manifest set.
// The rule semantics are kube-apiserver's (S/audit/policy/checker.go ruleMatchesResource): groups exactly, `r/*` a
// resource with its subresources, `*` everything, and a rule without resources every group.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { tempDir } from '../helpers/fs.js';
import { run } from '../cli/helpers.js';
import { boundPolicy, configMapPolicy, policySet } from './helpers.js';

const policy = (name: string, rules: string): string => boundPolicy(name, rules, '  - expression: "true"');

test('RequestResponse for every write of what the set can match, Request for its CONNECTs, None for the rest', async () => {
  const tmp = tempDir('sad-audit-policy-');
  try {
    const config = policySet(tmp.dir, 'set', [
      // DELETE only: the creates and updates before it are recorded too (they are its old objects)
      policy('deployments', `    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["DELETE"]
      resources: ["deployments", "deployments/scale"]`),
      policy('exec', `    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CONNECT"]
      resources: ["pods/exec"]`),
      configMapPolicy('cm', '  - expression: "true"\n'),
      // never bound: matches nothing, needs nothing
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: unbound.static.k8s.io
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["batch"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["jobs"]
  validations:
  - expression: "true"
`,
    ].join('---\n'));
    const r = await run(['audit-policy', '--admission-config', config]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^# Records what `static-admissiond replay` needs/);
    assert.match(r.out, /put every rule but the last \(`level: None`\)\n# first in its `rules`/);
    assert.deepEqual(parse(r.out), {
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [
        { level: 'RequestResponse', verbs: ['create', 'update', 'patch', 'delete'], resources: [{ group: '', resources: ['configmaps/*'] }, { group: 'apps', resources: ['deployments/*'] }] },
        { level: 'Request', verbs: ['get', 'create', 'update', 'patch', 'delete'], resources: [{ group: '', resources: ['pods/exec'] }] },
        { level: 'None' },
      ],
    });

    const everything = policySet(tmp.dir, 'all', policy('all', `    - apiGroups: ["*"]
      apiVersions: ["*"]
      operations: ["*"]
      resources: ["*"]`));
    const all = parse((await run(['audit-policy', '--admission-config', everything])).out) as { rules: unknown[] };
    assert.deepEqual(all.rules, [
      { level: 'RequestResponse', verbs: ['create', 'update', 'patch', 'delete'] },
      { level: 'Request', verbs: ['get', 'create', 'update', 'patch', 'delete'] },
      { level: 'None' },
    ]);

    const broken = policySet(tmp.dir, 'broken', configMapPolicy('broken', '  - expression: "object +"\n'));
    const bad = await run(['audit-policy', '--admission-config', broken]);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /^error: failed to load static policy manifests from/);
  } finally {
    tmp.cleanup();
  }
});
