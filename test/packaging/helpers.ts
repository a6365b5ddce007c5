// Helpers of the tests of the release artifacts as installed (issue 24): one build of an artifact per test file,
// and the smoke test every installed copy must pass.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
export const packageJson = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string; engines: { node: string } };
export const version = packageJson.version;
export const name = 'static-admissiond';
// The installed command's "#!/usr/bin/env -S node …" finds the node running these tests first.
export const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };
export const has = (command: string): boolean => !spawnSync(command, ['--version'], { stdio: 'ignore' }).error;
/** A test's skip option: skipped where `tool` is missing, except under CI=true, which installs it (.ci/run). */
export const needs = (tool: string): false | string => (has(tool) || process.env['CI'] === 'true' ? false : `${tool} not installed`);

/**
 * Builds `artifact` with packaging/build.mjs once for the calling test file, into a scratch directory removed after
 * it: --offline (the production node_modules come from npm's cache, which npm ci filled), --fast (gzip, not xz).
 * Returns the scratch directory and the artifact's path, set once `before` has run.
 */
export function buildOnce(artifact: 'deb' | 'tarball'): { scratch: () => string; path: () => string } {
  let scratch = '';
  let path = '';
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), `package-${artifact}-`));
    const release = join(scratch, 'release');
    const r = spawnSync(process.execPath, [join(repo, 'packaging', 'build.mjs'), '--out', release, '--offline', '--fast', '--only', artifact], {
      cwd: repo, encoding: 'utf8', env,
    });
    assert.equal(r.status, 0, `packaging/build.mjs:\n${r.stdout}${r.stderr}`);
    path = join(release, artifact === 'deb' ? `${name}_${version}_all.deb` : `${name}-${version}-linux.tar.gz`);
  }, { timeout: 300_000 });
  after(() => {
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });
  return { scratch: () => scratch, path: () => path };
}

export function check(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.error, undefined, `${what}: ${r.error?.message}`);
  assert.equal(r.status, 0, `${what} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Every path under `root`, relative to it, directories with a trailing "/". */
export function listing(root: string, dir = root): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const rel = relative(root, path);
    return lstatSync(path).isDirectory() ? [`${rel}/`, ...listing(root, path)] : [rel];
  });
}

/** Our own files must not bring the repository's tests, benchmarks or their data (dependencies' files are theirs). */
export function assertNoTestOrBenchData(files: string[], program: string): void {
  const ours = files.filter((f) => f.startsWith(`${program}/`) && !f.startsWith(`${program}/node_modules/`));
  const leaked = ours.filter((f) => /\/(test|bench)\/|\/testdata\/(?!dev\/|$)|\.map$|\.ts$/.test(f.slice(program.length)));
  assert.deepEqual(leaked, [], 'test or bench data, sources or source maps in the artifact');
  assert.ok(files.includes(`${program}/node_modules/piscina/package.json`), 'production dependencies are bundled');
  for (const dev of ['typescript', 'fast-json-patch', '@prometheus-io/lezer-promql', '@napi-rs/nice']) {
    assert.ok(!files.includes(`${program}/node_modules/${dev}/`), `${dev} (a dev or optional dependency) is not bundled`);
  }
}

/**
 * What an operator does first with an installed command: its version, `validate` of the shipped example
 * configuration (its /etc/kubernetes/admission paths read from the shipped example tree), the shipped AdmissionTest
 * suite, and `serve` until /readyz answers on loopback.
 */
export async function smokeTest(command: string, examples: string, scratch: string): Promise<void> {
  assert.equal(check(spawnSync(command, ['version'], { encoding: 'utf8', env }), 'version'), `${name} ${version}\n`);

  const config = join(scratch, `admission-config-${Math.random().toString(36).slice(2)}.yaml`);
  const node = join(examples, 'tests', 'node');
  writeFileSync(config, readFileSync(join(examples, 'admission-config.yaml'), 'utf8').replaceAll('/etc/kubernetes/admission', `${node}/etc/kubernetes/admission`));
  const validated = check(spawnSync(command, ['validate', '--admission-config', config, '-o', 'json'], { encoding: 'utf8', env }), 'validate');
  const plugins = (JSON.parse(validated) as { plugins: { plugin: string; counts: Record<string, number> }[] }).plugins;
  assert.deepEqual(plugins.map((p) => p.plugin).sort(), ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook']);
  assert.ok((plugins.find((p) => p.plugin === 'ValidatingAdmissionPolicy')?.counts['ValidatingAdmissionPolicy'] ?? 0) > 0, validated);

  assert.match(check(spawnSync(command, ['test', join(examples, 'tests')], { encoding: 'utf8', env }), 'test'), /\bpass/i);

  const daemon = spawn(command, ['serve', '--dev', '--secure-port', '0', '--health-bind-address', '127.0.0.1:0'], { env });
  let stderr = '';
  daemon.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  daemon.stdout.resume();
  const exited = new Promise<number | null>((resolve) => daemon.once('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.equal(daemon.exitCode, null, `serve exited ${daemon.exitCode}:\n${stderr}`);
      assert.ok(Date.now() < deadline, `no ready /readyz within 60 s:\n${stderr}`);
      const url = /"Serving health and metrics".*? url="([^"]+)"/.exec(stderr)?.[1];
      const status = url === undefined ? 0 : await fetch(new URL('/readyz', url)).then((r) => r.status, () => 0);
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    daemon.kill('SIGTERM');
  }
  assert.equal(await exited, 0, stderr);
}
