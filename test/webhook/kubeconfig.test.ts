// Credential selection from the plugin's kubeConfigFile as kube-apiserver selects it (users[].name against host:port,
// host, `*.suffix` wildcards, `*`, the current context), and what a real webhook server receives: the Authorization
// header (token, tokenFile, basic auth) and the client certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookClients } from '../../lib/webhook/client.js';
import { AuthenticationInfoResolver, hostPortOf, kubeconfigFrom, loadKubeconfig, selectUser } from '../../lib/webhook/kubeconfig.js';
import { startWebhookServer, testPKI } from './helpers.js';
import type { WebhookServer } from './helpers.js';

const users = (...names: string[]): string => `users:\n${names.map((n) => `- name: ${JSON.stringify(n)}\n  user:\n    token: tok-${n}\n`).join('')}`;

function pick(yaml: string, hostPort: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'sad-kubeconfig-'));
  try {
    writeFileSync(join(dir, 'kubeconfig'), yaml);
    return selectUser(loadKubeconfig(join(dir, 'kubeconfig')), hostPort)?.[0];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('selecting the kubeconfig user', () => {
  test('host:port is the URL host plus :443 when the URL has no port', () => {
    assert.equal(hostPortOf(new URL('https://webhook.example.com/v')), 'webhook.example.com:443');
    assert.equal(hostPortOf(new URL('https://127.0.0.1:9443/v')), '127.0.0.1:9443');
    assert.equal(hostPortOf(new URL('https://[::1]:8443/v')), '[::1]:8443');
  });

  test('exact host:port first', () => {
    assert.equal(pick(users('*', '127.0.0.1', '127.0.0.1:9443'), '127.0.0.1:9443'), '127.0.0.1:9443');
  });

  test('a host without port matches only when the port is 443', () => {
    assert.equal(pick(users('*', 'webhook.example.com'), 'webhook.example.com:443'), 'webhook.example.com');
    assert.equal(pick(users('*', 'webhook.example.com'), 'webhook.example.com:8443'), '*');
  });

  test('wildcards: `*.suffix`, the longest suffix first, with the port when the URL has one', () => {
    const yaml = users('*.example.com', '*.b.example.com', '*');
    assert.equal(pick(yaml, 'a.b.example.com:443'), '*.b.example.com');
    assert.equal(pick(yaml, 'c.example.com:443'), '*.example.com');
    assert.equal(pick(users('*.example.com:8443', '*'), 'a.example.com:8443'), '*.example.com:8443');
    assert.equal(pick(users('*.example.com', '*'), 'a.example.com:8443'), '*');
  });

  test('`*` is the default; then the current context; else anonymous', () => {
    assert.equal(pick(users('*', 'other'), '10.0.0.1:443'), '*');
    const withContext = `${users('ctx-user', 'other')}contexts:\n- name: c\n  context:\n    user: ctx-user\ncurrent-context: c\n`;
    assert.equal(pick(withContext, '10.0.0.1:443'), 'ctx-user');
    assert.equal(pick(users('other'), '10.0.0.1:443'), undefined);
  });

  test('an auth provider is refused as upstream refuses it; token and basic auth together are refused', () => {
    const resolver = new AuthenticationInfoResolver(kubeconfigFrom({ users: [{ name: '*', user: { 'auth-provider': { name: 'gcp' } } }] }, '/'));
    assert.throws(() => resolver.credentialsFor('a:443'), /^KubeconfigError: auth provider not supported$/);
    const both = new AuthenticationInfoResolver(kubeconfigFrom({ users: [{ name: '*', user: { token: 't', username: 'u', password: 'p' } }] }, '/'));
    assert.throws(() => both.credentialsFor('a:443'), /username\/password or bearer token may be set, but not both/);
  });
});

describe('credentials a webhook server receives', () => {
  let server: WebhookServer;
  let dir: string;
  let caPEM: string;
  const clients: WebhookClients[] = [];
  let clientCertFiles: { cert: string; key: string; certPEM: string; keyPEM: string };

  before(async () => {
    const { ca, serving } = await testPKI();
    caPEM = ca.certPEM;
    server = await startWebhookServer({ serving, requestCert: true }, () => ({ json: { ok: true } }));
    dir = mkdtempSync(join(tmpdir(), 'sad-creds-'));
    const client = await ca.issue({ commonName: 'kube-apiserver-webhook-client', usage: 'client' });
    writeFileSync(join(dir, 'client.crt'), client.certPEM);
    writeFileSync(join(dir, 'client.key'), client.keyPEM);
    writeFileSync(join(dir, 'token'), 'file-token\n');
    clientCertFiles = { cert: join(dir, 'client.crt'), key: join(dir, 'client.key'), certPEM: client.certPEM, keyPEM: client.keyPEM };
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function post(kubeconfig: string, host = '127.0.0.1'): Promise<{ authorization: string | undefined; cn: string | undefined }> {
    const file = join(dir, `kubeconfig-${clients.length}`);
    writeFileSync(file, kubeconfig);
    const c = new WebhookClients({ resolver: AuthenticationInfoResolver.fromFile(file) });
    clients.push(c);
    const url = new URL(`https://${host}:${server.port}/validate`);
    const res = await c.post({ webhookName: 'w', url, caPEM }, { body: Buffer.from('{"kind":"AdmissionReview"}'), deadline: Date.now() + 5_000, signal: new AbortController().signal });
    assert.equal(res.statusCode, 200);
    const r = server.received.at(-1)!;
    return { authorization: r.headers.authorization, cn: r.clientCN };
  }

  test('token, chosen by exact host:port', async () => {
    const got = await post(`users:\n- name: "127.0.0.1:${server.port}"\n  user:\n    token: exact-token\n- name: "*"\n  user:\n    token: star-token\n`);
    assert.deepEqual(got, { authorization: 'Bearer exact-token', cn: undefined });
  });

  test('tokenFile relative to the kubeconfig, chosen by `*`', async () => {
    assert.deepEqual(await post('users:\n- name: "*"\n  user:\n    tokenFile: token\n'), { authorization: 'Bearer file-token', cn: undefined });
  });

  test('client certificate and key files', async () => {
    const got = await post(`users:\n- name: "127.0.0.1:${server.port}"\n  user:\n    client-certificate: client.crt\n    client-key: ${clientCertFiles.key}\n`);
    assert.deepEqual(got, { authorization: undefined, cn: 'kube-apiserver-webhook-client' });
  });

  test('inline client certificate data with a token, chosen by host:port for a named host', async () => {
    const kubeconfig = `users:\n- name: "localhost:${server.port}"\n  user:\n    client-certificate-data: ${Buffer.from(clientCertFiles.certPEM).toString('base64')}\n    client-key-data: ${Buffer.from(clientCertFiles.keyPEM).toString('base64')}\n    token: cert-and-token\n`;
    const got = await post(kubeconfig, 'localhost');
    assert.deepEqual(got, { authorization: 'Bearer cert-and-token', cn: 'kube-apiserver-webhook-client' });
  });

  test('basic auth', async () => {
    const got = await post('users:\n- name: "*"\n  user:\n    username: admission\n    password: s3cret\n');
    assert.deepEqual(got, { authorization: `Basic ${Buffer.from('admission:s3cret').toString('base64')}`, cn: undefined });
  });

  test('impersonation (as, as-groups, as-user-extra) is sent as client-go\'s impersonating round tripper sends it', async () => {
    const kubeconfig = 'users:\n- name: "*"\n  user:\n    token: t\n    as: system:serviceaccount:kube-system:admission\n    as-uid: ignored-uid\n'
      + '    as-groups: ["system:masters", "ops"]\n    as-user-extra:\n      scopes: ["a", "b"]\n      "example.com/weird key%": ["v"]\n';
    await post(kubeconfig);
    const r = server.received.at(-1)!;
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < r.rawHeaders.length; i += 2) pairs.push([r.rawHeaders[i]!.toLowerCase(), r.rawHeaders[i + 1]!]);
    const impersonation = pairs.filter(([k]) => k.startsWith('impersonate-'));
    assert.deepEqual(impersonation, [
      ['impersonate-user', 'system:serviceaccount:kube-system:admission'],
      ['impersonate-group', 'system:masters'],
      ['impersonate-group', 'ops'],
      ['impersonate-extra-scopes', 'a'],
      ['impersonate-extra-scopes', 'b'],
      // headerKeyEscape: '/', ' ' and '%' percent-encoded
      ['impersonate-extra-example.com%2fweird%20key%25', 'v'],
    ]);
    assert.equal(r.headers.authorization, 'Bearer t');
  });

  test('as-groups and as-user-extra without as: no impersonation (upstream copies them only with a user)', async () => {
    await post('users:\n- name: "*"\n  user:\n    token: t\n    as-groups: ["g"]\n    as-user-extra:\n      k: ["v"]\n');
    const r = server.received.at(-1)!;
    assert.deepEqual(Object.keys(r.headers).filter((k) => k.startsWith('impersonate-')), []);
  });

  test('no matching user and no current context: anonymous', async () => {
    assert.deepEqual(await post('users:\n- name: elsewhere\n  user:\n    token: t\n'), { authorization: undefined, cn: undefined });
  });
});
