// The registration's whole life without a cluster: `registration --format api` printed for the manifests as they
// are (v1: a policy on pods), then after services and a mutating policy were added (v2), then after the mutating
// policy was removed again (v3), each applied as `kubectl apply -f` applies a file: object by object in file order, an
// object whose printed fields all equal the live ones is `unchanged` and sends nothing, any other is a CREATE or an
// UPDATE that the apiserver's admission decides. The guard that decides is the one live at that moment (it is printed
// first, and ValidatingAdmissionPolicy objects are exempt from admission: S/admission/plugin/webhook/predicates/
// rules/rules.go IsExemptAdmissionConfigurationResource), evaluated by the project's `review` command. The live
// object is the applied one after upstream's defaulting (lib/manifest/defaults.ts, pkg/apis/admissionregistration/
// v1/defaults.go), as the apiserver stores it. As client-side apply, an object is `unchanged` when every field it
// sets equals the live one: maps field by field, lists keyed by `name` (webhooks: patchMergeKey) item by item, other
// lists (rules, validations: atomic) whole, so a list item the apiserver completes with a default is a change. Bars: an admin's apply of v2 changes nothing and names the command;
// the registrar's applies all of it; the same file applied again is `unchanged` for every object.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { applyDefaults } from '../../lib/manifest/defaults.js';
import type { V1Kind } from '../../lib/manifest/scheme.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { tempDir } from '../server/helpers.js';
import { policy, rule } from './helpers.js';

interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  webhooks?: Array<{ rules: Array<{ resources: string[] }> }>;
  spec?: Record<string, unknown>;
}

/** per object: as stored, and as last applied (kubectl's last-applied-configuration annotation) */
type Cluster = Map<string, { live: KubeObject; lastApplied: KubeObject }>;
type Outcome = 'created' | 'configured' | 'unchanged' | 'denied';
interface Step { readonly object: string; readonly outcome: Outcome; readonly message?: string }

const admin = { username: 'alice', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };
// what `kubectl apply --as=static-admissiond-registrar --as-group=static-admissiond:registrar --as-group=system:masters` sends
const registrar = { username: 'static-admissiond-registrar', groups: ['static-admissiond:registrar', 'system:masters', 'system:authenticated'] };
const exempt = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
const resources: Record<string, string> = {
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
};

const keyOf = (o: KubeObject): string => `${o.kind}/${o.metadata.name}`;

/** Whether applying `config` over `live` patches nothing (kubectl's three-way patch with an unchanged last-applied). */
function unchangedBy(config: unknown, live: unknown): boolean {
  if (Array.isArray(config)) {
    if (!Array.isArray(live) || config.length !== live.length) return false;
    const keyed = config.every((x) => typeof (x as { name?: unknown })?.name === 'string');
    return keyed
      ? config.every((x, i) => (live[i] as { name?: unknown })?.name === (x as { name: string }).name && unchangedBy(x, live[i]))
      : isDeepStrictEqual(config, live);
  }
  if (typeof config === 'object' && config !== null) {
    if (typeof live !== 'object' || live === null) return false;
    return Object.entries(config).every(([k, v]) => unchangedBy(v, (live as Record<string, unknown>)[k]));
  }
  return config === live;
}

/** Whether `config` drops a map field `lastApplied` set: the patch then deletes it. */
function dropsField(lastApplied: unknown, config: unknown): boolean {
  if (typeof lastApplied !== 'object' || lastApplied === null || Array.isArray(lastApplied)) return false;
  if (typeof config !== 'object' || config === null) return true;
  return Object.entries(lastApplied).some(([k, v]) => !(k in config) || dropsField(v, (config as Record<string, unknown>)[k]));
}
const clone = <T>(v: T): T => structuredClone(v);

/** The object as the apiserver stores it: defaulted (v1beta1 defaults the guard's fields exactly as v1 does). */
function stored(o: KubeObject): KubeObject {
  const copy = clone(o);
  applyDefaults(o.kind as V1Kind, copy);
  return copy;
}

let tmp: ReturnType<typeof tempDir>;
let policies: string;
let mutating: string;
let config: string;
let caFile: string;

async function print(...extra: string[]): Promise<{ text: string; objects: KubeObject[] }> {
  const out = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.28', ...extra]);
  assert.equal(out.code, 0, out.err);
  const docs = parseAllDocuments(out.out);
  assert.ok(Array.isArray(docs));
  return { text: out.out, objects: docs.map((d) => d.toJS() as KubeObject) };
}

/** The live guard as `review` loads it: the static loader needs the static suffix on the two names, nothing else. */
function guardConfig(cluster: Cluster, n: number): string {
  const dir = join(tmp.dir, `guard-${n}`);
  mkdirSync(dir);
  const guard = [...cluster.values()].map((o) => o.live).filter((o) => exempt.has(o.kind)).map((o) => {
    const copy = clone(o);
    copy.apiVersion = 'admissionregistration.k8s.io/v1';
    copy.metadata.name += '.static.k8s.io';
    if (copy.kind === 'ValidatingAdmissionPolicyBinding') copy.spec!.policyName += '.static.k8s.io';
    return JSON.stringify(copy);
  });
  writeFileSync(join(dir, 'guard.yaml'), guard.join('\n---\n'));
  const file = join(tmp.dir, `guard-${n}.yaml`);
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ValidatingAdmissionPolicyConfiguration, staticManifestsDir: ${dir}}
`);
  return file;
}

let reviews = 0;

/** The apiserver's admission of one write, by the guard live now: undefined when allowed, else the message. */
async function admit(cluster: Cluster, operation: 'CREATE' | 'UPDATE', object: KubeObject, old: KubeObject | undefined, user: typeof admin): Promise<string | undefined> {
  if (![...cluster.values()].some((o) => o.live.kind === 'ValidatingAdmissionPolicyBinding')) return undefined;
  const gvr = { group: 'admissionregistration.k8s.io', version: 'v1', resource: resources[object.kind]! };
  const gvk = { group: 'admissionregistration.k8s.io', version: 'v1', kind: object.kind };
  const request = {
    uid: '5d0f6a9e-0c7e-4d0e-9d7a-0c1f0e2b3a41',
    kind: gvk, resource: gvr, requestKind: gvk, requestResource: gvr,
    name: object.metadata.name,
    operation,
    userInfo: user,
    object: stored(object),
    oldObject: old ?? null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'CREATE' ? 'CreateOptions' : 'PatchOptions', fieldManager: 'kubectl-client-side-apply' },
  };
  const out = await run(['review', '--admission-config', guardConfig(cluster, ++reviews), '-'], JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
  assert.equal(out.code, 0, out.err);
  const response = (JSON.parse(out.out) as { response: { allowed: boolean; status?: { message: string } } }).response;
  return response.allowed ? undefined : response.status?.message ?? '';
}

let transcript: (line: string) => void = () => undefined;

/** `kubectl apply -f` of the printed objects, as `user`: one step per object, in file order. */
async function apply(cluster: Cluster, objects: readonly KubeObject[], user: typeof admin, label = ''): Promise<Step[]> {
  const steps = await applySteps(cluster, objects, user);
  transcript(`kubectl apply -f ${label} as ${user.username} (${user.groups.join(', ')}):`);
  for (const s of steps) transcript(`  ${s.object} ${s.outcome}${s.message === undefined ? '' : `: ${s.message}`}`);
  return steps;
}

async function applySteps(cluster: Cluster, objects: readonly KubeObject[], user: typeof admin): Promise<Step[]> {
  const steps: Step[] = [];
  for (const object of objects) {
    const key = keyOf(object);
    const live = cluster.get(key)?.live;
    if (live !== undefined && unchangedBy(object, live) && !dropsField(cluster.get(key)!.lastApplied, object)) {
      steps.push({ object: key, outcome: 'unchanged' });
      continue;
    }
    const denied = exempt.has(object.kind) ? undefined : await admit(cluster, live === undefined ? 'CREATE' : 'UPDATE', object, live, user);
    if (denied !== undefined) {
      steps.push({ object: key, outcome: 'denied', message: denied });
      continue;
    }
    cluster.set(key, { live: stored(object), lastApplied: clone(object) });
    steps.push({ object: key, outcome: live === undefined ? 'created' : 'configured' });
  }
  return steps;
}

const snapshot = (cluster: Cluster): string => JSON.stringify([...cluster.entries()].map(([k, v]) => [k, v.live]).sort());
const outcomes = (steps: readonly Step[]): string[] => steps.map((s) => `${s.object} ${s.outcome}`);

before(async () => {
  tmp = tempDir('sad-update-flow-');
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, (await createCertificateAuthority('update flow')).certPEM);
  policies = join(tmp.dir, 'policies');
  mutating = join(tmp.dir, 'mutating-policies');
  mkdirSync(policies);
  mkdirSync(mutating);
  writeFileSync(join(policies, 'pods.yaml'), policy('pods', { rules: rule('[""]', '[v1]', '[pods]') }));
  config = join(tmp.dir, 'admission-config.yaml');
  writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ValidatingAdmissionPolicyConfiguration, staticManifestsDir: ${policies}}
- name: MutatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: MutatingAdmissionPolicyConfiguration, staticManifestsDir: ${mutating}}
`);
});
after(() => tmp.cleanup());

describe('the registration update flow, as kubectl apply would run it', () => {
  test('v1 → v2 (services and a mutating policy added) → v3 (the mutating policy removed): never half-applied', async (t) => {
    transcript = (line) => t.diagnostic(line);
    const v1 = await print();
    assert.deepEqual(v1.objects.map(keyOf), [
      'ValidatingAdmissionPolicy/static-admissiond-guard',
      'ValidatingAdmissionPolicyBinding/static-admissiond-guard',
      'ValidatingWebhookConfiguration/static-admissiond',
      'MutatingWebhookConfiguration/static-admissiond',
    ], 'the guard first; both configurations, the mutating one without webhooks');
    assert.equal(v1.objects[3]!.webhooks, undefined);

    // the first apply, as an admin: everything is created
    const cluster: Cluster = new Map();
    assert.deepEqual(outcomes(await apply(cluster, v1.objects, admin, 'v1.yaml')), [
      'ValidatingAdmissionPolicy/static-admissiond-guard created',
      'ValidatingAdmissionPolicyBinding/static-admissiond-guard created',
      'ValidatingWebhookConfiguration/static-admissiond created',
      'MutatingWebhookConfiguration/static-admissiond created',
    ]);
    const installed = snapshot(cluster);
    // the same file again: unchanged, for every object, whoever applies it
    assert.deepEqual((await apply(cluster, v1.objects, admin, 'v1.yaml')).map((s) => s.outcome), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);

    writeFileSync(join(policies, 'services.yaml'), policy('services', { rules: rule('[""]', '[v1]', '[services]', '[CREATE]') }));
    writeFileSync(join(mutating, 'label.yaml'), policy('label', { kind: 'MutatingAdmissionPolicy', rules: rule('[""]', '[v1]', '[configmaps]', '[CREATE]') }));
    const v2 = await print();

    // as an admin: both configurations refused, the guard unchanged: the cluster is exactly as before
    const asAdmin = await apply(cluster, v2.objects, admin, 'v2.yaml');
    assert.deepEqual(outcomes(asAdmin), [
      'ValidatingAdmissionPolicy/static-admissiond-guard unchanged',
      'ValidatingAdmissionPolicyBinding/static-admissiond-guard unchanged',
      'ValidatingWebhookConfiguration/static-admissiond denied',
      'MutatingWebhookConfiguration/static-admissiond denied',
    ]);
    assert.equal(snapshot(cluster), installed, 'nothing changed');
    for (const step of asAdmin.filter((s) => s.outcome === 'denied')) {
      assert.match(step.message!, /is updated only by the registrar group static-admissiond:registrar, so that an apply never leaves it half-updated: this update was refused and the registration is as it was\. Apply the same file as the registrar: kubectl apply -f <file> --as=static-admissiond-registrar --as-group=static-admissiond:registrar --as-group=system:masters/);
    }

    // as the registrar (the command the denial names): all of it
    assert.deepEqual(outcomes(await apply(cluster, v2.objects, registrar, 'v2.yaml')), [
      'ValidatingAdmissionPolicy/static-admissiond-guard unchanged',
      'ValidatingAdmissionPolicyBinding/static-admissiond-guard unchanged',
      'ValidatingWebhookConfiguration/static-admissiond configured',
      'MutatingWebhookConfiguration/static-admissiond configured',
    ]);
    assert.equal(snapshot(cluster), snapshot(new Map(v2.objects.map((o) => [keyOf(o), { live: stored(o), lastApplied: o }]))), 'exactly v2');
    assert.deepEqual(cluster.get('ValidatingWebhookConfiguration/static-admissiond')!.live.webhooks![0]!.rules.map((r) => r.resources), [['pods'], ['services']]);
    assert.deepEqual(cluster.get('MutatingWebhookConfiguration/static-admissiond')!.live.webhooks![0]!.rules.map((r) => r.resources), [['configmaps']]);
    assert.deepEqual((await apply(cluster, v2.objects, registrar, 'v2.yaml')).map((s) => s.outcome), ['unchanged', 'unchanged', 'unchanged', 'unchanged']);

    // v3: the mutating side empties; the registrar's apply empties it in the cluster instead of leaving its rules
    rmSync(join(mutating, 'label.yaml'));
    const v3 = await print();
    const beforeV3 = snapshot(cluster);
    assert.deepEqual(outcomes(await apply(cluster, v3.objects, admin, 'v3.yaml')).slice(2), ['ValidatingWebhookConfiguration/static-admissiond unchanged', 'MutatingWebhookConfiguration/static-admissiond denied']);
    assert.equal(snapshot(cluster), beforeV3);
    assert.deepEqual(outcomes(await apply(cluster, v3.objects, registrar, 'v3.yaml')).slice(2), ['ValidatingWebhookConfiguration/static-admissiond unchanged', 'MutatingWebhookConfiguration/static-admissiond configured']);
    assert.equal(cluster.get('MutatingWebhookConfiguration/static-admissiond')!.live.webhooks, undefined);
  });
});
