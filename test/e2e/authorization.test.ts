// --authorization-kubeconfig end to end: the real executable with a policy worker answering `authorizer` checks
// with SubjectAccessReviews to a local HTTPS server, `request` as upstream builds it (absent omitempty fields) through
// the worker pool, `validate` warning about policies that use `authorizer` when the flag is missing, and `review`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { startSARServer } from '../admission/authorization-helpers.js';
import type { SARServer } from '../admission/authorization-helpers.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { post, root, spawnDaemon, stop, waitFor } from './helpers.js';

const policies = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: authz.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["", rbac.authorization.k8s.io], apiVersions: ["*"], operations: [CREATE], resources: [configmaps, clusterroles]}
  validations:
  - expression: "authorizer.requestResource.check('create').allowed()"
    message: the creator may not create it
  - expression: "has(request.namespace) || authorizer.group('rbac.authorization.k8s.io').resource('clusterroles').check('escalate').allowed()"
    messageExpression: "'cluster-scoped in ' + request.namespace"
    message: cluster-scoped objects need escalate
  - expression: "!has(request.subResource) && !has(request.requestSubResource) && request.kind.group == request.requestKind.group"
    message: request is not built as upstream builds it
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: authz-binding.static.k8s.io}
spec: {policyName: authz.static.k8s.io, validationActions: [Deny]}
`;

let sar: SARServer;
before(async () => {
  sar = await startSARServer();
});
after(() => sar.close());

function layout(): { dir: string; config: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir('sad-e2e-authz-');
  writeFiles(dir, {
    'policies/p.yaml': policies,
    'admission-config.yaml': admissionConfigYAML(join(dir, 'policies')),
  });
  return { dir, config: join(dir, 'admission-config.yaml'), cleanup };
}

const clusterRoleReview = (): string => JSON.stringify({
  apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
  request: {
    uid: 'cr-1',
    kind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
    resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
    requestKind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
    requestResource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
    name: 'reader', operation: 'CREATE', userInfo: { username: 'bob', groups: ['system:authenticated'] },
    object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } }, oldObject: null, dryRun: false,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
  },
});

test('serve --authorization-kubeconfig: a worker asks the apiserver; request fields are absent when empty', async (t) => {
  const fixture = layout();
  t.after(fixture.cleanup);
  const certs = await generateDevCertificates({ parentDir: fixture.dir });
  const daemon = spawnDaemon(['serve', '--admission-config', fixture.config, '--health-bind-address', '127.0.0.1:0', '--secure-port', '0', '--workers', '1',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, '--authorization-kubeconfig', sar.kubeconfig]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
  assert.doesNotMatch(daemon.stderr(), /uses authorizer/);

  sar.received.length = 0;
  const cm = readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'));
  const allowed = JSON.parse((await post(`${url}/validate?timeout=5s`, certs.caPEM, cm)).body) as { response: { allowed: boolean } };
  assert.equal(allowed.response.allowed, true);
  assert.deepEqual(sar.received.map((r) => [r.review.spec.user, r.review.spec.resourceAttributes]), [
    ['admin', { namespace: 'wh', verb: 'create', version: '*', resource: 'configmaps', name: 'cm1' }],
  ]);

  // cluster-scoped: no namespace, so the second validation checks `escalate` (denied by the server) and its
  // messageExpression fails on the absent namespace: the message is used
  sar.received.length = 0;
  const denied = JSON.parse((await post(`${url}/validate?timeout=5s`, certs.caPEM, clusterRoleReview())).body) as { response: { allowed: boolean; status: { message: string } } };
  assert.equal(denied.response.allowed, false);
  assert.equal(denied.response.status.message, "clusterroles.rbac.authorization.k8s.io \"reader\" is forbidden: ValidatingAdmissionPolicy 'authz.static.k8s.io' with binding 'authz-binding.static.k8s.io' denied request: cluster-scoped objects need escalate");
  assert.deepEqual(sar.received.map((r) => r.review.spec.resourceAttributes?.verb), ['create', 'escalate']);
  assert.equal(await stop(daemon), 0);
});

test('serve without the flag warns, and a check is an evaluation error under the failure policy', async (t) => {
  const fixture = layout();
  t.after(fixture.cleanup);
  const certs = await generateDevCertificates({ parentDir: fixture.dir });
  const daemon = spawnDaemon(['serve', '--admission-config', fixture.config, '--health-bind-address', '127.0.0.1:0', '--secure-port', '0', '--workers', '1',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
  assert.match(daemon.stderr(), /ValidatingAdmissionPolicy \\"authz.static.k8s.io\\" uses authorizer, but no --authorization-kubeconfig is set/);
  const cm = readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'));
  const denied = JSON.parse((await post(`${url}/validate?timeout=5s`, certs.caPEM, cm)).body) as { response: { status: { message: string } } };
  assert.match(denied.response.status.message, /denied request: expression 'authorizer.requestResource.check\('create'\).allowed\(\)' resulted in error: authorizer checks are not available: static-admissiond was started without --authorization-kubeconfig$/);
  assert.equal(await stop(daemon), 0);
});

test('serve with an unusable authorization kubeconfig exits 1 before listening', async (t) => {
  const fixture = layout();
  t.after(fixture.cleanup);
  writeFiles(fixture.dir, { 'bad-kubeconfig': 'apiVersion: v1\nkind: Config\nclusters: []\n' });
  const daemon = spawnDaemon(['serve', '--admission-config', fixture.config, '--health-bind-address', '127.0.0.1:0', '--secure-port', '0', '--dev',
    '--authorization-kubeconfig', join(fixture.dir, 'bad-kubeconfig')]);
  const code = await new Promise<number | null>((r) => daemon.child.once('exit', r));
  assert.equal(code, 1);
  assert.match(daemon.stderr(), /Failed to load the authorization kubeconfig.*the current context names no cluster with a server/);
  assert.doesNotMatch(daemon.stderr(), /Serving admission webhooks/);
});

test('validate warns about policies that use authorizer unless --authorization-kubeconfig is given', async (t) => {
  const fixture = layout();
  t.after(fixture.cleanup);
  const without = await run(['validate', '--include-system-namespaces', '--admission-config', fixture.config, '-o', 'json']);
  assert.equal(without.code, 0, without.err);
  assert.deepEqual((JSON.parse(without.out) as { plugins: Array<{ warnings: string[] }> }).plugins[0]!.warnings, [
    'ValidatingAdmissionPolicy "authz.static.k8s.io" uses authorizer, but no --authorization-kubeconfig is set: every check is an evaluation error and the failure policy applies',
  ]);
  assert.equal((await run(['validate', '--include-system-namespaces', '--admission-config', fixture.config, '--warnings-as-errors'])).code, 1);
  const withFlag = await run(['validate', '--include-system-namespaces', '--admission-config', fixture.config, '-o', 'json', '--authorization-kubeconfig', sar.kubeconfig]);
  assert.deepEqual((JSON.parse(withFlag.out) as { plugins: Array<{ warnings: string[] }> }).plugins[0]!.warnings, []);
  const missing = await run(['validate', '--include-system-namespaces', '--admission-config', fixture.config, '--authorization-kubeconfig', join(fixture.dir, 'nope')]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /reading kubeconfig ".*nope": /);
});

test('review --authorization-kubeconfig answers checks as serve does', async (t) => {
  const fixture = layout();
  t.after(fixture.cleanup);
  writeFiles(fixture.dir, { 'cr.json': clusterRoleReview() });
  sar.received.length = 0;
  const r = await run(['review', '--admission-config', fixture.config, '--authorization-kubeconfig', sar.kubeconfig, join(fixture.dir, 'cr.json')]);
  assert.equal(r.code, 0, r.err);
  const response = (JSON.parse(r.out) as { response: { allowed: boolean; status: { message: string } } }).response;
  assert.match(response.status.message, /denied request: cluster-scoped objects need escalate$/);
  assert.deepEqual(sar.received.map((x) => x.review.spec.resourceAttributes?.verb), ['create', 'escalate']);
});
