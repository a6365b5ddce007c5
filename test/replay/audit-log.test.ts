// `replay` on a real audit log: testdata/replay/audit-log/audit.log, written line by line as kube-apiserver 1.36's log
// backend writes the events of a kubectl session through the daemon (README there; generate.mjs cites the upstream
// file behind every field), replayed with the set that was in force, and against a looser and a stricter candidate.
//
// - every admission denial (403, 413 and 422, as the policy's reason gives them) comes back denied with the logged
//   code and message, the webhook plugin's prefix aside (S/admission/plugin/webhook/errors/statuserror.go), a
//   generated name included (S/registry/generic/registry/store.go create names the object before validating
//   admission);
// - every admitted write comes back allowed;
// - writes the registration does not send (kube-system, kube-node-lease, DELETE) are not decided;
// - writes that failed outside admission (409 from storage, 422 from field validation, 403 from authorization) are
//   not decided;
// - against a baseline, the changes are exactly the writes the changed policies decide differently.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../helpers/fs.js';
import { run } from '../cli/helpers.js';

const fixture = fileURLToPath(new URL('../../../testdata/replay/audit-log/', import.meta.url));
const auditLog = join(fixture, 'audit.log');
const registrationFile = join(fixture, 'registration.yaml');
const tmp = tempDir('sad-replay-log-');
const config: Record<'in-force' | 'looser' | 'stricter', string> = { 'in-force': '', looser: '', stricter: '' };

before(() => {
  for (const set of Object.keys(config) as Array<keyof typeof config>) {
    config[set] = join(tmp.dir, `${set}.yaml`);
    writeFileSync(config[set], admissionConfigYAML(join(fixture, set)));
  }
});
after(() => tmp.cleanup());

interface Result {
  readonly auditID: string;
  readonly result: string;
  readonly reason?: string;
  readonly response?: { readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string } };
  readonly logged?: { readonly code: number; readonly message: string };
  readonly baselineResult?: string;
}
interface Output {
  readonly results: readonly Result[];
  readonly skipped: Record<string, number>;
  readonly notSent: Record<string, number>;
}

/** The session's events by their number in README.md (the auditID's last digits). */
const id = (n: number): string => `6c1d2e3f-0a4b-4c5d-8e9f-${String(n).padStart(12, '0')}`;
const numbers = (results: readonly Result[]): number[] => results.map((r) => Number(r.auditID.slice(-12)));

/** The logged denials: number, code, and the message the daemon answered (the log's, without the webhook prefix). */
const denials: ReadonlyArray<readonly [number, number, string]> = [
  [2, 422, `configmaps "cm-noowner" is forbidden: ValidatingAdmissionPolicy 'require-owner.static.k8s.io' with binding 'require-owner-binding.static.k8s.io' denied request: configmaps need an owner label`],
  [3, 413, `configmaps "cm-big" is forbidden: ValidatingAdmissionPolicy 'max-data.static.k8s.io' with binding 'max-data-binding.static.k8s.io' denied request: at most 3 data keys`],
  [4, 403, `pods "priv" is forbidden: ValidatingAdmissionPolicy 'no-privileged.static.k8s.io' with binding 'no-privileged-binding.static.k8s.io' denied request: privileged containers are not allowed`],
  [5, 403, `pods "privgen-8m4gn" is forbidden: ValidatingAdmissionPolicy 'no-privileged.static.k8s.io' with binding 'no-privileged-binding.static.k8s.io' denied request: privileged containers are not allowed`],
  [11, 422, `configmaps "cm-dry" is forbidden: ValidatingAdmissionPolicy 'require-owner.static.k8s.io' with binding 'require-owner-binding.static.k8s.io' denied request: configmaps need an owner label`],
  [14, 422, `configmaps "cm-ok" is forbidden: ValidatingAdmissionPolicy 'require-owner.static.k8s.io' with binding 'require-owner-binding.static.k8s.io' denied request: configmaps need an owner label`],
];
const admitted = [1, 6, 12, 13, 15, 16, 17, 18];

async function replayJSON(args: readonly string[], file = auditLog): Promise<{ code: number; output: Output; err: string }> {
  const r = await run(['replay', '-o', 'json', ...args, file]);
  return { code: r.code, output: JSON.parse(r.out) as Output, err: r.err };
}

/** The bars of replaying the log with the set that was in force. */
function assertReplayedAsLogged(output: Output): void {
  const denied = output.results.filter((r) => r.result === 'denied');
  assert.deepEqual(numbers(denied), denials.map(([n]) => n), 'the writes admission denied, and only those, are denied');
  for (const [n, code, message] of denials) {
    const r = output.results.find((x) => x.auditID === id(n))!;
    assert.equal(r.response?.status?.code, code, `event ${n}: the code`);
    assert.equal(r.response?.status?.message, message, `event ${n}: the message`);
    assert.deepEqual({ code: r.logged?.code, message: r.logged?.message }, { code, message }, `event ${n}: what the log says`);
  }
  assert.deepEqual(numbers(output.results.filter((r) => r.result !== 'denied')), admitted, 'the admitted writes');
  for (const r of output.results.filter((x) => x.result !== 'denied')) assert.equal(r.result, 'allowed', `${r.auditID}: ${r.reason ?? ''}`);
  assert.deepEqual(output.skipped, { level: 1, failed: 3, 'not-sent': 5 }, 'the read; 409, field validation and RBAC failures; kube-system, kube-node-lease and DELETE');
  assert.deepEqual(output.notSent, { rules: 2, selector: 3 });
}

test('replayed with the set in force, every denial comes back with its code and message, every admitted write allowed, nothing outside the registration or admission decided', async () => {
  const { code, output } = await replayJSON(['--workers', '0', '--admission-config', config['in-force']]);
  assert.equal(code, 0);
  assertReplayedAsLogged(output);
});

test('the registration the apiserver used (--registration-file) scopes the replay as the derived one does, on worker threads too', async () => {
  const { code, output } = await replayJSON(['--workers', '2', '--admission-config', config['in-force'], '--registration-file', registrationFile]);
  assert.equal(code, 0);
  assertReplayedAsLogged(output);
  // sending the system namespaces too, the set would have denied kube-system's privileged pod and owner-less ConfigMap
  const all = await replayJSON(['--workers', '0', '--admission-config', config['in-force'], '--include-system-namespaces']);
  assert.deepEqual(numbers(all.output.results.filter((r) => r.result === 'denied')), [2, 3, 4, 5, 9, 11, 14, 22]);
  assert.deepEqual(all.output.notSent, { rules: 2 });
  assert.equal(all.output.results.find((r) => r.auditID === id(23))?.result, 'allowed');
});

test('the text report says how many writes were not sent, and why', async () => {
  const r = await run(['replay', '--workers', '0', '--admission-config', config['in-force'], auditLog]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], 'Replayed 14 writes of 23 events; skipped 9 (1 level, 3 failed, 5 not-sent).');
  assert.equal(lines[1], 'Not decided, as kube-apiserver does not send them to the daemon under the registration derived from the candidate set: 5 (2 matched by none of its rules; 3 left out by its namespaceSelector or objectSelector).');
  assert.equal(lines[2], 'Candidate: 8 allowed, 6 denied, 0 unknown.');
});

test('against the set in force, a looser candidate newly allows exactly the writes of the policy it drops (exit 0)', async () => {
  const { code, output } = await replayJSON(['--workers', '0', '--admission-config', config.looser, '--baseline-admission-config', config['in-force']]);
  assert.equal(code, 0);
  assert.deepEqual(numbers(output.results.filter((r) => r.result === 'allowed' && r.baselineResult === 'denied')), [2, 11, 14]);
  assert.deepEqual(output.results.filter((r) => r.result === 'denied' && r.baselineResult === 'allowed'), []);
});

test('against the set in force, a stricter candidate newly denies exactly the writes its new policy decides, none outside the registration (exit 1)', async () => {
  const { code, output } = await replayJSON(['--workers', '0', '--admission-config', config.stricter, '--baseline-admission-config', config['in-force']]);
  assert.equal(code, 1);
  assert.deepEqual(numbers(output.results.filter((r) => r.result === 'denied' && r.baselineResult === 'allowed')), [6, 15], 'the :latest pod, created and patched; not kube-system\'s sys-agent');
  assert.deepEqual(output.results.filter((r) => r.result === 'allowed' && r.baselineResult === 'denied'), []);
});

/** The same events as another tool writes JSON: a space after every colon and comma. */
function spaced(line: string): string {
  return JSON.stringify(JSON.parse(line), null, 1).replace(/\n */g, ' ').replace(/([{[]) /g, '$1').replace(/ ([}\]])/g, '$1');
}

test('any valid JSON line is read: a re-serialised log replays as the backend\'s; a line that is no audit event is reported as malformed', async () => {
  const lines = readFileSync(auditLog, 'utf8').trimEnd().split('\n');
  assert.match(spaced(lines[0]!), /^\{"kind": "Event", "apiVersion": "audit\.k8s\.io\/v1", "level": "RequestResponse", /);
  const file = join(tmp.dir, 'spaced.log');
  writeFileSync(file, [...lines.map(spaced), '{"hello": "world"}', '{"kind":"Pod","apiVersion":"v1","metadata":{}}'].join('\n') + '\n');
  const { code, output, err } = await replayJSON(['--workers', '0', '--admission-config', config['in-force']], file);
  assert.equal(code, 0);
  assert.deepEqual(numbers(output.results), numbers((await replayJSON(['--workers', '0', '--admission-config', config['in-force']])).output.results));
  assert.deepEqual(output.skipped, { level: 1, failed: 3, 'not-sent': 5, malformed: 2 });
  assert.match(err, /^warning: .*spaced\.log:24: skipped, not an audit event: no stage or verb: not an audit Event$/m);
  assert.match(err, /^warning: .*spaced\.log:25: skipped, not an audit event: kind "Pod", not Event$/m);
});

test('a run that replays nothing from a non-empty input says so on stderr', async () => {
  const file = join(tmp.dir, 'reads.log');
  const lines = readFileSync(auditLog, 'utf8').trimEnd().split('\n');
  writeFileSync(file, [lines[20], lines[6], '{"hello": "world"}'].join('\n') + '\n');
  const r = await run(['replay', '--workers', '0', '--admission-config', config['in-force'], file]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^warning: nothing was replayed: 3 events read, none replayed \(skipped: 1 level, 1 failed, 1 malformed\)$/m);
});
