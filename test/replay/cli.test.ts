// `static-admissiond replay` through the real command function and the real executable: baseline diff and its exit
// code, unknown results, skipped counts, rotated and gzip'd logs, the webhook backend's EventList, bad input, JUnit,
// and worker threads deciding as the reading thread does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../helpers/fs.js';
import { run } from '../cli/helpers.js';
import { auditEvent, boundPolicy, configMapPolicy, jsonLines, policySet } from './helpers.js';
import type { Json } from './helpers.js';

const executable = fileURLToPath(new URL('../../cmd/static-admissiond.js', import.meta.url));
const tmp = tempDir('sad-replay-');
let candidate = '';
let baseline = '';

const noDeny = configMapPolicy('no-deny', `  - expression: "!has(object.metadata.labels) || !('deny' in object.metadata.labels)"
    message: the deny label is not allowed
`);
// reads oldObject: an UPDATE whose stored object the log lacks cannot be decided by it
const keepOwner = configMapPolicy('keep-owner', `  - expression: "!has(oldObject.metadata.annotations) || !('owner' in oldObject.metadata.annotations) || (has(object.metadata.annotations) && 'owner' in object.metadata.annotations)"
    message: the owner annotation may not be removed
`, '["UPDATE"]');

const cm = (name: string, rv: string, labels?: Json): Json => ({
  kind: 'ConfigMap', apiVersion: 'v1',
  metadata: { name, namespace: 'team', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2026-11-21T18:20:17Z', ...(labels ? { labels } : {}) },
  data: { k: 'v' },
});
const ref = (name: string): Json => ({ resource: 'configmaps', namespace: 'team', name, apiVersion: 'v1' });
const createURI = '/api/v1/namespaces/team/configmaps?fieldManager=kubectl-create';

const createA = auditEvent({ auditID: 'a-create', verb: 'create', requestURI: createURI, objectRef: ref('a'), code: 201, requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'team' }, data: { k: 'v' } }, responseObject: cm('a', '10') });
const labelA = auditEvent({ auditID: 'a-label', verb: 'patch', requestURI: '/api/v1/namespaces/team/configmaps/a?fieldManager=kubectl-label', objectRef: ref('a'), requestObject: { metadata: { labels: { deny: 'true' } } }, responseObject: cm('a', '11', { deny: 'true' }) });
const createB = auditEvent({ auditID: 'b-create', verb: 'create', requestURI: createURI, objectRef: ref('b'), code: 201, user: { username: 'bob', groups: ['system:authenticated'] }, requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'b', namespace: 'team', labels: { deny: 'true' } }, data: { k: 'v' } }, responseObject: cm('b', '12', { deny: 'true' }) });
const listing = auditEvent({ verb: 'list', requestURI: '/api/v1/namespaces/team/configmaps', objectRef: { resource: 'configmaps', namespace: 'team', apiVersion: 'v1' } });
const received = auditEvent({ verb: 'create', stage: 'RequestReceived', requestURI: createURI, objectRef: ref('c') });
const metadataOnly = auditEvent({ verb: 'create', level: 'Metadata', requestURI: createURI, objectRef: ref('d'), code: 201 });
const updateC = auditEvent({ auditID: 'c-update', verb: 'update', requestURI: '/api/v1/namespaces/team/configmaps/c', objectRef: ref('c'), requestObject: cm('c', '5'), responseObject: cm('c', '13') });
const log = [createA, listing, labelA, received, createB, metadataOnly, updateC];

before(() => {
  candidate = policySet(tmp.dir, 'candidate', `${noDeny}---\n${keepOwner}`);
  baseline = policySet(tmp.dir, 'baseline', configMapPolicy('anything', '  - expression: "true"\n'));
  writeFileSync(join(tmp.dir, 'audit.log'), jsonLines(log));
});
after(() => tmp.cleanup());

const denial = (name: string): string => `configmaps "${name}" is forbidden: ValidatingAdmissionPolicy 'no-deny.static.k8s.io' with binding 'no-deny-binding.static.k8s.io' denied request: the deny label is not allowed`;

test('with a baseline, the report leads with the writes the candidate newly denies, and the exit code is 1', async () => {
  const r = await run(['replay', '--workers', '0', '--admission-config', candidate, '--baseline-admission-config', baseline, join(tmp.dir, 'audit.log')]);
  assert.equal(r.code, 1, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], 'Replayed 4 writes of 7 events; skipped 3 (1 stage, 1 read, 1 level).');
  assert.equal(lines[1], 'Candidate against baseline: 2 newly denied, 0 newly allowed, 0 new warnings, 0 changed messages, 0 mutated differently; 1 unknown.');
  const newly = r.out.slice(r.out.indexOf('Newly denied'));
  assert.match(newly, /^Newly denied \(the baseline allowed them\): 2\n  ValidatingAdmissionPolicy 'no-deny.static.k8s.io' with binding 'no-deny-binding.static.k8s.io': 2\n/);
  assert.ok(newly.includes(`    message (1): ${denial('a')}\n`), r.out);
  assert.ok(newly.includes(`    message (1): ${denial('b')}\n`), r.out);
  assert.ok(newly.includes('    e.g. auditID a-label: admin patch configmaps team/a\n'), r.out);
  assert.ok(newly.includes('    e.g. auditID b-create: bob create configmaps team/b\n'), r.out);
  assert.match(r.out, /Unknown \(the log lacks what a policy reads\): 1\n  ValidatingAdmissionPolicy "keep-owner.static.k8s.io" reads oldObject: 1\n    reason: ValidatingAdmissionPolicy "keep-owner.static.k8s.io" reads oldObject, which the log lacks: the stored ConfigMap team\/c is not in the log before this update/);
  // the changes come before anything else
  assert.ok(r.out.indexOf('Newly denied') < r.out.indexOf('Unknown'));
});

test('-o json: one result per write with the daemon\'s AdmissionResponse, the baseline\'s, and skipped counts', async () => {
  const r = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', candidate, '--baseline-admission-config', baseline, join(tmp.dir, 'audit.log')]);
  assert.equal(r.code, 1, r.err);
  const doc = JSON.parse(r.out) as { results: Json[]; skipped: Json; summary: Json };
  assert.deepEqual(doc.results.map((e) => [e.auditID, e.verb, e.result, e.baselineResult]), [
    ['a-create', 'create', 'allowed', 'allowed'],
    ['a-label', 'patch', 'denied', 'allowed'],
    ['b-create', 'create', 'denied', 'allowed'],
    ['c-update', 'update', 'unknown', 'allowed'],
  ]);
  const denied = doc.results[1]!;
  assert.deepEqual(denied.objectRef, ref('a'));
  assert.deepEqual(denied.user, { username: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'] });
  const cause = denial('a').slice(denial('a').indexOf('ValidatingAdmissionPolicy'));
  assert.deepEqual(denied.response, {
    uid: 'a-label', allowed: false,
    status: { metadata: {}, status: 'Failure', message: denial('a'), reason: 'Invalid', details: { name: 'a', group: '', kind: 'configmaps', causes: [{ message: cause }] }, code: 422 },
  });
  assert.deepEqual(denied.baselineResponse, { uid: 'a-label', allowed: true });
  assert.match(doc.results[3]!.reason as string, /reads oldObject, which the log lacks/);
  assert.equal(doc.results[3]!.response, undefined);
  assert.deepEqual(doc.skipped, { stage: 1, read: 1, level: 1 });
  assert.deepEqual(doc.summary, { read: 7, replayed: 4, allowed: 1, denied: 2, unknown: 1, changes: { 'newly-denied': 2, 'newly-allowed': 0, 'new-warning': 0, 'changed-message': 0, 'changed-patch': 0 } });
});

test('without a baseline the candidate\'s denials are reported and the exit code is 0', async () => {
  const r = await run(['replay', '--workers', '0', '--admission-config', candidate, join(tmp.dir, 'audit.log')]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Replayed 4 writes of 7 events; skipped 3 \(1 stage, 1 read, 1 level\)\.\nCandidate: 1 allowed, 2 denied, 1 unknown\.\n\nDenied: 2\n/);
});

test('rotated logs, the older one gzip\'d under a name without .gz, are read in the order given', async () => {
  const older = join(tmp.dir, 'audit-2026-11-21T18-00-00.000.log');
  const current = join(tmp.dir, 'audit-current.log');
  const stored = cm('o', '20');
  (stored.metadata as Json).annotations = { owner: 'x' };
  const dropped = cm('o', '21');
  // two gzip members in one file, as `cat a.gz b.gz` makes
  writeFileSync(older, Buffer.concat([gzipSync(jsonLines([createA])), gzipSync(jsonLines([auditEvent({ auditID: 'o-create', verb: 'create', requestURI: createURI, objectRef: ref('o'), code: 201, requestObject: stored, responseObject: stored })]))]));
  writeFileSync(current, jsonLines([auditEvent({ auditID: 'o-update', verb: 'update', requestURI: '/api/v1/namespaces/team/configmaps/o', objectRef: ref('o'), requestObject: { ...dropped, metadata: { ...(dropped.metadata as Json), resourceVersion: '20' } }, responseObject: dropped })]));
  const inOrder = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', candidate, older, current]);
  assert.equal(inOrder.code, 0, inOrder.err);
  const results = (JSON.parse(inOrder.out) as { results: Json[] }).results;
  assert.deepEqual(results.map((e) => [e.auditID, e.result]), [['a-create', 'allowed'], ['o-create', 'allowed'], ['o-update', 'denied']]);
  assert.match(((results[2]!.response as Json).status as Json).message as string, /the owner annotation may not be removed$/);
  // the other way round, the update comes before the object is known
  const reversed = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', candidate, current, older]);
  assert.equal((JSON.parse(reversed.out) as { results: Json[] }).results[0]!.result, 'unknown');
});

test('the webhook backend\'s EventList, one per line or pretty-printed, replays as the log backend\'s lines do', async () => {
  const list = (items: Json[]): Json => ({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items });
  writeFileSync(join(tmp.dir, 'webhook-lines.json'), jsonLines([list(log.slice(0, 3)), list(log.slice(3))]));
  writeFileSync(join(tmp.dir, 'webhook-pretty.json'), JSON.stringify(list(log.slice(0, 4)), null, 2) + '\n' + JSON.stringify(list(log.slice(4)), null, 2) + '\n');
  const expected = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', candidate, join(tmp.dir, 'audit.log')]);
  for (const file of ['webhook-lines.json', 'webhook-pretty.json']) {
    const r = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', candidate, join(tmp.dir, file)]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), JSON.parse(expected.out), file);
  }
});

test('bad input: usage and unreadable or invalid input exit 2 with a message; a malformed line is skipped with a warning', async () => {
  const missingConfig = await run(['replay', join(tmp.dir, 'audit.log')]);
  assert.equal(missingConfig.code, 2);
  assert.match(missingConfig.err, /replay needs --admission-config/);
  const noLog = await run(['replay', '--admission-config', candidate]);
  assert.equal(noLog.code, 2);
  const badOutput = await run(['replay', '-o', 'yaml', '--admission-config', candidate, join(tmp.dir, 'audit.log')]);
  assert.equal(badOutput.code, 2);
  const absent = await run(['replay', '--admission-config', candidate, join(tmp.dir, 'nope.log')]);
  assert.equal(absent.code, 2);
  assert.match(absent.err, /nope\.log/);
  const brokenSet = policySet(tmp.dir, 'broken', configMapPolicy('broken', '  - expression: "object.metadata.name +"\n'));
  const broken = await run(['replay', '--admission-config', brokenSet, join(tmp.dir, 'audit.log')]);
  assert.equal(broken.code, 2);
  assert.match(broken.err, /^error: failed to load static policy manifests from /);
  writeFileSync(join(tmp.dir, 'truncated.log'), jsonLines([createA]) + '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Req\n' + jsonLines([labelA]));
  const truncated = await run(['replay', '--workers', '0', '--admission-config', candidate, join(tmp.dir, 'truncated.log')]);
  assert.equal(truncated.code, 0, truncated.err);
  assert.match(truncated.err, /truncated\.log:2: skipped, not an audit event/);
  assert.match(truncated.out, /^Replayed 2 writes of 3 events; skipped 1 \(1 malformed\)\./);
  const badNamespaces = join(tmp.dir, 'ns.json');
  writeFileSync(badNamespaces, '{"items": 3}');
  const ns = await run(['replay', '--namespaces', badNamespaces, '--admission-config', candidate, join(tmp.dir, 'audit.log')]);
  assert.equal(ns.code, 2);
  assert.match(ns.err, /not a list of namespaces/);
});

test('-o junit: the newly denied groups are the failures', async () => {
  const r = await run(['replay', '--workers', '0', '-o', 'junit', '--admission-config', candidate, '--baseline-admission-config', baseline, join(tmp.dir, 'audit.log')]);
  assert.equal(r.code, 1);
  assert.match(r.out, /<testsuite name="static-admissiond replay" tests="3" failures="1">/);
  assert.match(r.out, /<testcase classname="replay.newly-denied" name="newly-denied: ValidatingAdmissionPolicy &apos;no-deny.static.k8s.io&apos; with binding &apos;no-deny-binding.static.k8s.io&apos; \(2\)">\n      <failure message="2 writes the baseline allowed are denied">/);
});

function runExecutable(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [executable, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test('the executable: worker threads decide as the reading thread does, and a long JSON output arrives whole through a pipe', async () => {
  // 600 writes over 40 objects, so that each of the two shards has several objects and the output spans many pipe buffers
  const events: Json[] = [];
  for (let i = 0; i < 600; i++) {
    const name = `n${i % 40}`;
    const labels = i % 7 === 0 ? { deny: 'true' } : { n: String(i) };
    events.push(i < 40
      ? auditEvent({ auditID: `e${i}`, verb: 'create', requestURI: createURI, objectRef: ref(name), code: 201, requestObject: cm(name, ''), responseObject: cm(name, String(1000 + i), labels) })
      : auditEvent({ auditID: `e${i}`, verb: 'patch', requestURI: `/api/v1/namespaces/team/configmaps/${name}`, objectRef: ref(name), requestObject: { metadata: { labels } }, responseObject: cm(name, String(1000 + i), labels) }));
  }
  writeFileSync(join(tmp.dir, 'many.log'), jsonLines(events));
  const args = ['replay', '-o', 'json', '--admission-config', candidate, '--baseline-admission-config', baseline, join(tmp.dir, 'many.log')];
  const threaded = await runExecutable([...args, '--workers', '2']);
  const inline = await runExecutable([...args, '--workers', '0']);
  assert.equal(threaded.code, 1, threaded.err);
  assert.equal(inline.code, 1, inline.err);
  const a = JSON.parse(threaded.out) as { results: Json[] };
  assert.equal(a.results.length, 600);
  assert.deepEqual(a.results.map((e) => e.auditID), events.map((e) => e.auditID), 'input order');
  assert.deepEqual(a, JSON.parse(inline.out));
  assert.equal(a.results.filter((e) => e.result === 'denied').length, 86);
});

test('the baseline diff\'s other changes: newly allowed, new warnings, changed messages', async () => {
  const strict = configMapPolicy('size', `  - expression: "!has(object.metadata.labels) || object.metadata.labels.size() < 1"
    message: no labels allowed
`);
  const warnOnly = strict.replace('validationActions: [Deny]', 'validationActions: [Warn]');
  const reworded = configMapPolicy('size', `  - expression: "!has(object.metadata.labels) || object.metadata.labels.size() < 1"
    message: labels are not allowed here
`);
  const before = policySet(tmp.dir, 'diff-before', strict);
  const warned = policySet(tmp.dir, 'diff-warn', warnOnly);
  const changed = policySet(tmp.dir, 'diff-reworded', reworded);
  const logFile = join(tmp.dir, 'diff.log');
  writeFileSync(logFile, jsonLines([createA, labelA]));
  const loosened = await run(['replay', '--workers', '0', '--admission-config', warned, '--baseline-admission-config', before, logFile]);
  assert.equal(loosened.code, 0, loosened.err);
  assert.match(loosened.out, /Candidate against baseline: 0 newly denied, 1 newly allowed, 1 new warnings, 0 changed messages/);
  assert.match(loosened.out, /Newly allowed \(the baseline denied them\): 1\n  ValidatingAdmissionPolicy 'size.static.k8s.io' with binding 'size-binding.static.k8s.io': 1\n    message: configmaps "a" is forbidden: ValidatingAdmissionPolicy 'size.static.k8s.io' with binding 'size-binding.static.k8s.io' denied request: no labels allowed\n/);
  assert.match(loosened.out, /New warnings: 1\n  ValidatingAdmissionPolicy 'size.static.k8s.io' with binding 'size-binding.static.k8s.io': 1\n    message: Validation failed for ValidatingAdmissionPolicy 'size.static.k8s.io' with binding 'size-binding.static.k8s.io': no labels allowed\n/);
  const reworded2 = await run(['replay', '--workers', '0', '--admission-config', changed, '--baseline-admission-config', before, logFile]);
  assert.equal(reworded2.code, 0, reworded2.err);
  assert.match(reworded2.out, /Denied with a changed message: 1\n.*: 1\n    message: configmaps "a" is forbidden: .*denied request: no labels allowed\n      now: configmaps "a" is forbidden: .*denied request: labels are not allowed here\n/);
});

test('a progress line is drawn on stderr only when it is a terminal', async () => {
  const { main } = await import('../../lib/cli/main.js');
  for (const tty of [true, false]) {
    let err = '';
    const code = await main(['replay', '--workers', '0', '--admission-config', candidate, join(tmp.dir, 'audit.log')], { stdout: () => {}, stderr: (t) => (err += t), stderrIsTTY: tty });
    assert.equal(code, 0);
    if (tty) assert.match(err, /\rreplay: 7 events read, 4 writes decided \(\d[\d,]* events\/s\)\u001b\[K\n$/);
    else assert.equal(err, '');
  }
});

test('--namespaces: the stored Namespaces are the old objects of the log\'s first namespace writes', async () => {
  const immutableEnv = boundPolicy('env', `    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["namespaces"]`, `  - expression: "oldObject.metadata.labels['env'] == object.metadata.labels['env']"
    message: env is immutable
`);
  const set = policySet(tmp.dir, 'namespaces', immutableEnv);
  const namespace = (env: string, rv: string): Json => ({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'team', resourceVersion: rv, labels: { env, 'kubernetes.io/metadata.name': 'team' } }, spec: { finalizers: ['kubernetes'] } });
  // requests on a Namespace carry its name as their namespace (S/endpoints/request/requestinfo.go)
  writeFileSync(join(tmp.dir, 'ns.log'), jsonLines([auditEvent({ auditID: 'ns-patch', verb: 'patch', requestURI: '/api/v1/namespaces/team', objectRef: { resource: 'namespaces', namespace: 'team', name: 'team', apiVersion: 'v1' },
    requestObject: { metadata: { labels: { env: 'dev' } } }, responseObject: namespace('dev', '31') })]));
  const list = join(tmp.dir, 'namespaces.json');
  const exported = namespace('prod', '30');
  delete ((exported.metadata as Json).labels as Json)['kubernetes.io/metadata.name'];
  writeFileSync(list, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [exported] }));
  const known = await run(['replay', '--workers', '0', '-o', 'json', '--namespaces', list, '--admission-config', set, join(tmp.dir, 'ns.log')]);
  assert.equal(known.code, 0, known.err);
  const result = (JSON.parse(known.out) as { results: Json[] }).results[0]!;
  assert.equal(result.result, 'denied');
  assert.match(((result.response as Json).status as Json).message as string, /^namespaces "team" is forbidden: .* denied request: env is immutable$/);
  const unknown = await run(['replay', '--workers', '0', '-o', 'json', '--admission-config', set, join(tmp.dir, 'ns.log')]);
  assert.equal((JSON.parse(unknown.out) as { results: Json[] }).results[0]!.result, 'unknown');
});
