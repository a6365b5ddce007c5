// `registration --format api` prints for a known kube-apiserver only: --kube-version, or --kubeconfig, which reads
// /version (as `kubectl version`) and the discovery document of the guard's API version (as kubectl does before it
// applies a kind) from a real HTTPS apiserver stand-in on loopback. Without either it refuses, naming the flag; it never
// prints a guard the apiserver does not serve.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { versionFromInfo } from '../../lib/registration/apiserver.js';
import { run } from '../cli/helpers.js';
import { tempDir } from '../server/helpers.js';
import { testPKI } from '../webhook/helpers.js';

interface Apiserver { version: Record<string, string>; served: Record<string, string[]> }

let tmp: ReturnType<typeof tempDir>;
let server: Server;
let kubeconfig: string;
let caFile: string;
const seen: Array<{ path: string; authorization: string | undefined }> = [];
const apiserver: Apiserver = { version: {}, served: {} };

before(async () => {
  tmp = tempDir('sad-registration-version-');
  const { ca, serving } = await testPKI();
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, ca.certPEM);
  server = createServer({ cert: serving.certPEM, key: serving.keyPEM }, (req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.headers.authorization !== 'Bearer registrar-token') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"kind":"Status","code":401}');
      return;
    }
    const groupVersion = /^\/apis\/(admissionregistration\.k8s\.io\/v1(?:beta1)?)$/.exec(req.url ?? '')?.[1];
    if (req.url === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(apiserver.version));
    } else if (groupVersion !== undefined && apiserver.served[groupVersion] !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        kind: 'APIResourceList', groupVersion, resources: apiserver.served[groupVersion]!.map((name) => ({ name, namespaced: false })),
      }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kubeconfig = join(tmp.dir, 'kubeconfig');
  writeFileSync(kubeconfig, `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}", certificate-authority: ${caFile}}
users:
- name: u
  user: {token: registrar-token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`);
});
after(async () => {
  await new Promise((resolve) => server.close(resolve));
  tmp.cleanup();
});

const kinds = (text: string): string[] => {
  const docs = parseAllDocuments(text);
  assert.ok(Array.isArray(docs));
  return docs.map((d) => { const o = d.toJS() as { apiVersion: string; kind: string }; return `${o.apiVersion} ${o.kind}`; });
};

describe('the apiserver version of --format api', () => {
  test('no --kube-version and no --kubeconfig: refused, naming both flags, nothing printed', async () => {
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api']);
    assert.equal(out.code, 2);
    assert.equal(out.out, '');
    assert.match(out.err, /^error: --format api needs the version of the kube-apiserver it is for, and it has no default: give --kube-version \(for example --kube-version 1\.28\) or --kubeconfig to read it from the apiserver's \/version\n/);
    // the static format is for 1.36+ and needs neither
    assert.equal((await run(['registration', '--dev', '--ca-file', caFile])).code, 0);
  });

  test('--kubeconfig on a 1.28 apiserver serving v1beta1: a v1beta1 guard, read with the kubeconfig\'s credentials', async () => {
    apiserver.version = { major: '1', minor: '28', gitVersion: 'v1.28.7' };
    apiserver.served = { 'admissionregistration.k8s.io/v1': ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'], 'admissionregistration.k8s.io/v1beta1': ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'] };
    seen.length = 0;
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', kubeconfig]);
    assert.equal(out.code, 0, out.err);
    assert.deepEqual(kinds(out.out), [
      'admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding',
      'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
    ]);
    assert.deepEqual(seen, [{ path: '/version', authorization: 'Bearer registrar-token' }, { path: '/apis/admissionregistration.k8s.io/v1beta1', authorization: 'Bearer registrar-token' }]);
    // the same as the version given: the output does not depend on how it was learnt
    assert.equal(out.out, (await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kube-version', '1.28'])).out);
  });

  test('--kubeconfig on a 1.28 apiserver without the v1beta1 API: refused, naming what to enable', async () => {
    apiserver.served = { 'admissionregistration.k8s.io/v1': ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'] };
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', kubeconfig]);
    assert.equal(out.code, 1);
    assert.equal(out.out, '');
    assert.equal(out.err, 'error: kube-apiserver v1.28.7 does not serve ValidatingAdmissionPolicy in admissionregistration.k8s.io/v1beta1, so the registration\'s guard could not be applied: 1.28 needs --feature-gates=ValidatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1beta1=true on the apiserver\n');
  });

  test('--kubeconfig on 1.31 ("31+" minor): a v1 guard; a contradicting --kube-version is refused', async () => {
    apiserver.version = { major: '1', minor: '31+', gitVersion: 'v1.31.2-eks-7f9249a' };
    apiserver.served = { 'admissionregistration.k8s.io/v1': ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings'] };
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', kubeconfig]);
    assert.equal(out.code, 0, out.err);
    assert.deepEqual(kinds(out.out).slice(0, 2), ['admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding']);
    const contradicting = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', kubeconfig, '--kube-version', '1.28']);
    assert.equal(contradicting.code, 1);
    assert.match(contradicting.err, /^error: --kube-version 1\.28 but the apiserver of --kubeconfig ".*" is v1\.31\.2-eks-7f9249a: give one of them\n$/);
  });

  test('an apiserver that cannot be read: an error, nothing printed', async () => {
    const bad = join(tmp.dir, 'bad-kubeconfig');
    writeFileSync(bad, 'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "http://127.0.0.1:1"}\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n');
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', bad]);
    assert.equal(out.code, 1);
    assert.equal(out.out, '');
    assert.match(out.err, /^error: --kubeconfig: kubeconfig ".*bad-kubeconfig": the server must be an https:\/\/ URL/);
    const refused = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kubeconfig', kubeconfig.replace('kubeconfig', 'nope')]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /^error: --kubeconfig: reading kubeconfig/);
  });

  test('/version answers read as kubectl reads them', () => {
    assert.deepEqual(versionFromInfo({ major: '1', minor: '28', gitVersion: 'v1.28.7' }).version, { major: 1, minor: 28 });
    assert.deepEqual(versionFromInfo({ major: '1', minor: '29+', gitVersion: 'weird' }), { version: { major: 1, minor: 29 }, gitVersion: 'weird' });
    assert.throws(() => versionFromInfo({}), /names no version/);
  });
});
