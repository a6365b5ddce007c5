// Audit annotation keys the daemon answers must survive the apiserver's rule: it records `<webhook name>/<key>`
// through S/admission/attributes.go AddAnnotation → checkKeyFormat, which needs exactly one "/" and
// validation.IsQualifiedName (name part at most 63 characters, alphanumeric at both ends). Checked here with our
// port of IsQualifiedName (lib/validation/names.ts, tested against apimachinery's cases elsewhere).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isShortenedAnnotationKey, webhookAnnotationKey } from '../../lib/admission/audit-keys.js';
import { isQualifiedName } from '../../lib/validation/names.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../server/helpers.js';

/** checkKeyFormat of upstream, as the apiserver applies it to a webhook's key. */
function recordedByApiserver(webhookName: string, key: string): boolean {
  const full = `${webhookName}/${key}`;
  return full.split('/').length === 2 && isQualifiedName(full).length === 0;
}

const webhooks = ['validate.static-admissiond.localhost', 'validate.static-admissiond.static.k8s.io', 'mutate.static-admissiond.static.k8s.io'];

test('short keys keep their readable <policy>_<key> form', () => {
  assert.equal(webhookAnnotationKey('p.static.k8s.io/checked'), 'p.static.k8s.io_checked');
  assert.equal(webhookAnnotationKey('validation.policy.admission.k8s.io/validation_failure'), 'validation.policy.admission.k8s.io_validation_failure');
  assert.equal(isShortenedAnnotationKey('p.static.k8s.io/checked'), false);
});

test('the issue\'s case: a 55-character policy name with key checked-object is shortened and recorded', () => {
  const policy = `${'a'.repeat(41)}.static.k8s.io`;
  assert.equal(policy.length, 55);
  const original = `${policy}/checked-object`;
  assert.equal(recordedByApiserver(webhooks[0]!, original.replace('/', '_')), false, 'the old answer was dropped');
  const key = webhookAnnotationKey(original);
  assert.ok(recordedByApiserver(webhooks[0]!, key), key);
  assert.ok(key.length <= 63);
  assert.match(key, /^a{37}_checked-object-[0-9a-f]{10}$/, 'the start of the policy name, the key, then a short hash');
  assert.equal(key.length, 63);
  assert.equal(webhookAnnotationKey(original), key, 'stable');
  assert.notEqual(webhookAnnotationKey(`${policy}/checked-other`), key, 'distinct keys stay distinct');
  assert.equal(isShortenedAnnotationKey(original), true);
});

test('every key shape the daemon answers passes the apiserver rule', () => {
  const policies = ['p', 'x.static.k8s.io', `${'long-name.'.repeat(20)}static.k8s.io`, `${'z'.repeat(240)}.static.k8s.io`, 'UPPER.static.k8s.io'];
  const keys = ['a', 'checked-object', 'k'.repeat(63), 'round_0_index_0', 'with.dots', 'x_'];
  for (const p of policies) {
    for (const k of keys) {
      const answered = webhookAnnotationKey(`${p}/${k}`);
      for (const w of webhooks) assert.ok(recordedByApiserver(w, answered), `${p}/${k} → ${answered} under ${w}`);
    }
  }
  // the apiserver's own webhook annotations when a webhook fails open are answered too
  const failedOpen = webhookAnnotationKey('failed-open.validating.webhook.admission.k8s.io/round_0_index_12');
  for (const w of webhooks) assert.ok(recordedByApiserver(w, failedOpen), failedOpen);
});

test('validate shows the mapping, and review answers the shortened key and says what it stands for', async () => {
  const tmp = tempDir('sad-audit-keys-');
  try {
    const policy = `${'a'.repeat(41)}.static.k8s.io`;
    const dir = join(tmp.dir, 'policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'p.yaml'), `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${policy}}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}]
  validations: [{expression: "true"}]
  auditAnnotations: [{key: checked-object, valueExpression: "string(object.metadata.name)"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b.static.k8s.io}
spec: {policyName: ${policy}, validationActions: [Audit]}
`);
    const answered = webhookAnnotationKey(`${policy}/checked-object`);
    const validated = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
    assert.equal(validated.code, 0, validated.err);
    assert.ok(validated.out.includes(`audit annotation ${policy}/checked-object is answered as ${answered}`), validated.out);

    const config = join(tmp.dir, 'config.yaml');
    writeFileSync(config, admissionConfigYAML(dir));
    const request = {
      uid: 'u1', operation: 'CREATE', name: 'cm1', namespace: 'default',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' }, resource: { group: '', version: 'v1', resource: 'configmaps' },
      userInfo: { username: 'alice' }, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' } }, oldObject: null,
    };
    const reviewed = await run(['review', '--admission-config', config, '-'], JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
    assert.equal(reviewed.code, 0, reviewed.err);
    const annotations = (JSON.parse(reviewed.out) as { response: { auditAnnotations: Record<string, string> } }).response.auditAnnotations;
    assert.equal(annotations[answered], 'cm1');
    for (const key of Object.keys(annotations)) assert.ok(recordedByApiserver(webhooks[0]!, key), key);
    assert.ok(reviewed.err.includes(`note: audit annotation ${answered} stands for ${policy}/checked-object`), reviewed.err);
  } finally {
    tmp.cleanup();
  }
});
