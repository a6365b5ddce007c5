// The registration in step with the manifests, through the real daemon: a reload that adds a policy on services
// raises static_admissiond_registration_uncovered_objects and names the policy in the log; --write-registration
// rewrites the static registration after good swaps only; validate --registration fails on the same drift.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYAML } from 'yaml';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { policy, rule } from '../registration/helpers.js';
import { tempDir } from '../server/helpers.js';
import { samplesOf, valueOf } from '../reload/helpers.js';
import { spawnDaemon, stop, waitFor } from './helpers.js';
import type { Daemon } from './helpers.js';

const VAP = 'ValidatingAdmissionPolicy';
const gauge = 'static_admissiond_registration_uncovered_objects';

/** Replaces a file as writers must (temp file, rename), so no reload sees half of it. */
function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function metrics(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
}

describe('registration drift and --write-registration', () => {
  let tmp: ReturnType<typeof tempDir>;
  let dir: string;
  let config: string;
  let registrationFile: string;
  let written: string;
  let daemon: Daemon;
  let health: string;

  before(async () => {
    tmp = tempDir('sad-e2e-registration-');
    dir = join(tmp.dir, 'policies');
    mkdirSync(dir);
    writeAtomically(join(dir, 'pods.yaml'), policy('pods', { rules: rule('[""]', '[v1]', '[pods]') }));
    config = join(tmp.dir, 'admission-config.yaml');
    writeFileSync(config, admissionConfigYAML(dir));
  });

  after(async () => {
    if (daemon) await stop(daemon);
    tmp.cleanup();
  });

  test('prints the registration, serves it, and reports drift when a policy on services is added', async () => {
    const ca = await createCertificateAuthority('drift test');
    const caFile = join(tmp.dir, 'ca.crt');
    writeFileSync(caFile, ca.certPEM);
    const printed = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30']);
    assert.equal(printed.code, 0, printed.err);
    registrationFile = join(tmp.dir, 'registration.yaml');
    writeFileSync(registrationFile, printed.out);
    written = join(tmp.dir, 'apiserver-manifests');
    assert.equal((await run(['validate', '--admission-config', config, '--registration', registrationFile])).code, 0);

    daemon = spawnDaemon(['serve', '--dev', '--admission-config', config, '--secure-port', '0', '--health-bind-address', '127.0.0.1:0',
      '--reload-interval', '100ms', '--workers', '0', '--registration-file', registrationFile, '--write-registration', written]);
    health = await waitFor('the health URL', () => /"Serving health and metrics".*? url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
    let initial = '';
    for (const deadline = Date.now() + 15_000; valueOf(initial, gauge, { plugin: VAP }) === undefined; await new Promise((r) => setTimeout(r, 50))) {
      assert.ok(Date.now() < deadline, 'no drift gauge');
      initial = await metrics(health);
    }
    assert.equal(valueOf(initial, gauge, { plugin: VAP }), 0, initial);
    assert.match(daemon.stderr(), /"Registration sends every request the loaded manifests can match" plugin="ValidatingAdmissionPolicy"/);
    const writtenFile = join(written, 'validating', 'static-admissiond.yaml');
    const first = readFileSync(writtenFile, 'utf8');
    assert.deepEqual((parseYAML(first) as { webhooks: Array<{ rules: Array<{ resources: string[] }> }> }).webhooks[0]!.rules.map((r) => r.resources), [['pods']]);
    assert.throws(() => readFileSync(join(written, 'mutating', 'static-admissiond.yaml')), /ENOENT/, 'no mutating side: no file');

    // a policy on services: the registration in use does not send services
    writeAtomically(join(dir, 'services.yaml'), policy('services', { rules: rule('[""]', '[v1]', '[services]', '[CREATE]') }));
    let text = '';
    for (const deadline = Date.now() + 15_000; ; ) {
      text = await metrics(health);
      if (valueOf(text, gauge, { plugin: VAP }) === 1) break;
      assert.ok(Date.now() < deadline, `the gauge never rose:\n${samplesOf(text, gauge).map((s) => JSON.stringify(s)).join('\n')}\n${daemon.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const line = daemon.stderr().split('\n').find((l) => l.includes('Registration is out of date'));
    assert.ok(line, daemon.stderr());
    assert.match(line, /ValidatingAdmissionPolicy \\"services\.static\.k8s\.io\\"/);
    assert.match(line, /CREATE core\/v1 services/);
    assert.doesNotMatch(line, /pods\.static/);

    // the static registration follows the good swap
    const second = await waitFor('the rewritten registration', () => {
      const t = readFileSync(writtenFile, 'utf8');
      return t === first ? undefined : t;
    }, daemon);
    assert.deepEqual((parseYAML(second) as { webhooks: Array<{ rules: Array<{ resources: string[] }> }> }).webhooks[0]!.rules.map((r) => r.resources), [['pods'], ['services']]);

    // validate --registration fails on the same drift, naming the policy
    const checked = await run(['validate', '--admission-config', config, '--registration', registrationFile]);
    assert.equal(checked.code, 1);
    assert.match(checked.err, /ValidatingAdmissionPolicy "services\.static\.k8s\.io" can match requests the registration ".*registration\.yaml" does not send, so it is not enforced: CREATE core\/v1 services \(Cluster\); CREATE core\/v1 services \(Namespaced\)/);

    // a bad set never rewrites it: wait for the failed reload, then the file is what the last good swap wrote
    writeAtomically(join(dir, 'broken.yaml'), 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: broken.static.k8s.io}\nspec: {bogus: 1}\n');
    await waitFor('the failed reload', () => (daemon.stderr().includes('reloading manifest config') ? true : undefined), daemon);
    for (const deadline = Date.now() + 10_000; ; ) {
      const m = await metrics(health);
      if ((valueOf(m, 'apiserver_manifest_admission_config_controller_automatic_reloads_total', { status: 'failure', plugin: VAP, apiserver_id_hash: samplesOf(m, 'apiserver_manifest_admission_config_controller_automatic_reloads_total')[0]!.labels.apiserver_id_hash! }) ?? 0) >= 1) break;
      assert.ok(Date.now() < deadline, 'no failed reload counted');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(readFileSync(writtenFile, 'utf8'), second);

    // the new registration, applied, brings the gauge back to 0
    rmSync(join(dir, 'broken.yaml'));
    const again = await run(['registration', '--admission-config', config, '--ca-file', caFile, '--format', 'api', '--kube-version', '1.30']);
    writeAtomically(registrationFile, again.out);
    writeAtomically(join(dir, 'touch.yaml'), '# a change, so the daemon reloads and checks again\n');
    for (const deadline = Date.now() + 15_000; ; ) {
      if (valueOf(await metrics(health), gauge, { plugin: VAP }) === 0) break;
      assert.ok(Date.now() < deadline, 'the gauge never fell back to 0');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});
