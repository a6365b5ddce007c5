// Keys named like Object.prototype members (`constructor`, `__proto__`, `valueOf`, …) are data like any other key.
// Every such name is sent as a key at every object position of a pod review and of a custom-resource review, to
// /validate and /mutate, through a daemon evaluating on a policy worker and through one with --workers 0. Each answer
// must be exactly the answer to the same review with the key renamed (`zz<name>`), the name mapped back: upstream
// decodes with sigs.k8s.io/json, whose field matching is case-sensitive (UnmarshalCaseSensitivePreserveInts), so no
// such name collides with a known field, and an unknown one is unknown whatever it is called.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { post, root, spawnDaemon, stop, waitFor } from './helpers.js';

const prototypeNames = Object.getOwnPropertyNames(Object.prototype);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The paths of every object in `value` (arrays' elements included), the root first. */
function objectPaths(value: Json, path: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => objectPaths(v, [...path, i]));
  return [path, ...Object.keys(value).flatMap((k) => objectPaths(value[k]!, [...path, k]))];
}

/** `review` (as JSON text) with an own property `key: value` added to the object at `path`. */
function withKey(review: Json, path: ReadonlyArray<string | number>, key: string, value: Json): string {
  const copy = JSON.parse(JSON.stringify(review)) as Json;
  let target = copy as { [key: string]: Json } | Json[];
  for (const step of path) target = (target as Record<string | number, Json>)[step] as { [key: string]: Json };
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(copy);
}

/** An answer as text with its patch decoded, so that a key renamed in the patch can be mapped back too. */
function readable(status: number, body: string): string {
  try {
    const answer = JSON.parse(body) as { response?: { patch?: string } };
    if (answer.response?.patch !== undefined) answer.response.patch = Buffer.from(answer.response.patch, 'base64').toString('utf8');
    return `${status} ${JSON.stringify(answer)}`;
  } catch {
    return `${status} ${body}`;
  }
}

// a pod the apiserver sent, its container given limits (requests default to them: a map keyed by data)
const podReview = JSON.parse(readFileSync(join(root, 'testdata/admission/apiserver-captures/007-validate-CREATE-Pod-p1.json'), 'utf8')) as {
  request: { object: { spec: { containers: Array<{ resources: Json }> } } };
};
podReview.request.object.spec.containers[0]!.resources = { limits: { cpu: '500m', memory: '64Mi' } };

const customResourceReview = JSON.parse(readFileSync(join(root, 'testdata/admission/object-keys/crontab-create.json'), 'utf8')) as Json;

interface Variant {
  readonly label: string;
  readonly endpoint: '/validate' | '/mutate';
  readonly body: string;
  readonly renamed: string;
  readonly name: string;
}

function variants(review: Json, what: string): Variant[] {
  const out: Variant[] = [];
  for (const path of objectPaths(review)) {
    for (const name of prototypeNames) {
      // a string, and for __proto__ also an object (assigned, it would replace the prototype)
      const values: Json[] = name === '__proto__' ? ['v', { polluted: 'yes' }] : ['v'];
      for (const value of values) {
        for (const endpoint of ['/validate', '/mutate'] as const) {
          out.push({
            label: `${what} ${endpoint} ${JSON.stringify(path)} ${name}=${JSON.stringify(value)}`,
            endpoint,
            body: withKey(review, path, name, value),
            renamed: withKey(review, path, `zz${name}`, value),
            name,
          });
        }
      }
    }
  }
  return out;
}

async function checkDaemon(t: { after: (fn: () => unknown) => void }, workers: string): Promise<number> {
  const { dir, cleanup } = tempDir('sad-e2e-prototype-');
  t.after(cleanup);
  writeFiles(dir, {
    'validating/policies.yaml': readFileSync(join(root, 'testdata/admission/object-keys/validating/policies.yaml')),
    'mutating/policies.yaml': readFileSync(join(root, 'testdata/admission/mutating/policies.yaml')),
    'mutating/object-keys.yaml': readFileSync(join(root, 'testdata/admission/object-keys/mutating/policies.yaml')),
    'admission-config.yaml': `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ValidatingAdmissionPolicyConfiguration, staticManifestsDir: ${join(dir, 'validating')}}
- name: MutatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: MutatingAdmissionPolicyConfiguration, staticManifestsDir: ${join(dir, 'mutating')}}
`,
  });
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0',
    '--secure-port', '0', '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, '--workers', workers]);
  t.after(() => stop(daemon));
  const url = await waitFor('the admission listener', () => /"Serving admission webhooks" url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon, 60_000);

  const all = [...variants(podReview as unknown as Json, 'pod'), ...variants(customResourceReview, 'crontab')];
  const mismatches: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < all.length; i = next++) {
      const v = all[i]!;
      const [got, want] = await Promise.all([post(`${url}${v.endpoint}`, certs.caPEM, v.body), post(`${url}${v.endpoint}`, certs.caPEM, v.renamed)]);
      statuses.set(got.status, (statuses.get(got.status) ?? 0) + 1);
      const expected = readable(want.status, want.body).replaceAll(`zz${v.name}`, v.name);
      const actual = readable(got.status, got.body);
      if (actual !== expected && mismatches.length < 20) mismatches.push(`${v.label}:\n  got  ${actual.slice(0, 600)}\n  want ${expected.slice(0, 600)}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ from the renamed key's (first 20 shown)`);
  assert.ok(![...statuses.keys()].some((s) => s >= 500), `5xx answers: ${JSON.stringify([...statuses])}`);
  // the renamed keys were not all refused: the variants reached the policies
  assert.ok((statuses.get(200) ?? 0) > all.length / 2, JSON.stringify([...statuses]));
  return all.length;
}

test('Object.prototype names as keys everywhere in a pod and a custom resource review: answered as any other key, on a policy worker', { timeout: 600_000 }, async (t) => {
  const sent = await checkDaemon(t, '1');
  t.diagnostic(`${sent} reviews, each against its renamed twin`);
});

test('Object.prototype names as keys everywhere in a pod and a custom resource review: answered as any other key, --workers 0', { timeout: 600_000 }, async (t) => {
  await checkDaemon(t, '0');
});
