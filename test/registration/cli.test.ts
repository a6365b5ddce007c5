// `static-admissiond registration`: the printed registration is derived from the loaded manifests, parses, passes
// the loader kube-apiserver uses for staticManifestsDir, never sends a review resource (proved with the daemon's own
// matcher and CEL), says which policies lose coverage in the system namespaces, and refuses bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { shouldCallHook } from '../../lib/admission/webhooks/call.js';
import { excludedResources } from '../../lib/admission/matching/exclusions.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { tempDir } from '../server/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { policy, rule } from './helpers.js';

interface Webhook {
  name: string;
  clientConfig: { url: string; caBundle: string };
  rules: Array<Record<string, unknown>>;
  matchConditions?: Array<{ name: string; expression: string }>;
  failurePolicy: string;
  matchPolicy: string;
  namespaceSelector?: { matchExpressions: Array<{ key: string; operator: string; values: string[] }> };
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy?: string;
}
interface RegistrationObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks: Webhook[];
  spec?: Record<string, unknown>;
}

let tmp: { dir: string; cleanup: () => void };
let caFile: string;
let caPEM: string;
let wildcardConfig: string;
before(async () => {
  tmp = tempDir('sad-registration-cli-');
  caPEM = (await createCertificateAuthority('registration test CA')).certPEM;
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, caPEM);
  // a policy on everything, the case where the review resources must be kept out explicitly
  const dir = join(tmp.dir, 'wildcard');
  mkdirSync(dir);
  writeFileSync(join(dir, 'all.yaml'), policy('everything', { rules: rule('["*"]', '["*"]', '["*/*"]', '["*"]') }));
  wildcardConfig = join(tmp.dir, 'wildcard-config.yaml');
  writeFileSync(wildcardConfig, admissionConfigYAML(dir));
});
after(() => tmp.cleanup());

/** The YAML comments as one line of text (they are wrapped). */
function commentText(yamlText: string): string {
  return yamlText.split('\n').filter((l) => l.trim().startsWith('#')).map((l) => l.replace(/^\s*# ?/, '')).join(' ');
}

function parse(yamlText: string): RegistrationObject[] {
  const docs = parseAllDocuments(yamlText);
  assert.ok(Array.isArray(docs));
  for (const d of docs) assert.deepEqual(d.errors, []);
  return docs.map((d) => d.toJS() as RegistrationObject);
}

/** Writes a printed configuration (renamed to the static suffix when needed) and loads it as kube-apiserver 1.36 would. */
function loadAsStatic(config: RegistrationObject, plugin: PluginName, name: string): ReturnType<typeof loadSnapshotSync> {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  const renamed = config.metadata.name.endsWith('.static.k8s.io') ? config : { ...config, metadata: { name: `${config.metadata.name}.static.k8s.io` } };
  writeFileSync(join(dir, 'registration.yaml'), JSON.stringify(renamed));
  return loadSnapshotSync(plugin, dir);
}

function createRequest(group: string, version: string, resource: string, kind: string, namespace = ''): AdmissionRequest {
  return {
    uid: 'u1',
    kind: { group, version, kind },
    resource: { group, version, resource },
    requestKind: { group, version, kind },
    requestResource: { group, version, resource },
    operation: 'CREATE',
    ...(namespace === '' ? {} : { namespace }),
    userInfo: { username: 'system:node:n1', groups: ['system:nodes'] },
    object: { apiVersion: group === '' ? version : `${group}/${version}`, kind, spec: {} },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
  } as AdmissionRequest;
}

describe('static-admissiond registration', () => {
  test('--dev: rules derived from the example manifests, both sides, exclusions explained', async () => {
    const out = await run(['registration', '--dev', '--ca-file', caFile]);
    assert.equal(out.code, 0, out.err);
    const [validating, mutating, ...rest] = parse(out.out);
    assert.equal(rest.length, 0);
    assert.equal(validating!.kind, 'ValidatingWebhookConfiguration');
    assert.equal(mutating!.kind, 'MutatingWebhookConfiguration');
    assert.deepEqual(validating!.webhooks[0]!.rules, [
      { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' },
      { operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' },
    ]);
    assert.deepEqual(mutating!.webhooks[0]!.rules, [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }]);
    for (const [config, path] of [[validating!, '/validate'], [mutating!, '/mutate']] as const) {
      assert.equal(config.metadata.name, 'static-admissiond.static.k8s.io');
      assert.match(config.metadata.annotations?.['static-admissiond.io/rules-hash'] ?? '', /^sha256:[0-9a-f]{64}$/);
      const wh = config.webhooks[0]!;
      assert.equal(wh.clientConfig.url, `https://127.0.0.1:9443${path}`);
      assert.equal(Buffer.from(wh.clientConfig.caBundle, 'base64').toString(), caPEM);
      assert.equal(wh.matchConditions, undefined, 'no wildcard: nothing to keep out');
      assert.equal(wh.timeoutSeconds, 5);
      assert.deepEqual(wh.namespaceSelector, { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'kube-node-lease'] }] });
    }
    assert.equal(mutating!.webhooks[0]!.reinvocationPolicy, 'IfNeeded');
    // the header names what the rules come from; the exclusion comment names who loses coverage
    const comments = commentText(out.out);
    assert.match(comments, /derived from the ValidatingAdmissionPolicy and ValidatingAdmissionWebhook manifests loaded now: ValidatingAdmissionPolicy "deny-privileged\.static\.k8s\.io", ValidatingAdmissionPolicy "protect-configmaps\.static\.k8s\.io"/);
    assert.match(comments, /lose that coverage here: ValidatingAdmissionPolicy "deny-privileged\.static\.k8s\.io"/);
    assert.match(comments, /only the requests these rules send/);
  });

  test('the static format passes the manifest loader kube-apiserver uses for staticManifestsDir', async () => {
    const out = await run(['registration', '--dev', '--ca-file', caFile]);
    const [validating, mutating] = parse(out.out);
    assert.equal(loadAsStatic(validating!, 'ValidatingAdmissionWebhook', 'static-v').counts.ValidatingWebhookConfiguration, 1);
    assert.equal(loadAsStatic(mutating!, 'MutatingAdmissionWebhook', 'static-m').counts.MutatingWebhookConfiguration, 1);
  });

  test('--include-system-namespaces: no namespaceSelector, no coverage note', async () => {
    const out = await run(['registration', '--dev', '--ca-file', caFile, '--include-system-namespaces']);
    assert.equal(out.code, 0, out.err);
    // the apiserver's default, printed: every namespace
    for (const config of parse(out.out)) assert.deepEqual(config.webhooks[0]!.namespaceSelector, {});
    assert.doesNotMatch(commentText(out.out), /lose that coverage/);
  });

  test('a side with nothing loaded prints nothing; nothing at all prints a comment', async () => {
    const only = await run(['registration', '--admission-config', wildcardConfig, '--ca-file', caFile]);
    assert.deepEqual(parse(only.out).map((c) => c.kind), ['ValidatingWebhookConfiguration']);
    const dir = join(tmp.dir, 'empty');
    mkdirSync(dir);
    const config = join(tmp.dir, 'empty-config.yaml');
    writeFileSync(config, admissionConfigYAML(dir, 'MutatingAdmissionPolicy'));
    const none = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30']);
    assert.equal(none.code, 0, none.err);
    assert.equal(none.out, '# Nothing to register: no loaded manifest can match a request (validating: nothing loaded; mutating: nothing loaded).\n');
  });

  for (const [label, args] of [['1.28+: matchConditions', ['--format', 'api', '--kube-version', '1.28']], ['static (1.36)', []], ['before 1.28: enumerated rules', ['--format', 'api', '--kube-version', 'v1.27.9']]] as const) {
    test(`${label}: the daemon's own matcher, fed the printed rules and matchConditions, never sends a review resource`, async () => {
      const out = await run(['registration', '--admission-config', wildcardConfig, '--ca-file', caFile, ...args]);
      assert.equal(out.code, 0, out.err);
      const validating = parse(out.out).find((o) => o.kind === 'ValidatingWebhookConfiguration');
      const hooks = loadAsStatic(validating!, 'ValidatingAdmissionWebhook', `proof-${label.replace(/\W+/g, '-')}`).compiled;
      assert.equal(hooks.family, 'webhook');
      const hook = hooks.family === 'webhook' ? hooks.webhooks[0]! : undefined;
      assert.ok(hook);
      // the gate off in the matcher: only the registration itself keeps them out
      const options = { excludeWebhookVirtualResources: false, deadline: Date.now() + 10_000, signal: new AbortController().signal };
      const kinds: Record<string, string> = {
        selfsubjectreviews: 'SelfSubjectReview', tokenreviews: 'TokenReview', localsubjectaccessreviews: 'LocalSubjectAccessReview',
        selfsubjectaccessreviews: 'SelfSubjectAccessReview', selfsubjectrulesreviews: 'SelfSubjectRulesReview', subjectaccessreviews: 'SubjectAccessReview',
      };
      assert.equal(excludedResources.length, 6);
      for (const { group, resource } of excludedResources) {
        for (const version of ['v1', 'v1beta1']) {
          const request = createRequest(group, version, resource, kinds[resource]!, resource === 'localsubjectaccessreviews' ? 'default' : '');
          assert.deepEqual(shouldCallHook(hook, request, options), { skip: true }, `${group}/${version} ${resource} must never be sent`);
        }
      }
      // and what the policy covers still is
      for (const [group, resource, kind] of [['', 'pods', 'Pod'], ['apps', 'deployments', 'Deployment'], ['certificates.k8s.io', 'certificatesigningrequests', 'CertificateSigningRequest']] as const) {
        assert.ok('call' in shouldCallHook(hook, createRequest(group, 'v1', resource, kind, resource === 'certificatesigningrequests' ? '' : 'default'), options), `${resource} is sent`);
      }
    });
  }

  test('--format api prints the guard policy first (it decides the rest of the apply): v1 from 1.30, v1beta1 on 1.28, none before', async () => {
    const v130 = parse((await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30'])).out);
    assert.deepEqual(v130.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`), [
      'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy static-admissiond-guard',
      'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding static-admissiond-guard',
      'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration static-admissiond',
      'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration static-admissiond',
    ]);
    const v128 = parse((await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kube-version', '1.28.7'])).out);
    assert.deepEqual(v128.slice(0, 2).map((o) => o.apiVersion), ['admissionregistration.k8s.io/v1beta1', 'admissionregistration.k8s.io/v1beta1']);
    const v127 = await run(['registration', '--dev', '--ca-file', caFile, '--format', 'api', '--kube-version', '1.27']);
    assert.deepEqual(parse(v127.out).map((o) => o.kind), ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
  });

  test('refuses bad input with a message', async () => {
    const garbage = join(tmp.dir, 'garbage.crt');
    writeFileSync(garbage, 'not a certificate\n');
    const cases: Array<[string[], number, RegExp]> = [
      [['registration', '--dev'], 2, /--ca-file is required/],
      [['registration', '--dev', '--ca-file', caFile, '--format', 'yaml'], 2, /invalid --format "yaml": must be static or api/],
      [['registration', '--dev', '--ca-file', caFile, '--only', 'both'], 2, /invalid --only "both"/],
      [['registration', '--dev', '--ca-file', caFile, '--kube-version', 'latest'], 2, /invalid --kube-version "latest"/],
      [['registration', '--dev', '--ca-file', caFile, '--url', 'http://127.0.0.1:9443'], 1, /'https' is the only allowed URL scheme/],
      [['registration', '--dev', '--ca-file', caFile, '--url', 'https://u:p@127.0.0.1:9443'], 1, /user information is not permitted/],
      [['registration', '--dev', '--ca-file', caFile, '--url', 'https://127.0.0.1:9443/?x=1'], 1, /query parameters are not permitted/],
      [['registration', '--dev', '--ca-file', caFile, '--timeout-seconds', '31'], 1, /must be between 1 and 30 seconds/],
      [['registration', '--dev', '--ca-file', join(tmp.dir, 'missing.crt')], 1, /--ca-file ".*missing\.crt": ENOENT/],
      [['registration', '--dev', '--ca-file', garbage], 1, /no PEM certificate found/],
      [['registration', '--admission-config', join(tmp.dir, 'nope.yaml'), '--ca-file', caFile], 1, /nope\.yaml/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, code, args.join(' '));
      assert.match(r.err, message, args.join(' '));
      assert.equal(r.out, '', args.join(' '));
    }
    const help = await run(['registration', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /--kube-version/);
  });
});
