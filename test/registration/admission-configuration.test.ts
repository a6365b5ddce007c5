// Admission-configuration objects (webhook configurations, policies, bindings) and the two registration formats.
//
// upstream: k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go Dispatch: a request that
// rules.IsExemptAdmissionConfigurationResource (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules/rules.go:
// the six admissionregistration.k8s.io kinds) skips API-registered webhooks but runs the static source's webhooks;
// k8s.io/apiserver/pkg/admission/plugin/policy/generic/plugin.go Dispatch does the same for policies on the four
// policy and binding resources (admissionResources). So a `--format static` registration, itself a static webhook in
// the apiserver's staticManifestsDir, is sent them and must ask for them; a `--format api` one never is, and says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { shouldCallHook } from '../../lib/admission/webhooks/call.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { tempDir } from '../server/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { policy, rule } from './helpers.js';

interface Printed {
  kind: string;
  metadata: { name: string };
  webhooks?: Array<{ rules: Array<Record<string, unknown>> }>;
}

const group = 'admissionregistration.k8s.io';
const guardsPolicies = policy('guard-policies', { rules: rule(`[${group}]`, '[v1]', '[validatingadmissionpolicies, validatingadmissionpolicybindings]') });
const configMaps = policy('cms', { rules: rule('[""]', '[v1]', '[configmaps]') });
const everything = policy('everything', { rules: rule('["*"]', '["*"]', '["*"]') });

let tmp: { dir: string; cleanup: () => void };
let caFile: string;
let sets = 0;

before(async () => {
  tmp = tempDir('sad-registration-admission-config-');
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, (await createCertificateAuthority('registration test CA')).certPEM);
});
after(() => tmp.cleanup());

/** An AdmissionConfiguration whose ValidatingAdmissionPolicy directory holds `documents`. */
function configFor(...documents: string[]): string {
  const dir = join(tmp.dir, `set-${++sets}`);
  mkdirSync(dir);
  documents.forEach((d, i) => writeFileSync(join(dir, `${i}.yaml`), d));
  const config = join(tmp.dir, `config-${sets}.yaml`);
  writeFileSync(config, admissionConfigYAML(dir));
  return config;
}

function parse(text: string): Printed[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Printed);
}

const comments = (text: string): string => text.split('\n').filter((l) => l.startsWith('#')).map((l) => l.replace(/^# ?/, '')).join(' ');

function policyRequest(resource: string, kind: string, name: string): AdmissionRequest {
  return {
    uid: 'u1',
    kind: { group, version: 'v1', kind },
    resource: { group, version: 'v1', resource },
    requestKind: { group, version: 'v1', kind },
    requestResource: { group, version: 'v1', resource },
    name,
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { apiVersion: `${group}/v1`, kind, metadata: { name }, spec: {} },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  } as AdmissionRequest;
}

const apiFormat = ['--format', 'api', '--kube-version', '1.30'];

describe('registration: admission-configuration objects', () => {
  test('--format static sends them when a loaded policy can match them: the apiserver runs static webhooks on them', async () => {
    const out = await run(['registration', '--admission-config', configFor(guardsPolicies, configMaps), '--ca-file', caFile]);
    assert.equal(out.code, 0, out.err);
    assert.equal(out.err, '', 'nothing to warn about: the static registration is sent what the policies match');
    const validating = parse(out.out).find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    assert.deepEqual(validating.webhooks![0]!.rules, [
      { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' },
      { operations: ['CREATE', 'UPDATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], scope: '*' },
    ]);
    assert.doesNotMatch(comments(out.out), /NOT ENFORCED/);
    // loaded as kube-apiserver 1.36 loads its staticManifestsDir, the printed webhook is called for a policy's CREATE
    const dir = join(tmp.dir, 'static-registration');
    mkdirSync(dir);
    writeFileSync(join(dir, 'registration.yaml'), JSON.stringify(validating));
    const compiled = loadSnapshotSync('ValidatingAdmissionWebhook', dir).compiled;
    assert.equal(compiled.family, 'webhook');
    const hook = compiled.family === 'webhook' ? compiled.webhooks[0]! : assert.fail('a webhook');
    const options = { excludeWebhookVirtualResources: true, deadline: Date.now() + 10_000, signal: new AbortController().signal };
    assert.ok('call' in shouldCallHook(hook, policyRequest('validatingadmissionpolicies', 'ValidatingAdmissionPolicy', 'p'), options));
    assert.ok('call' in shouldCallHook(hook, policyRequest('validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', 'b'), options));
    assert.deepEqual(shouldCallHook(hook, policyRequest('mutatingadmissionpolicies', 'MutatingAdmissionPolicy', 'm'), options), { skip: true }, 'nothing loaded matches it');
  });

  test('--format api leaves them out and warns on stderr and in the output, naming the guard policy', async () => {
    const out = await run(['registration', '--admission-config', configFor(guardsPolicies, configMaps), '--ca-file', caFile, ...apiFormat]);
    assert.equal(out.code, 0, out.err);
    const validating = parse(out.out).find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    assert.deepEqual(validating.webhooks![0]!.rules, [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }]);
    const lines = out.err.trimEnd().split('\n');
    assert.equal(lines.length, 2, out.err);
    assert.equal(lines[0], 'warning: ValidatingAdmissionPolicy "guard-policies.static.k8s.io" can match validatingadmissionpolicies.admissionregistration.k8s.io, validatingadmissionpolicybindings.admissionregistration.k8s.io, which kube-apiserver never sends to webhooks registered through the API: it is not enforced on them through this registration (in-tree static manifests would be).');
    assert.match(lines[1]!, /^warning: On kube-apiserver 1\.36\+ register with --format static: static registrations are sent them\. Through the API only the REST guard policy static-admissiond-guard/);
    assert.match(comments(out.out), /NOT ENFORCED on admission-configuration objects: .* ValidatingAdmissionPolicy "guard-policies\.static\.k8s\.io" \(validatingadmissionpolicies\.admissionregistration\.k8s\.io, validatingadmissionpolicybindings\.admissionregistration\.k8s\.io\)\. On kube-apiserver 1\.36\+ register with --format static/);
  });

  test('--format api: a wildcard policy can match all six kinds, and is told so', async () => {
    const out = await run(['registration', '--admission-config', configFor(everything), '--ca-file', caFile, ...apiFormat]);
    assert.equal(out.code, 0, out.err);
    assert.match(out.err, /^warning: ValidatingAdmissionPolicy "everything\.static\.k8s\.io" can match mutatingadmissionpolicies\.admissionregistration\.k8s\.io, mutatingadmissionpolicybindings\.admissionregistration\.k8s\.io, mutatingwebhookconfigurations\.admissionregistration\.k8s\.io, validatingadmissionpolicies\.admissionregistration\.k8s\.io, validatingadmissionpolicybindings\.admissionregistration\.k8s\.io, validatingwebhookconfigurations\.admissionregistration\.k8s\.io, which/);
    // static: the wildcard is sent as it is, and nothing is unreachable
    const statics = await run(['registration', '--admission-config', configFor(everything), '--ca-file', caFile]);
    assert.equal(statics.err, '');
  });
});

describe('validate --registration: admission-configuration objects', () => {
  test('an api registration: a warning, not an error (it cannot send them however it is printed)', async () => {
    const config = configFor(guardsPolicies, configMaps);
    const file = join(tmp.dir, 'api-registration.yaml');
    writeFileSync(file, (await run(['registration', '--admission-config', config, '--ca-file', caFile, ...apiFormat])).out);
    const r = await run(['validate', '--admission-config', config, '--registration', file]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^warning: ValidatingAdmissionPolicy: ValidatingAdmissionPolicy "guard-policies\.static\.k8s\.io" can match validatingadmissionpolicies\.admissionregistration\.k8s\.io, validatingadmissionpolicybindings\.admissionregistration\.k8s\.io, which kube-apiserver never sends to webhooks registered through the API/m);
  });

  test('a static registration: exact when printed now, out of date when it leaves them out', async () => {
    const config = configFor(guardsPolicies, configMaps);
    const exact = join(tmp.dir, 'static-registration.yaml');
    // (the system namespaces sent too, so that no other warning is left)
    writeFileSync(exact, (await run(['registration', '--admission-config', config, '--ca-file', caFile, '--include-system-namespaces'])).out);
    const clean = await run(['validate', '--admission-config', config, '--registration', exact, '--include-system-namespaces', '--warnings-as-errors']);
    assert.equal(clean.code, 0, clean.err);
    assert.equal(clean.err, '');
    // as `registration --format static` printed it before: the policy guarding policies was never sent anything
    const stale = join(tmp.dir, 'stale-static-registration.yaml');
    writeFileSync(stale, (await run(['registration', '--admission-config', configFor(configMaps), '--ca-file', caFile])).out);
    const r = await run(['validate', '--admission-config', config, '--registration', stale]);
    assert.equal(r.code, 1);
    assert.match(r.err, /error: ValidatingAdmissionPolicy: ValidatingAdmissionPolicy "guard-policies\.static\.k8s\.io" can match requests the registration ".*" does not send, so it is not enforced: CREATE admissionregistration\.k8s\.io\/v1 validatingadmissionpolicies \(Cluster\)/);
  });
});

describe('review: a static policy decides admission-configuration objects', () => {
  test('a ValidatingAdmissionPolicy CREATE is denied by the static policy guarding policies', async () => {
    const guard = `apiVersion: ${group}/v1
kind: ValidatingAdmissionPolicy
metadata: {name: policy-names.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [${group}], apiVersions: [v1], resources: [validatingadmissionpolicies], operations: [CREATE]}
  validations:
  - expression: "!object.metadata.name.startsWith('shadow-')"
    message: reserved name
---
apiVersion: ${group}/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: policy-names.static.k8s.io}
spec:
  policyName: policy-names.static.k8s.io
  validationActions: [Deny]
`;
    const config = configFor(guard);
    const review = (name: string): string => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: policyRequest('validatingadmissionpolicies', 'ValidatingAdmissionPolicy', name) });
    const denied = await run(['review', '--admission-config', config, '-'], review('shadow-x'));
    assert.equal(denied.code, 0, denied.err);
    const response = (JSON.parse(denied.out) as { response: { allowed: boolean; status: { code: number; message: string } } }).response;
    assert.equal(response.allowed, false);
    // a validation without a reason denies as Invalid (upstream: k8s.io/apiserver/pkg/admission/plugin/policy/validating/validator.go)
    assert.equal(response.status.code, 422);
    assert.equal(response.status.message, `validatingadmissionpolicies.${group} "shadow-x" is forbidden: ValidatingAdmissionPolicy 'policy-names.static.k8s.io' with binding 'policy-names.static.k8s.io' denied request: reserved name`);
    const allowed = await run(['review', '--admission-config', config, '-'], review('team-x'));
    assert.equal((JSON.parse(allowed.out) as { response: { allowed: boolean } }).response.allowed, true);
  });
});
