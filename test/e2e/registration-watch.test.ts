// The registration file followed like the manifests, through the real daemon: a registration with a leftover
// wildcard raises static_admissiond_registration_excess_rules and logs the requests it sends for nothing with the
// command that fixes it; applying the fixed registration (the file replaced by rename, as writers should, or edited in
// place) moves the gauges within a second, with no manifest reload and a poll interval of a minute, so only the watch
// can have seen it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { policy, rule } from '../registration/helpers.js';
import { valueOf } from '../reload/helpers.js';
import { tempDir } from '../server/helpers.js';
import { spawnDaemon, stop, waitFor } from './helpers.js';
import type { Daemon } from './helpers.js';

const excessGauge = 'static_admissiond_registration_excess_rules';
const uncoveredGauge = 'static_admissiond_registration_uncovered_objects';
const VWC = { kind: 'ValidatingWebhookConfiguration' };
const VAP = { plugin: 'ValidatingAdmissionPolicy' };
const outsideSystem = '{matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, kube-node-lease]}]}';

async function metrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
}

/** Milliseconds until the gauge reads `want`, polling every 10 ms; fails after `limitMs`. */
async function followed(health: string, name: string, labels: Record<string, string>, want: number, limitMs: number, daemon: Daemon): Promise<number> {
  const start = performance.now();
  for (;;) {
    const value = valueOf(await metrics(health), name, labels);
    const elapsed = performance.now() - start;
    if (value === want) return elapsed;
    assert.ok(elapsed < limitMs, `${name}${JSON.stringify(labels)} is ${value}, not ${want}, ${Math.round(elapsed)} ms after the change\n${daemon.stderr()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('--registration-file is watched', () => {
  let tmp: ReturnType<typeof tempDir>;
  let daemon: Daemon | undefined;

  before(() => {
    tmp = tempDir('sad-e2e-registration-watch-');
  });
  after(async () => {
    if (daemon) await stop(daemon);
    tmp.cleanup();
  });

  test('excess and missing drift follow the file within a second', async (t) => {
    const dir = join(tmp.dir, 'policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'pods.yaml'), policy('pods', { rules: rule('[""]', '[v1]', '[pods]'), namespaceSelector: outsideSystem }));
    const config = join(tmp.dir, 'admission-config.yaml');
    writeFileSync(config, admissionConfigYAML(dir));
    const caFile = join(tmp.dir, 'ca.crt');
    writeFileSync(caFile, (await createCertificateAuthority('watch test')).certPEM);
    const printed = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30']);
    assert.equal(printed.code, 0, printed.err);
    const fixed = printed.out;
    // left over from a wildcard policy that was removed
    const leftover = fixed.replace(/(\n( +)rules:\n)/, '$1$2  - {operations: [CREATE], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"], scope: "*"}\n');
    // a policy on services the registration does not send yet is the other way
    const registrationFile = join(tmp.dir, 'registration.yaml');
    writeFileSync(registrationFile, leftover);

    const d = spawnDaemon(['serve', '--dev', '--admission-config', config, '--secure-port', '0', '--health-bind-address', '127.0.0.1:0',
      '--reload-interval', '1m', '--workers', '0', '--registration-file', registrationFile]);
    daemon = d;
    const health = await waitFor('the health URL', () => /"Serving health and metrics".*? url="([^"]+)"/.exec(d.stderr())?.[1], d);
    await followed(health, excessGauge, VWC, 3, 15_000, d);
    assert.equal(valueOf(await metrics(health), excessGauge, { kind: 'MutatingWebhookConfiguration' }), 0);
    assert.equal(valueOf(await metrics(health), uncoveredGauge, VAP), 0);
    const line = d.stderr().split('\n').find((l) => l.includes('Registration sends more than the loaded manifests need'));
    assert.ok(line, d.stderr());
    assert.match(line, /kind="ValidatingWebhookConfiguration"/);
    assert.match(line, /CREATE \*\/\* \*\/\* \(Cluster\)/);
    assert.match(line, /TokenReviews and the SubjectAccessReview family/);
    assert.ok(line.includes(`apply="kubectl apply -f ${registrationFile} --as=static-admissiond-registrar --as-group=static-admissiond:registrar --as-group=system:masters"`), line);
    assert.ok(line.includes(`print="static-admissiond registration --admission-config ${config} --ca-file <CA of the serving certificate> --format api --kube-version 1.30 > ${registrationFile}"`), line);

    // the fixed registration applied: the file replaced by rename
    writeFileSync(`${registrationFile}.tmp`, fixed);
    renameSync(`${registrationFile}.tmp`, registrationFile);
    const cleared = await followed(health, excessGauge, VWC, 0, 1_000, d);
    await waitFor('the all-clear line', () => (d.stderr().includes('"Registration no longer sends requests the loaded manifests cannot match" kind="ValidatingWebhookConfiguration"') ? true : undefined), d);

    // edited in place to a registration that misses pods: the other way, as fast
    writeFileSync(registrationFile, fixed.replace('resources: [pods]', 'resources: [services]'));
    const missed = await followed(health, uncoveredGauge, VAP, 1, 1_000, d);
    // services are sent for nothing: CREATE and UPDATE, both scopes. Written in place, the file may first be read
    // truncated (no webhooks: pods uncovered, nothing in excess), so this follows the file too rather than reading once.
    await followed(health, excessGauge, VWC, 4, 1_000, d);
    const missing = d.stderr().split('\n').find((l) => l.includes('Registration is out of date'));
    assert.ok(missing?.includes('CREATE core/v1 pods (Namespaced)'), d.stderr());
    writeFileSync(registrationFile, fixed);
    const back = await followed(health, uncoveredGauge, VAP, 0, 1_000, d);
    await followed(health, excessGauge, VWC, 0, 1_000, d);
    // the numbers for the record
    t.diagnostic(`registration file followed: excess cleared in ${Math.round(cleared)} ms (rename), missing raised in ${Math.round(missed)} ms and cleared in ${Math.round(back)} ms (in place)`);
  });
});
