// The registration that points kube-apiserver at the daemon: both formats parse, carry the coarse rules, the
// kube-system/kube-node-lease exclusion (with its comment) and the CA bundle; the static format is accepted by the
// same loader the apiserver's manifest-based admission uses (upstream validation + static-only checks); the CLI
// subcommand prints it and refuses bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { main } from '../../lib/cli/main.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { caBundleFromPEM, renderRegistration } from '../../lib/server/registration.js';
import { tempDir } from './helpers.js';

interface Webhook {
  name: string;
  clientConfig: { url: string; caBundle: string };
  rules: Array<Record<string, unknown>>;
  failurePolicy: string;
  matchPolicy: string;
  namespaceSelector: { matchExpressions: Array<{ key: string; operator: string; values: string[] }> };
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy?: string;
}
interface Configuration {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  webhooks: Webhook[];
}

let tmp: { dir: string; cleanup: () => void };
let caFile: string;
let caPEM: string;
before(async () => {
  tmp = tempDir('sad-registration-');
  caPEM = (await createCertificateAuthority('registration test CA')).certPEM;
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, caPEM);
});
after(() => tmp.cleanup());

function parse(yamlText: string): Configuration[] {
  const docs = parseAllDocuments(yamlText);
  assert.ok(Array.isArray(docs));
  for (const d of docs) assert.deepEqual(d.errors, []);
  return docs.map((d) => d.toJS() as Configuration);
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (t) => { stdout += t; }, stderr: (t) => { stderr += t; } });
  return { code, stdout, stderr };
}

describe('renderRegistration', () => {
  test('static format: two documents, .static.k8s.io names, coarse rules, exclusions, short timeout, CA bundle', () => {
    const caBundle = caBundleFromPEM(caPEM, 'test');
    const text = renderRegistration({ url: 'https://127.0.0.1:9443', caBundle });
    const [validating, mutating, ...rest] = parse(text);
    assert.equal(rest.length, 0);
    assert.equal(validating!.kind, 'ValidatingWebhookConfiguration');
    assert.equal(mutating!.kind, 'MutatingWebhookConfiguration');
    for (const [config, path] of [[validating!, '/validate'], [mutating!, '/mutate']] as const) {
      assert.equal(config.apiVersion, 'admissionregistration.k8s.io/v1');
      assert.equal(config.metadata.name, 'static-admissiond.static.k8s.io');
      assert.equal(config.webhooks.length, 1);
      const wh = config.webhooks[0]!;
      assert.match(wh.name, /\.static\.k8s\.io$/);
      assert.equal(wh.clientConfig.url, `https://127.0.0.1:9443${path}`);
      assert.equal(Buffer.from(wh.clientConfig.caBundle, 'base64').toString(), caPEM);
      assert.deepEqual(wh.rules, [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], resources: ['*/*'], scope: '*' }]);
      assert.equal(wh.sideEffects, 'None');
      assert.deepEqual(wh.admissionReviewVersions, ['v1']);
      assert.equal(wh.timeoutSeconds, 5);
      assert.equal(wh.matchPolicy, 'Equivalent');
      assert.equal(wh.failurePolicy, 'Fail');
      assert.deepEqual(wh.namespaceSelector, { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'kube-node-lease'] }] });
    }
    assert.equal(validating!.webhooks[0]!.reinvocationPolicy, undefined);
    assert.equal(mutating!.webhooks[0]!.reinvocationPolicy, 'IfNeeded');
    assert.notEqual(validating!.webhooks[0]!.name, mutating!.webhooks[0]!.name);

    // the exclusion is explained right above each namespaceSelector, and each document says where it goes
    const explained = text.match(/( *#.*\n)+ *namespaceSelector:/g) ?? [];
    assert.equal(explained.length, 2);
    for (const block of explained) assert.match(block, /kube-system and kube-node-lease[\s\S]*failurePolicy Fail[\s\S]*kubernetes\.io\/metadata\.name/);
    assert.match(text, /^# ValidatingWebhookConfiguration .*\n# .*1\.36\+[\s\S]*staticManifestsDir of the apiserver's ValidatingAdmissionWebhook plugin/);
    assert.match(text, /staticManifestsDir of the apiserver's MutatingAdmissionWebhook plugin/);
  });

  test('static format passes the manifest loader kube-apiserver uses for staticManifestsDir', () => {
    const caBundle = caBundleFromPEM(caPEM, 'test');
    for (const [only, plugin] of [['validating', 'ValidatingAdmissionWebhook'], ['mutating', 'MutatingAdmissionWebhook']] as const) {
      const dir = join(tmp.dir, `static-${only}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'static-admissiond.yaml'), renderRegistration({ url: 'https://127.0.0.1:9443', caBundle, only }));
      const snapshot = loadSnapshotSync(plugin, dir);
      assert.equal(Object.values(snapshot.counts).reduce((a, b) => a + b, 0), 1, plugin);
    }
  });

  test('api format: plain names for kubectl apply, same content', () => {
    const [validating, mutating] = parse(renderRegistration({ url: 'https://10.0.0.1:8443/', caBundle: 'Q0E=', format: 'api', timeoutSeconds: 3 }));
    for (const config of [validating!, mutating!]) {
      assert.equal(config.metadata.name, 'static-admissiond');
      assert.doesNotMatch(config.webhooks[0]!.name, /static\.k8s\.io/);
      assert.match(config.webhooks[0]!.name, /^[a-z]+\.[a-z-]+\.[a-z]+$/, 'a fully qualified name with three segments');
      assert.equal(config.webhooks[0]!.timeoutSeconds, 3);
    }
    assert.equal(validating!.webhooks[0]!.clientConfig.url, 'https://10.0.0.1:8443/validate');
    assert.equal(mutating!.webhooks[0]!.clientConfig.url, 'https://10.0.0.1:8443/mutate');
  });
});

describe('static-admissiond registration', () => {
  test('prints both configurations by default; --only prints one; --format api', async () => {
    const both = await run(['registration', '--url', 'https://127.0.0.1:9443', '--ca-file', caFile]);
    assert.equal(both.code, 0, both.stderr);
    assert.deepEqual(parse(both.stdout).map((c) => c.kind), ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
    const one = await run(['registration', `--ca-file=${caFile}`, '--only', 'mutating', '--format', 'api']);
    assert.equal(one.code, 0, one.stderr);
    const [mutating, ...rest] = parse(one.stdout);
    assert.equal(rest.length, 0);
    assert.equal(mutating!.kind, 'MutatingWebhookConfiguration');
    assert.equal(mutating!.metadata.name, 'static-admissiond');
    assert.equal(mutating!.webhooks[0]!.clientConfig.url, 'https://127.0.0.1:9443/mutate', '--url defaults to the daemon\'s default listener');
  });

  test('refuses bad input with a message', async () => {
    const garbage = join(tmp.dir, 'garbage.crt');
    writeFileSync(garbage, 'not a certificate\n');
    const cases: Array<[string[], number, RegExp]> = [
      [['registration'], 2, /--ca-file is required/],
      [['registration', '--ca-file', caFile, '--format', 'yaml'], 2, /invalid --format "yaml": must be static or api/],
      [['registration', '--ca-file', caFile, '--only', 'both'], 2, /invalid --only "both"/],
      [['registration', '--ca-file', caFile, '--url', 'http://127.0.0.1:9443'], 1, /'https' is the only allowed URL scheme/],
      [['registration', '--ca-file', caFile, '--url', 'https://u:p@127.0.0.1:9443'], 1, /user information is not permitted/],
      [['registration', '--ca-file', caFile, '--url', 'https://127.0.0.1:9443/?x=1'], 1, /query parameters are not permitted/],
      [['registration', '--ca-file', caFile, '--timeout-seconds', '31'], 1, /must be between 1 and 30 seconds/],
      [['registration', '--ca-file', join(tmp.dir, 'missing.crt')], 1, /--ca-file ".*missing\.crt": ENOENT/],
      [['registration', '--ca-file', garbage], 1, /no PEM certificate found/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, code, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    const help = await run(['registration', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--format/);
  });
});
