// POST /mutate end to end: the real executable with a static MutatingAdmissionPolicy directory, real TLS, real
// AdmissionReviews (two captured from a kube-apiserver); the answer's JSONPatch applied to the object that was sent
// must give exactly the mutated object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import jsonPatch from 'fast-json-patch';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { post, root, spawnDaemon, stop, waitFor } from './helpers.js';


function fetchText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet(url, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

interface Review {
  request: { uid: string; object: Record<string, unknown> | null; operation: string };
}
interface Answer {
  response: { uid: string; allowed: boolean; patch?: string; patchType?: string; status?: { code: number; message: string } };
}

/** The object the apiserver ends up with: the sent object with the answer's patch applied. */
function applied(review: Review, answer: Answer): unknown {
  if (answer.response.patch === undefined) return review.request.object;
  assert.equal(answer.response.patchType, 'JSONPatch');
  const ops = JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) as jsonPatch.Operation[];
  return jsonPatch.applyPatch(structuredClone(review.request.object), ops, true, false).newDocument;
}

test('POST /mutate over TLS: JSONPatch and ApplyConfiguration policies, one patch against the object sent', async (t) => {
  const { dir, cleanup } = tempDir('sad-e2e-mutate-');
  t.after(cleanup);
  writeFiles(dir, {
    'mutating/policies.yaml': readFileSync(join(root, 'testdata/admission/mutating/policies.yaml')),
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: MutatingAdmissionPolicy\n  configuration:\n    apiVersion: apiserver.config.k8s.io/v1\n    kind: MutatingAdmissionPolicyConfiguration\n    staticManifestsDir: ${join(dir, 'mutating')}\n`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
  const health = await waitFor('the health listener', () => /"Serving health and metrics" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);

  const send = async (body: Buffer | string): Promise<{ review: Review; answer: Answer }> => {
    const res = await post(`${url}/mutate?timeout=5s`, certs.caPEM, body);
    assert.equal(res.status, 200, res.body);
    const review = JSON.parse(body.toString()) as Review;
    const answer = JSON.parse(res.body) as Answer & { apiVersion: string; kind: string };
    assert.equal(answer.apiVersion, 'admission.k8s.io/v1');
    assert.equal(answer.response.uid, review.request.uid);
    return { review, answer };
  };

  // a ConfigMap the apiserver sent (captured): the team label added by JSONPatch, the key escaped
  const cm = await send(readFileSync(join(root, 'testdata/admission/captures/001-mutate-CREATE-ConfigMap-cm1.json')));
  assert.equal(cm.answer.response.allowed, true);
  const cmExpected = structuredClone(cm.review.request.object) as { metadata: Record<string, unknown> };
  cmExpected.metadata['labels'] = { 'example.com/team': 'unassigned' };
  assert.deepEqual(applied(cm.review, cm.answer), cmExpected);

  // the same ConfigMap already labelled: nothing changes, no patch
  const labelled = structuredClone(cm.review);
  (labelled.request.object as { metadata: Record<string, unknown> }).metadata['labels'] = { team: 'a' };
  const unchanged = await send(JSON.stringify(labelled));
  assert.deepEqual(unchanged.answer.response, { uid: labelled.request.uid, allowed: true });

  // a pod the apiserver sent (captured): the sidecar merged into initContainers by name
  const podReview = JSON.parse(readFileSync(join(root, 'testdata/admission/apiserver-captures/007-validate-CREATE-Pod-p1.json'), 'utf8')) as Review;
  const pod = await send(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: podReview.request }));
  const podExpected = structuredClone(pod.review.request.object) as { spec: Record<string, unknown> };
  // defaulted after the mutation, as upstream's dispatcher defaults the object (SetDefaults_Container)
  podExpected.spec['initContainers'] = [{
    name: 'mesh-proxy', image: 'mesh/proxy:v1.0.0', restartPolicy: 'Always',
    imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
  }];
  assert.deepEqual(applied(pod.review, pod.answer), podExpected);

  // a deployment: the env var merged into the `app` container by name, the other container and env kept
  const dep = await send(readFileSync(join(root, 'testdata/admission/mutating/deployment-create.json')));
  const depExpected = structuredClone(dep.review.request.object) as { spec: { template: { spec: { containers: Array<Record<string, unknown>> } } } };
  depExpected.spec.template.spec.containers[0]!['env'] = [{ name: 'LOG', value: 'info' }, { name: 'REGION', value: 'eu-west-1' }];
  assert.deepEqual(applied(dep.review, dep.answer), depExpected);

  // DELETE: no object, nothing to patch
  const del = structuredClone(dep.review);
  del.request.operation = 'DELETE';
  del.request.object = null;
  assert.deepEqual((await send(JSON.stringify(del))).answer.response, { uid: del.request.uid, allowed: true });

  const metrics = await fetchText(`${health}/metrics`);
  assert.match(metrics, /apiserver_mutating_admission_policy_check_total\{policy="team-label\.static\.k8s\.io",policy_binding="team-label-binding\.static\.k8s\.io",error_type="no_error"\} 1/);
  assert.match(metrics, /apiserver_mutating_admission_policy_check_total\{policy="app-env\.static\.k8s\.io",policy_binding="app-env-binding\.static\.k8s\.io",error_type="no_error"\} 1/);
  assert.equal(await stop(daemon), 0);
});

test('npm start (serve --dev) prints a /mutate curl example whose ConfigMap gets the team label', async (t) => {
  const daemon = spawnDaemon(['serve', '--dev', '--health-bind-address', '127.0.0.1:0', '--secure-port', '0']);
  t.after(() => stop(daemon));
  const printed = await waitFor('the dev instructions', () => (/--data @(\S+) (\S+)\/mutate/.test(daemon.stdout()) ? daemon.stdout() : undefined), daemon);
  const [, caFile] = /--cacert (\S+)/.exec(printed)!;
  const [, example, url] = /--data @(\S+) (\S+)\/mutate/.exec(printed)!;
  const body = readFileSync(example!);
  const res = await post(`${url}/mutate`, readFileSync(caFile!, 'utf8'), body);
  const review = JSON.parse(body.toString()) as Review;
  const expected = structuredClone(review.request.object) as { metadata: Record<string, unknown> };
  expected.metadata['labels'] = { team: 'unassigned' };
  assert.deepEqual(applied(review, JSON.parse(res.body) as Answer), expected);
});
