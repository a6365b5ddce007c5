// The real executable with static validating webhooks: `serve` calls a local HTTPS webhook with the kubeconfig's
// token and answers with its decision; /metrics carries upstream's webhook series (the KEP's rollback signal
// `name=~".*\\.static\\.k8s\\.io"`); `review` calls webhooks for real unless --skip-webhooks; `validate` warns about
// a webhook naming an excluded review resource.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { call, tempDir } from '../server/helpers.js';
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { allow, configMapRequest, configurationYAML, deny, patchReply, startWebhookServer, testPKI } from '../webhook/helpers.js';
import type { WebhookServer } from '../webhook/helpers.js';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const executable = join(packageRoot, 'dist', 'cmd', 'static-admissiond.js');

type Child = ChildProcessByStdio<null, Readable, Readable>;

function start(args: readonly string[]): { child: Child; out: { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [executable, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: packageRoot });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out.stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { out.stderr += d; });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out, exited };
}

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const tmp = tempDir('sad-e2e-webhooks-');
let webhook: WebhookServer;
let mutators: WebhookServer[];
let caPEM: string;
let config: string;
let validatingDir: string;
const name = 'check.example.static.k8s.io';

before(async () => {
  const { ca, serving } = await testPKI();
  caPEM = ca.certPEM;
  webhook = await startWebhookServer({ serving }, (r) => ((r.review.request.name ?? '') === 'bad' ? deny(r, { code: 403, message: 'bad name' }) : allow(r, { warnings: ['checked'] })));
  // two mutating webhooks: `a` (IfNeeded) adds label a, `b` adds label b; `a` runs again after `b`'s change
  const addLabel = (k: string) => startWebhookServer({ serving }, (r) => {
    const labels = (r.review.request.object as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
    return labels[k] === undefined ? patchReply(r, [{ op: 'add', path: `/metadata/labels/${k}`, value: 'yes' }]) : allow(r);
  });
  mutators = [await addLabel('a'), await addLabel('b')];
  const mutatingDir = join(tmp.dir, 'mutating');
  mkdirSync(mutatingDir);
  writeFileSync(join(mutatingDir, 'labels.yaml'), configurationYAML('MutatingWebhookConfiguration', 'labels.static.k8s.io', [
    { name: 'a.labels.static.k8s.io', url: `${mutators[0]!.url}/mutate`, caPEM, reinvocationPolicy: 'IfNeeded' },
    { name: 'b.labels.static.k8s.io', url: `${mutators[1]!.url}/mutate`, caPEM },
  ]));
  validatingDir = join(tmp.dir, 'validating');
  mkdirSync(validatingDir);
  writeFileSync(join(validatingDir, 'check.yaml'), configurationYAML('ValidatingWebhookConfiguration', 'check.static.k8s.io', [{ name, url: `${webhook.url}/validate`, caPEM }]));
  writeFileSync(join(tmp.dir, 'kubeconfig'), `apiVersion: v1\nkind: Config\nusers:\n- name: "127.0.0.1:${webhook.port}"\n  user:\n    token: e2e-token\n`);
  config = join(tmp.dir, 'admission-config.yaml');
  writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: ${JSON.stringify(join(tmp.dir, 'kubeconfig'))}
    staticManifestsDir: ${JSON.stringify(validatingDir)}
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: ""
    staticManifestsDir: ${JSON.stringify(mutatingDir)}
`);
  const { serving: daemonPair } = await testPKI();
  writeFileSync(join(tmp.dir, 'serving.crt'), daemonPair.certPEM);
  writeFileSync(join(tmp.dir, 'serving.key'), daemonPair.keyPEM);
});

after(async () => {
  await webhook.close();
  await Promise.all(mutators.map((m) => m.close()));
  tmp.cleanup();
});

const reviewBody = (request = configMapRequest()): string => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });

describe('serve with static validating webhooks', () => {
  let daemon: ReturnType<typeof start>;
  let healthURL: string;
  let admissionURL: string;

  before(async () => {
    daemon = start(['serve', '--admission-config', config, '--health-bind-address', '127.0.0.1:0', '--secure-port', '0', '--workers', '0',
      '--tls-cert-file', join(tmp.dir, 'serving.crt'), '--tls-private-key-file', join(tmp.dir, 'serving.key')]);
    healthURL = await waitFor('the health URL', () => {
      if (daemon.child.exitCode !== null) throw new Error(daemon.out.stderr);
      return /"Serving health and metrics".*? url="([^"]+)"/.exec(daemon.out.stderr)?.[1];
    });
    admissionURL = await waitFor('the admission URL', () => /"Serving admission webhooks".*? url="(https:[^"]+)"/.exec(daemon.out.stderr)?.[1]);
  });

  after(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });

  test('the webhook decides, called with the kubeconfig token', async () => {
    const ok = await call(admissionURL, { path: '/validate?timeout=5s', ca: caPEM, body: reviewBody() });
    assert.equal(ok.status, 200);
    const okResponse = (JSON.parse(ok.body) as { response: { allowed: boolean; warnings?: string[] } }).response;
    assert.equal(okResponse.allowed, true);
    assert.deepEqual(okResponse.warnings, ['checked']);
    assert.equal(webhook.received.at(-1)?.headers.authorization, 'Bearer e2e-token');
    assert.equal(webhook.received.at(-1)?.path, '/validate?timeout=5s');

    const bad = await call(admissionURL, { path: '/validate', ca: caPEM, body: reviewBody(configMapRequest({ name: 'bad' })) });
    const badResponse = (JSON.parse(bad.body) as { response: { allowed: boolean; status?: { message?: string; code?: number } } }).response;
    assert.equal(badResponse.allowed, false);
    assert.equal(badResponse.status?.message, `admission webhook "${name}" denied the request: bad name`);
    assert.equal(badResponse.status?.code, 403);
  });

  test('/mutate answers one JSONPatch from the object sent, after the mutating webhooks and their reinvocation', async () => {
    const request = configMapRequest();
    const reply = await call(admissionURL, { path: '/mutate?timeout=5s', ca: caPEM, body: reviewBody(request) });
    assert.equal(reply.status, 200, reply.body);
    const response = (JSON.parse(reply.body) as { response: { allowed: boolean; patch?: string; patchType?: string; auditAnnotations?: Record<string, string> } }).response;
    assert.equal(response.allowed, true);
    assert.equal(response.patchType, 'JSONPatch');
    const ops = JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8')) as Operation[];
    const mutated = fastJsonPatch.applyPatch(structuredClone(request.object), ops, true, false).newDocument as { metadata: { labels: Record<string, string> } };
    assert.deepEqual(mutated.metadata.labels, { app: 'x', a: 'yes', b: 'yes' });
    assert.equal(mutators[0]!.received.length, 2, 'a was reinvoked after b changed the object');
    assert.equal(mutators[1]!.received.length, 1);
    assert.equal(response.auditAnnotations?.['mutation.webhook.admission.k8s.io_round_1_index_0'], '{"configuration":"labels.static.k8s.io","webhook":"a.labels.static.k8s.io","mutated":false}');
  });

  test('/metrics carries upstream\'s webhook series for the static webhook', async () => {
    const text = await (await fetch(`${healthURL}/metrics`)).text();
    assert.match(text, new RegExp(`^apiserver_admission_webhook_request_total\\{name="${name.replaceAll('.', '\\.')}",type="validating",operation="CREATE",code="200",rejected="false"\\} [1-9]`, 'm'));
    assert.match(text, new RegExp(`^apiserver_admission_webhook_rejection_count\\{name="${name.replaceAll('.', '\\.')}",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\\} 1$`, 'm'));
    assert.match(text, /^apiserver_admission_webhook_admission_duration_seconds_bucket\{name="check\.example\.static\.k8s\.io",type="validating",operation="CREATE",rejected="false",le="0\.005"\} \d+$/m);
    assert.match(text, /^# TYPE apiserver_admission_webhook_admission_duration_seconds histogram$/m);
    assert.match(text, /^# HELP apiserver_admission_webhook_admission_duration_seconds \[STABLE\] Admission webhook latency histogram in seconds/m);
    assert.match(text, /^# HELP apiserver_admission_webhook_fail_open_count \[ALPHA\] /m);
    assert.match(text, /^apiserver_admission_webhook_request_total\{name="a\.labels\.static\.k8s\.io",type="admit",operation="CREATE",code="200",rejected="false"\} 2$/m);
  });
});

describe('review and validate', () => {
  test('`review` calls the webhook for real; --skip-webhooks does not', async () => {
    const file = join(tmp.dir, 'bad.json');
    writeFileSync(file, reviewBody(configMapRequest({ name: 'bad' })));
    const before = webhook.received.length;
    const withCalls = start(['review', '--admission-config', config, file]);
    assert.equal(await withCalls.exited, 0, withCalls.out.stderr);
    const answer = JSON.parse(withCalls.out.stdout) as { response: { allowed: boolean; status?: { message?: string } } };
    assert.equal(answer.response.allowed, false);
    assert.equal(answer.response.status?.message, `admission webhook "${name}" denied the request: bad name`);
    assert.equal(webhook.received.length, before + 1);

    const skipping = start(['review', '--admission-config', config, '--skip-webhooks', file]);
    assert.equal(await skipping.exited, 0, skipping.out.stderr);
    assert.equal((JSON.parse(skipping.out.stdout) as { response: { allowed: boolean } }).response.allowed, true);
    assert.equal(webhook.received.length, before + 1);
  });

  test('`validate` warns about a webhook whose rules name an excluded review resource', async () => {
    const dir = join(tmp.dir, 'excluded');
    mkdirSync(dir);
    writeFileSync(join(dir, 'w.yaml'), configurationYAML('ValidatingWebhookConfiguration', 'reviews.static.k8s.io', [{ name: 'r.example.static.k8s.io', url: `${webhook.url}/validate`, caPEM }])
      .replace('apiGroups: [""]', 'apiGroups: ["authentication.k8s.io", "authorization.k8s.io"]')
      .replace('resources: ["configmaps"]', 'resources: ["tokenreviews", "subjectaccessreviews"]'));
    const run = start(['validate', '--plugin', 'ValidatingAdmissionWebhook', dir]);
    await run.exited;
    assert.match(run.out.stdout + run.out.stderr, /ValidatingWebhookConfiguration "reviews\.static\.k8s\.io": Admission webhook configuration names resources that are excluded from admission webhooks; the matching rules will have no effect: excludedResources=\[subjectaccessreviews\.authorization\.k8s\.io tokenreviews\.authentication\.k8s\.io\]/);

    // with the gate off the review resources reach webhooks, so there is nothing to warn about
    const gateOff = start(['validate', '--feature-gates', 'ExcludeAdmissionWebhookVirtualResources=false', '--plugin', 'ValidatingAdmissionWebhook', dir]);
    await gateOff.exited;
    assert.doesNotMatch(gateOff.out.stdout + gateOff.out.stderr, /excluded from admission webhooks/);
    assert.match(gateOff.out.stdout, /1 ValidatingWebhookConfiguration/);
  });
});
