// The guard policy `registration --format api` prints: it passes validate (REST validation and CEL compilation, as
// the apiserver checks it on create), and review shows it denying UPDATE of the registration to a normal admin while
// letting the registrar and break-glass groups through, DELETE to everyone but the break-glass group, and refusing
// .static.k8s.io webhook configuration names.
// The guard is a REST object; to load it with the static loader its two names get the static suffix, nothing else.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../server/helpers.js';

let tmp: ReturnType<typeof tempDir>;
let config: string;
const guardName = 'static-admissiond-guard.static.k8s.io';

before(async () => {
  tmp = tempDir('sad-guard-');
  const caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, (await createCertificateAuthority('guard test')).certPEM);
  const printed = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30', '--break-glass-group', 'ops:break-glass', '--registrar-group', 'ops:registrar']);
  assert.equal(printed.code, 0, printed.err);
  const docs = parseAllDocuments(printed.out);
  assert.ok(Array.isArray(docs));
  const guard = docs.map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> })
    .filter((o) => o.kind.startsWith('ValidatingAdmissionPolicy'));
  assert.deepEqual(guard.map((o) => o.kind), ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
  const dir = join(tmp.dir, 'guard');
  mkdirSync(dir);
  for (const o of guard) {
    o.metadata.name = guardName;
    if (o.kind === 'ValidatingAdmissionPolicyBinding') o.spec.policyName = guardName;
  }
  writeFileSync(join(dir, 'guard.yaml'), guard.map((o) => JSON.stringify(o)).join('\n---\n'));
  config = join(tmp.dir, 'admission-config.yaml');
  writeFileSync(config, admissionConfigYAML(dir));
});
after(() => tmp.cleanup());

interface Answer {
  allowed: boolean;
  status?: { code: number; message: string; reason: string };
}

async function review(operation: 'CREATE' | 'UPDATE' | 'DELETE', resource: string, name: string, groups: string[] | undefined): Promise<Answer> {
  const kind = resource === 'validatingwebhookconfigurations' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  const object = { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: [] };
  const request = {
    uid: '0c6bb4ba-1d0b-4b2f-9bd0-6a4c0f5b8f10',
    kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind },
    resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource },
    requestKind: { group: 'admissionregistration.k8s.io', version: 'v1', kind },
    requestResource: { group: 'admissionregistration.k8s.io', version: 'v1', resource },
    name,
    operation,
    userInfo: { username: 'alice', ...(groups ? { groups } : {}) },
    object: operation === 'DELETE' ? null : object,
    oldObject: operation === 'CREATE' ? null : object,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: `${operation === 'CREATE' ? 'Create' : operation === 'UPDATE' ? 'Update' : 'Delete'}Options` },
  };
  const out = await run(['review', '--admission-config', config, '-'], JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
  assert.equal(out.code, 0, out.err);
  return (JSON.parse(out.out) as { response: Answer }).response;
}

const admin = ['kubeadm:cluster-admins', 'system:authenticated'];
const breakGlass = ['ops:break-glass', 'system:authenticated'];
const registrar = ['ops:registrar', 'system:masters', 'system:authenticated'];

describe('the guard policy of --format api', () => {
  test('passes validate', async () => {
    const out = await run(['validate', '--admission-config', config]);
    assert.equal(out.code, 0, out.err);
    assert.match(out.out, /1 ValidatingAdmissionPolicy, 1 ValidatingAdmissionPolicyBinding/);
  });

  for (const resource of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
    test(`DELETE of ${resource} "static-admissiond": only the break-glass group, never the registrar`, async () => {
      const denied = await review('DELETE', resource, 'static-admissiond', admin);
      assert.equal(denied.allowed, false);
      assert.equal(denied.status?.code, 403);
      assert.equal(denied.status?.reason, 'Forbidden');
      assert.equal(denied.status?.message, `${resource}.admissionregistration.k8s.io "static-admissiond" is forbidden: ValidatingAdmissionPolicy '${guardName}' with binding '${guardName}' denied request: the static-admissiond registration ${resource} static-admissiond may be deleted only by members of the break-glass group ops:break-glass: see the static-admissiond README, "Break glass"`);
      assert.equal((await review('DELETE', resource, 'static-admissiond', registrar)).allowed, false, 'the registrar updates, never deletes');
      assert.equal((await review('DELETE', resource, 'static-admissiond', breakGlass)).allowed, true);
      // a user without groups (absent in the request) is denied, not an evaluation error
      assert.equal((await review('DELETE', resource, 'static-admissiond', undefined)).status?.reason, 'Forbidden');
      assert.equal((await review('DELETE', resource, 'another-webhook', admin)).allowed, true, 'other configurations are not guarded');
    });

    test(`UPDATE of ${resource} "static-admissiond": the registrar and break-glass groups; an admin is told the command`, async () => {
      const denied = await review('UPDATE', resource, 'static-admissiond', admin);
      assert.equal(denied.allowed, false);
      assert.equal(denied.status?.code, 403);
      assert.equal(denied.status?.reason, 'Forbidden');
      assert.equal(denied.status?.message, `${resource}.admissionregistration.k8s.io "static-admissiond" is forbidden: ValidatingAdmissionPolicy '${guardName}' with binding '${guardName}' denied request: the static-admissiond registration ${resource} static-admissiond is updated only by the registrar group ops:registrar, so that an apply never leaves it half-updated: this update was refused and the registration is as it was. Apply the same file as the registrar: kubectl apply -f <file> --as=static-admissiond-registrar --as-group=ops:registrar --as-group=system:masters (see the static-admissiond README, "Updating the registration")`);
      assert.equal((await review('UPDATE', resource, 'static-admissiond', registrar)).allowed, true);
      assert.equal((await review('UPDATE', resource, 'static-admissiond', breakGlass)).allowed, true);
      assert.equal((await review('UPDATE', resource, 'static-admissiond', undefined)).status?.reason, 'Forbidden');
      assert.equal((await review('UPDATE', resource, 'another-webhook', admin)).allowed, true, 'other configurations are not guarded');
      assert.equal((await review('CREATE', resource, 'static-admissiond', admin)).allowed, true, 'the first apply creates it as an admin');
    });
  }

  test('webhook configuration names ending in .static.k8s.io are refused on CREATE and UPDATE', async () => {
    const created = await review('CREATE', 'validatingwebhookconfigurations', 'sneaky.static.k8s.io', breakGlass);
    assert.equal(created.allowed, false);
    assert.equal(created.status?.code, 422);
    assert.match(created.status?.message ?? '', /denied request: names ending with "\.static\.k8s\.io" are reserved for static manifest-based configurations and cannot be managed via the API$/);
    assert.equal((await review('UPDATE', 'mutatingwebhookconfigurations', 'sneaky.static.k8s.io', admin)).allowed, false);
    assert.equal((await review('CREATE', 'validatingwebhookconfigurations', 'fine', admin)).allowed, true);
  });
});
