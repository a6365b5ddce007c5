// `serve --shadow-admission-config` end to end: the real executable with an enforced set and a candidate that denies
// what the enforced one allows, beside a daemon without a shadow set. The answers are byte for byte the same, the
// shadow metrics move with the right labels, the difference is logged with the request's uid, and a broken candidate
// manifest keeps the last good shadow snapshot without touching the enforced side's metrics or readiness.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, spawnDaemon, stop, waitFor as waitForDaemon } from '../e2e/helpers.js';
import type { Daemon } from '../e2e/helpers.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { samplesOf, valueOf, waitFor } from '../reload/helpers.js';
import { bindingOf, configMapRequest, labelPolicy, named, policy, reviewBody } from './helpers.js';

interface Running { readonly daemon: Daemon; readonly admission: string; readonly health: string; readonly ca: string }

const tmp = tempDir('sad-shadow-serve-');
const running: Running[] = [];
let plain: Running;
let shadowed: Running;

function configYAML(dir: string): string {
  const plugin = (name: string, sub: string): string =>
    `- name: ${name}\n  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ${name}Configuration, staticManifestsDir: ${join(dir, sub)}}\n`;
  return `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n${plugin('ValidatingAdmissionPolicy', 'policies')}${plugin('MutatingAdmissionPolicy', 'mutating')}`;
}

async function start(args: readonly string[]): Promise<Running> {
  const daemon = spawnDaemon(['serve', '--dev', '--secure-port', '0', '--health-bind-address', '127.0.0.1:0', '--workers', '1', ...args]);
  const r = {
    daemon,
    health: await waitForDaemon('the health URL', () => /"Serving health and metrics".*? url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon),
    admission: await waitForDaemon('the admission URL', () => /"Serving admission webhooks".*? url="(https:[^"]+)"/.exec(daemon.stderr())?.[1], daemon),
    ca: readFileSync(await waitForDaemon('the dev CA', () => /its CA is (\S+)/.exec(daemon.stdout())?.[1], daemon), 'utf8'),
  };
  running.push(r);
  return r;
}

const scrape = async (r: Running): Promise<string> => (await fetch(`${r.health}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
const decisions = 'static_admissiond_shadow_decisions_total';

async function decisionCount(r: Running, labels: Record<string, string>): Promise<number> {
  return valueOf(await scrape(r), decisions, labels) ?? 0;
}

before(async () => {
  writeFiles(tmp.dir, {
    'enforced/policies/names.yaml': policy('names', "object.metadata.name != 'forbidden'"),
    'enforced/mutating/team.yaml': labelPolicy('team', 'team', '"unassigned"'),
    'shadow/policies/names.yaml': policy('names', "object.metadata.name != 'forbidden'"),
    'shadow/policies/blocked.yaml': policy('blocked', "!object.metadata.name.startsWith('blocked')"),
    // a binding only the candidate holds that allows everything: it changes no answer
    'shadow/policies/extra.yaml': policy('extra', 'true'),
    'shadow/mutating/team.yaml': labelPolicy('team', 'team', '"platform"'),
  });
  writeFileSync(join(tmp.dir, 'enforced.yaml'), configYAML(join(tmp.dir, 'enforced')));
  writeFileSync(join(tmp.dir, 'shadow.yaml'), configYAML(join(tmp.dir, 'shadow')));
  const enforced = ['--admission-config', join(tmp.dir, 'enforced.yaml')];
  [plain, shadowed] = await Promise.all([
    start(enforced),
    start([...enforced, '--shadow-admission-config', join(tmp.dir, 'shadow.yaml'), '--reload-interval', '500ms']),
  ]);
  await waitFor('the shadow set to be loaded', async () => (await fetch(`${shadowed.health}/readyz/shadow-manifests-loaded`)).status === 200, 20_000, 50);
});

after(async () => {
  await Promise.all(running.map((r) => stop(r.daemon)));
  tmp.cleanup();
});

/** The same review to both daemons: both answers, which must be the same bytes. */
async function both(endpoint: string, name: string): Promise<string> {
  const body = reviewBody(configMapRequest(name));
  const [a, b] = await Promise.all([post(`${plain.admission}${endpoint}`, plain.ca, body), post(`${shadowed.admission}${endpoint}`, shadowed.ca, body)]);
  assert.equal(a.status, 200, a.body);
  assert.equal(b.status, 200, b.body);
  assert.equal(b.body, a.body, 'the shadow set changed the answer');
  return b.body;
}

test('the shadow set denies what the enforced set allows: the same answer, the counter moves, the uid is logged', async () => {
  const answer = JSON.parse(await both('/validate', 'blocked-1')) as { response: { allowed: boolean; uid: string } };
  assert.equal(answer.response.allowed, true);
  const labels = { plugin: 'ValidatingAdmissionPolicy', policy: named('blocked'), binding: bindingOf('blocked'), enforced: 'absent', shadow: 'deny' };
  await waitFor('the shadow difference to be counted', async () => (await decisionCount(shadowed, labels)) === 1, 10_000, 25);
  const text = await scrape(shadowed);
  assert.equal(valueOf(text, decisions, { policy: named('names'), enforced: 'allow', shadow: 'allow' }), 1, 'agreements are counted');
  assert.equal(valueOf(text, 'static_admissiond_shadow_requests_total', { endpoint: 'validate' }), 1);
  const line = await waitForDaemon('the difference log line', () => shadowed.daemon.stderr().split('\n').find((l) => l.includes('"Shadow set decides differently"')), shadowed.daemon);
  assert.match(line, / shadow\] /, 'klog source');
  assert.match(line, /uid="uid-blocked-1"/);
  assert.match(line, /answered="allowed"/);
  assert.match(line, new RegExp(`${named('blocked')}/${bindingOf('blocked')}: enforced=absent shadow=deny`.replaceAll('.', '\\.')));
  assert.match(line, /shadowMessage=".*blocked\.static\.k8s\.io says no"/);
  // the daemon without a shadow set has none of these series
  assert.equal(samplesOf(await scrape(plain), decisions).length, 0);
});

test('only requests whose answer the candidate would change are logged; every difference is counted', async () => {
  const extra = { plugin: 'ValidatingAdmissionPolicy', policy: named('extra'), binding: bindingOf('extra'), enforced: 'absent', shadow: 'allow' };
  const counted = await decisionCount(shadowed, extra);
  await both('/validate', 'quiet-1');
  await both('/validate', 'blocked-3');
  await waitFor('both differences to be counted', async () => (await decisionCount(shadowed, extra)) === counted + 2, 10_000, 25);
  // the worker decides in order: once the later request's line is out, the earlier one's would be too
  const line = await waitForDaemon('the blocked-3 line', () => shadowed.daemon.stderr().split('\n').find((l) => l.includes('uid="uid-blocked-3"')), shadowed.daemon);
  assert.match(line, /changes=\["allowed"\]/);
  assert.equal(shadowed.daemon.stderr().includes('uid="uid-quiet-1"'), false, 'a request whose answer would not change was logged');
});

test('/mutate: the same answer, the bindings compared, a different patch counted', async () => {
  const answer = JSON.parse(await both('/mutate', 'cm-mutate')) as { response: { allowed: boolean; patch?: string } };
  assert.equal(answer.response.allowed, true);
  assert.match(Buffer.from(answer.response.patch ?? '', 'base64').toString(), /unassigned/, 'the enforced mutation, not the candidate\'s');
  await waitFor('the /mutate comparison', async () => (await decisionCount(shadowed, { plugin: 'MutatingAdmissionPolicy', policy: named('team'), enforced: 'allow', shadow: 'allow' })) === 1, 10_000, 25);
  assert.equal(valueOf(await scrape(shadowed), 'static_admissiond_shadow_patch_differences_total', { endpoint: 'mutate' }), 1);
  await waitForDaemon('the patch difference log line', () => shadowed.daemon.stderr().split('\n').find((l) => l.includes('uid="uid-cm-mutate"') && l.includes('patch="differs"')), shadowed.daemon);
});

test('a broken shadow manifest keeps the last good shadow snapshot and never touches the enforced side', async () => {
  const before = await scrape(shadowed);
  const hash = samplesOf(before, 'static_admissiond_shadow_config_info', { plugin: 'ValidatingAdmissionPolicy' })[0]?.labels.hash;
  assert.ok(hash?.startsWith('sha256:'), 'the shadow config hash');
  const enforcedHash = samplesOf(before, 'apiserver_manifest_admission_config_controller_last_config_info', { plugin: 'ValidatingAdmissionPolicy' })[0]?.labels.hash;
  writeFileSync(join(tmp.dir, 'shadow/policies/zz-broken.yaml'), 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: broken.static.k8s.io}\nspec: {unknownField: 1}\n');
  await waitFor('the shadow reload failure to be counted', async () => (valueOf(await scrape(shadowed), 'static_admissiond_shadow_reloads_total', { plugin: 'ValidatingAdmissionPolicy', status: 'failure' }) ?? 0) >= 1, 10_000, 25);
  const text = await scrape(shadowed);
  assert.equal(samplesOf(text, 'apiserver_manifest_admission_config_controller_automatic_reloads_total', { status: 'failure' }).length, 0, 'an enforced-side reload failure was recorded');
  assert.equal(samplesOf(text, 'static_admissiond_shadow_config_info', { plugin: 'ValidatingAdmissionPolicy' })[0]?.labels.hash, hash, 'the shadow snapshot changed');
  assert.equal(samplesOf(text, 'apiserver_manifest_admission_config_controller_last_config_info', { plugin: 'ValidatingAdmissionPolicy' })[0]?.labels.hash, enforcedHash);
  assert.match(shadowed.daemon.stderr(), /^E\S+ \S+ +\d+ shadow\] "reloading manifest config" err="[^"]*zz-broken\.yaml/m);

  // the last good candidate still decides, and the answer is still the enforced one
  const labels = { plugin: 'ValidatingAdmissionPolicy', policy: named('blocked'), enforced: 'absent', shadow: 'deny' };
  const counted = await decisionCount(shadowed, labels);
  await both('/validate', 'blocked-2');
  await waitFor('the old candidate to decide again', async () => (await decisionCount(shadowed, labels)) === counted + 1, 10_000, 25);
  const readyz = await fetch(`${shadowed.health}/readyz?verbose`);
  assert.equal(readyz.status, 200);
  assert.match(await readyz.text(), /\[\+\]shadow-manifests-loaded ok/);
});

test('a candidate configuration that does not read: the daemon starts, is ready and answers, the shadow check says why', async () => {
  const missing = join(tmp.dir, 'no-such-candidate.yaml');
  const r = await start(['--admission-config', join(tmp.dir, 'enforced.yaml'), '--shadow-admission-config', missing]);
  await waitFor('readiness', async () => (await fetch(`${r.health}/readyz`)).status === 200, 20_000, 50);
  const verbose = await (await fetch(`${r.health}/readyz?verbose`)).text();
  assert.match(verbose, /\[-\]shadow-manifests-loaded failed \(not blocking\): the shadow admission configuration does not read: .*no-such-candidate\.yaml/);
  assert.match(verbose, /readyz check passed/);
  assert.equal((await fetch(`${r.health}/readyz/shadow-manifests-loaded`)).status, 500);
  const answer = await post(`${r.admission}/validate`, r.ca, reviewBody(configMapRequest('forbidden')));
  assert.equal(answer.status, 200);
  assert.match(answer.body, /"allowed":false/);
  assert.match(r.daemon.stderr(), /^E\S+ \S+ +\d+ shadow\] "Failed to read the shadow admission configuration/m);
  await waitFor('the skip to be counted', async () => (valueOf(await scrape(r), 'static_admissiond_shadow_skipped_total', { endpoint: 'validate', reason: 'not_loaded' }) ?? 0) === 1, 10_000, 25);
});
