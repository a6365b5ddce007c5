// serve reports what `validate` reports, once per load: the directory entries it skipped, and the type-check
// warnings (logged, and counted in static_admissiond_type_check_warnings{plugin}), with nothing loaded differently.
// The real executable, its real reload (a file rewritten), its real /metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { waitFor as poll } from '../reload/helpers.js';
import { spawnDaemon, stop, waitFor } from './helpers.js';

const policy = (expression: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: names.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations: [{expression: ${JSON.stringify(expression)}}]
`;

async function gauge(health: string): Promise<string | undefined> {
  const text = await (await fetch(`${health}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  return /^static_admissiond_type_check_warnings\{plugin="ValidatingAdmissionPolicy"\} (\d+)$/m.exec(text)?.[1];
}

test('serve logs skipped entries and type-check warnings once per load, and exports the gauge', async (t) => {
  const { dir, cleanup } = tempDir('sad-typecheck-serve-');
  t.after(cleanup);
  const manifests = join(dir, 'policies');
  mkdirSync(manifests);
  writeFiles(manifests, { 'names.yaml': policy('object.metadata.name == 1'), 'extra-policy.yaml.txt': policy('true'), '.names.yaml.swp': 'x' });
  writeFileSync(join(dir, 'admission-config.yaml'), admissionConfigYAML(manifests));
  const certs = await generateDevCertificates({ parentDir: dir });
  const daemon = spawnDaemon(['serve', '--admission-config', join(dir, 'admission-config.yaml'), '--health-bind-address', '127.0.0.1:0', '--secure-port', '0', '--workers', '1',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile]);
  t.after(() => stop(daemon));
  const health = await waitFor('the health listener', () => /"Serving health and metrics".*? url="([^"]+)"/.exec(daemon.stderr())?.[1], daemon);
  const log = daemon.stderr();
  assert.match(log, /Manifest directory entry skipped.*entry="ignored \\"extra-policy\.yaml\.txt\\": not named \.yaml, \.yml or \.json"/);
  assert.match(log, /entry="ignored 1 editor or hidden entry/);
  assert.match(log, /Manifest warning.*ValidatingAdmissionPolicy \\"names\.static\.k8s\.io\\" in \\".*names\.yaml\\": spec\.validations\[0\]\.expression: type check: \/v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '\(string, int\)'/);
  assert.equal((log.match(/type check:/g) ?? []).length, 1, 'logged once');
  assert.equal(await gauge(health), '1');

  // a reload with the mistake fixed: the gauge follows
  writeFileSync(join(manifests, 'names.yaml'), policy("object.metadata.name == 'x'"));
  await poll('the gauge after the reload', async () => ((await gauge(health)) === '0' ? true : undefined), 20_000);
  assert.equal(await stop(daemon), 0);
});
