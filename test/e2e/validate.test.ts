// The daemon doing its job end to end: the real executable, real TLS, real AdmissionReviews.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { post, root, spawnDaemon, stop, waitFor } from './helpers.js';


const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: names.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  validations:
  - expression: "object.metadata.name != 'forbidden'"
    messageExpression: "'the name ' + object.metadata.name + ' is not allowed'"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: names-binding.static.k8s.io}
spec: {policyName: names.static.k8s.io, validationActions: [Deny]}
`;

test('POST /validate over TLS answers a real apiserver capture as the in-tree plugin would', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-validate-');
  t.after(cleanup);
  writeFiles(dir, {
    'policies/p.yaml': policy,
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  const capture = readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'));
  const allowed = await post(`${url}/validate?timeout=5s`, certs.caPEM, capture);
  assert.equal(allowed.status, 200);
  const review = JSON.parse(capture.toString()) as { request: { uid: string; name: string; object: { metadata: { name: string } } } };
  assert.deepEqual(JSON.parse(allowed.body), { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });

  review.request.name = 'forbidden';
  review.request.object.metadata.name = 'forbidden';
  const denied = await post(`${url}/validate?timeout=5s`, certs.caPEM, JSON.stringify(review));
  const message = "ValidatingAdmissionPolicy 'names.static.k8s.io' with binding 'names-binding.static.k8s.io' denied request: the name forbidden is not allowed";
  assert.deepEqual(JSON.parse(denied.body).response, {
    uid: review.request.uid, allowed: false,
    status: { metadata: {}, status: 'Failure', message: `configmaps "forbidden" is forbidden: ${message}`, reason: 'Forbidden', details: { name: 'forbidden', group: '', kind: 'configmaps', causes: [{ message }] }, code: 403 },
  });

  const bad = await post(`${url}/validate`, certs.caPEM, '{"kind":"AdmissionReview"');
  assert.equal(bad.status, 400);
  assert.equal(await stop(daemon), 0);
});

test('npm start (serve --dev) prints a registration and a curl example that gets a real denial', async (t) => {
  const daemon = spawnDaemon(['serve', '--dev', '--health-bind-address', '127.0.0.1:0', '--secure-port', '0']);
  t.after(() => stop(daemon));
  const printed = await waitFor('the dev instructions', () => (/--data @(\S+) (\S+)\/validate/.test(daemon.stdout()) ? daemon.stdout() : undefined), daemon);
  const [, caFile] = /--cacert (\S+)/.exec(printed)!;
  const [, example, url] = /--data @(\S+) (\S+)\/validate/.exec(printed)!;
  assert.match(printed, /kind: ValidatingWebhookConfiguration/);
  assert.match(printed, /kind: MutatingWebhookConfiguration[\s\S]*url: \S+\/mutate/);
  assert.match(printed, /caBundle: \S+/);
  const res = await post(`${url}/validate`, readFileSync(caFile!, 'utf8'), readFileSync(example!));
  const response = (JSON.parse(res.body) as { response: { allowed: boolean; status: { message: string; code: number } } }).response;
  assert.equal(response.allowed, false);
  assert.equal(response.status.code, 403);
  assert.equal(response.status.message, `pods "privileged-demo" is forbidden: ValidatingAdmissionPolicy 'deny-privileged.static.k8s.io' with binding 'deny-privileged-binding.static.k8s.io' denied request: privileged containers are not allowed`);
});

/** request fixture → [allowed, code, message after "denied request: " or the whole guard message] */
const matrix: Record<string, [boolean, number?, string?]> = {
  'pod-create-allowed': [true],
  'pod-create-privileged': [false, 403, `pods "p1" is forbidden: ValidatingAdmissionPolicy 'pods-no-privileged.static.k8s.io' with binding 'pods-no-privileged.static.k8s.io' denied request: privileged containers are not allowed`],
  'pod-status-update': [false, 422, `pods "p1" is forbidden: ValidatingAdmissionPolicy 'pod-status.static.k8s.io' with binding 'pod-status.static.k8s.io' denied request: status messages may not say forbidden`],
  'pod-exec-connect-secure': [false, 403, `pods "p1" is forbidden: ValidatingAdmissionPolicy 'no-exec-in-secure.static.k8s.io' with binding 'no-exec-in-secure.static.k8s.io' denied request: exec into p1 is disabled in namespace secure`],
  'pod-exec-connect-default': [true],
  'deployment-create-3': [true],
  'deployment-update-10': [false, 422, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas.static.k8s.io' with binding 'max-replicas.static.k8s.io' denied request: replicas must be at most 5, got 10`],
  'deployment-scale-50': [false, 422, `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas.static.k8s.io' with binding 'max-replicas.static.k8s.io' denied request: replicas must be at most 5, got 50`],
  'namespace-create-no-team': [false, 422, `namespaces "team-a" is forbidden: ValidatingAdmissionPolicy 'namespace-team.static.k8s.io' with binding 'namespace-team.static.k8s.io' denied request: namespaces need a team label`],
  'namespace-create-team': [true],
  'namespace-delete-protected': [false, 403, `namespaces "team-a" is forbidden: ValidatingAdmissionPolicy 'namespace-protected.static.k8s.io' with binding 'namespace-protected.static.k8s.io' denied request: namespace team-a is protected`],
  'configmap-create-cm1': [true],
  'configmap-delete-cm-prot': [true],
  'vap-create-team-policy': [true],
  'vap-delete-locked': [false, 403, `validatingadmissionpolicies.admissionregistration.k8s.io "team-policy" is forbidden: ValidatingAdmissionPolicy 'locked-policies.static.k8s.io' with binding 'locked-policies.static.k8s.io' denied request: policy team-policy is locked`],
  'subjectaccessreview-create': [true],
};

test('pods, deployments, namespaces, configmaps and admission objects; CREATE, UPDATE, DELETE, CONNECT, subresources', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-matrix-');
  t.after(cleanup);
  const policies = join(root, 'testdata/admission/matrix/policies');
  writeFiles(dir, { 'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${policies}\n` });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  for (const [name, [allowed, code, message]] of Object.entries(matrix)) {
    const body = readFileSync(join(root, `testdata/admission/matrix/requests/${name}.json`));
    const res = await post(`${url}/validate?timeout=5s`, certs.caPEM, body);
    assert.equal(res.status, 200, `${name}: ${res.body}`);
    const response = (JSON.parse(res.body) as { response: { uid: string; allowed: boolean; status?: { code: number; message: string } } }).response;
    assert.equal(response.uid, (JSON.parse(body.toString()) as { request: { uid: string } }).request.uid, name);
    assert.equal(response.allowed, allowed, `${name}: ${res.body}`);
    if (!allowed) {
      assert.equal(response.status?.code, code, name);
      assert.equal(response.status?.message, message, name);
    }
  }
  // Warn + Audit: admitted with upstream's warning and annotations
  const cm = await post(`${url}/validate`, certs.caPEM, readFileSync(join(root, 'testdata/admission/matrix/requests/configmap-create-cm1.json')));
  assert.deepEqual((JSON.parse(cm.body) as { response: unknown }).response, {
    uid: 'm-12', allowed: true,
    warnings: ["Validation failed for ValidatingAdmissionPolicy 'configmap-size.static.k8s.io' with binding 'configmap-size.static.k8s.io': configmaps should carry no data here"],
    auditAnnotations: {
      'validation.policy.admission.k8s.io_validation_failure': '[{"message":"configmaps should carry no data here","policy":"configmap-size.static.k8s.io","binding":"configmap-size.static.k8s.io","expressionIndex":0,"validationActions":["Warn","Audit"]}]',
      'configmap-size.static.k8s.io_data-keys': '1',
    },
  });
  assert.equal(await stop(daemon), 0);
});

test('a runaway expression is stopped by the cost limit, answered by its failure policy, and the daemon keeps serving', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-runaway-');
  t.after(cleanup);
  writeFiles(dir, {
    'policies/p.yaml': `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: quadratic.static.k8s.io}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "object.?data.orValue({}).all(a, object.?data.orValue({}).all(b, a != '' && b != ''))"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: quadratic.static.k8s.io}
spec: {policyName: quadratic.static.k8s.io, validationActions: [Deny]}
`,
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ValidatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: ValidatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'policies')}\n`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  const review = JSON.parse(readFileSync(join(root, 'testdata/admission/captures/002-validate-CREATE-ConfigMap-cm1.json'), 'utf8')) as { request: { object: { data: Record<string, string> } } };
  const small = JSON.stringify(review);
  // 2,000 keys: the nested comprehension needs ~4,000,000 iterations, over the 1,000,000 per-call budget
  review.request.object.data = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'v']));
  const started = Date.now();
  const runaway = await post(`${url}/validate?timeout=10s`, certs.caPEM, JSON.stringify(review));
  const response = (JSON.parse(runaway.body) as { response: { allowed: boolean; status: { message: string } } }).response;
  assert.equal(response.allowed, false, 'failurePolicy Fail denies');
  assert.match(response.status.message, /denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$/);
  assert.ok(Date.now() - started < 10_000, 'stopped well before the request deadline');

  const ok = await post(`${url}/validate?timeout=5s`, certs.caPEM, small);
  assert.equal((JSON.parse(ok.body) as { response: { allowed: boolean } }).response.allowed, true, 'the daemon keeps serving');
  assert.equal(await stop(daemon), 0);
});
