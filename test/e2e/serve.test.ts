// The real executable (dist/cmd/static-admissiond.js) as a child process: `serve` with an AdmissionConfiguration,
// its health/metrics listener, a live reload seen through /metrics, shutdown on SIGTERM; a bad initial manifest
// failing before any listener opens; JSON logs; and the `validate` and `hash` subcommands end to end.
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { copyFile, mkdir, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { generateDevCertificates } from '../../lib/server/dev-cert.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import {
  bindingYAML,
  contentHash,
  docs,
  lastConfigInfo,
  lastTimestamp,
  makeTempDir,
  minimalPolicySet,
  policyAndBinding,
  reloadsTotal,
  samplesOf,
  testAPIServerID,
  testAPIServerIDHash,
  valueOf,
  vapYAML,
  waitFor,
} from '../reload/helpers.js';

/** dist/test/e2e → the package root */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const executable = join(packageRoot, 'dist', 'cmd', 'static-admissiond.js');
const VAP = 'ValidatingAdmissionPolicy';

type Child = ChildProcessByStdio<null, Readable, Readable>;

interface Run {
  readonly child: Child;
  stdout: string;
  stderr: string;
  /** resolves when the process has exited */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<Child>();
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function start(args: readonly string[]): Run {
  const child = spawn(process.execPath, [executable, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: packageRoot });
  children.add(child);
  const run: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => { run.stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { run.stderr += d; });
  void run.exited.then(() => children.delete(child));
  return run;
}

async function exitOf(run: Run, timeoutMs = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    run.exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms; stderr:\n${run.stderr}`)), timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
  // the 'exit' event can precede the last 'data' of the pipes
  await Promise.all([streamEnd(run.child.stdout), streamEnd(run.child.stderr)]);
  return { ...result, stdout: run.stdout, stderr: run.stderr };
}

function streamEnd(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
}

/** Runs a subcommand to completion. */
function cli(args: readonly string[]): ReturnType<typeof exitOf> {
  return exitOf(start(args));
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: await res.text() };
}

/** The url of the klog text line `"Serving health and metrics" url="…"`. */
function healthURLFromText(stderr: string): string | undefined {
  return /"Serving health and metrics".*? url="([^"]+)"/.exec(stderr)?.[1];
}

/** A klog-quoted `key="…"` value of the first line that contains `msg`, unquoted. */
function klogValue(stderr: string, msg: string, key: string): string | undefined {
  const line = stderr.split('\n').find((l) => l.includes(JSON.stringify(msg)));
  const m = line === undefined ? null : new RegExp(` ${key}=("(?:[^"\\\\]|\\\\.)*")`).exec(line);
  return m ? (JSON.parse(m[1]!) as string) : undefined;
}


/** A temp dir with `policies/` holding `files` and `admission-config.yaml` pointing at it. */
async function layout(files: Record<string, string>): Promise<{ root: string; dir: string; config: string; cleanup: () => Promise<void> }> {
  const tmp = await makeTempDir('static-admissiond-e2e-');
  const dir = join(tmp.path, 'policies');
  await mkdir(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  const config = join(tmp.path, 'admission-config.yaml');
  await writeFile(config, admissionConfigYAML(dir));
  // a real serving pair for the admission listener, next to the configuration
  const certs = await generateDevCertificates({ parentDir: tmp.path });
  await copyFile(certs.certFile, join(tmp.path, 'serving.crt'));
  await copyFile(certs.keyFile, join(tmp.path, 'serving.key'));
  certs.cleanup();
  return { root: tmp.path, dir, config, cleanup: tmp.cleanup };
}

/** A loopback port this test listens on until it ends, so that the daemon cannot. */
async function heldPort(t: TestContext): Promise<number> {
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as AddressInfo).port;
}

/** The admission listener's flags for a layout: its serving pair, a free port. */
function tlsArgs(config: string): string[] {
  const root = dirname(config);
  return ['--tls-cert-file', join(root, 'serving.crt'), '--tls-private-key-file', join(root, 'serving.key'), '--secure-port', '0'];
}

function serveArgs(config: string, ...extra: string[]): string[] {
  return ['serve', '--admission-config', config, '--health-bind-address', '127.0.0.1:0', '--reload-interval', '100ms', '--apiserver-id', testAPIServerID, ...tlsArgs(config), ...extra];
}

const brokenSet = docs(vapYAML('p1.static.k8s.io'), bindingYAML('p1-binding.static.k8s.io', 'missing.static.k8s.io'));
const brokenMessage = (dir: string): string =>
  `failed to load static policy manifests from "${dir}": binding "p1-binding.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory`;

describe('serve', () => {
  let fixture: Awaited<ReturnType<typeof layout>>;
  let daemon: Run;
  let url: string;
  const goodHash = contentHash(minimalPolicySet);

  before(async () => {
    fixture = await layout({ 'p.yaml': minimalPolicySet });
    daemon = start(serveArgs(fixture.config));
    url = await waitFor('the health URL in the log', () => {
      if (daemon.child.exitCode !== null) throw new Error(`serve exited with ${daemon.child.exitCode}:\n${daemon.stderr}`);
      return healthURLFromText(daemon.stderr);
    }, 15_000);
  });

  after(async () => {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
    await fixture.cleanup();
  });

  test('the health URL is the loopback listener with the port it was given', () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(url).port, '0');
  });

  test('/readyz is 200 ok and lists the loaded plugin', async () => {
    assert.deepEqual(await get(`${url}/readyz`), { status: 200, body: 'ok' });
    const verbose = await get(`${url}/readyz?verbose`);
    assert.equal(verbose.status, 200);
    assert.ok(verbose.body.split('\n').includes(`[+]manifests-loaded/${VAP} ok`), verbose.body);
    assert.match(verbose.body, /readyz check passed/);
  });

  test('/livez is 200', async () => {
    const livez = await get(`${url}/livez`);
    assert.equal(livez.status, 200);
    assert.equal(livez.body, 'ok');
  });

  test('/metrics carries the reload series of the initial load', async () => {
    const { status, body } = await get(`${url}/metrics`);
    assert.equal(status, 200);
    assert.ok(body.split('\n').includes(`${reloadsTotal}{status="success",plugin="${VAP}",apiserver_id_hash="${testAPIServerIDHash}"} 1`), body);
    assert.ok((valueOf(body, lastTimestamp, { status: 'success', plugin: VAP, apiserver_id_hash: testAPIServerIDHash }) ?? 0) > 1e9);
    assert.deepEqual(samplesOf(body, lastConfigInfo).map((s) => s.labels), [{ plugin: VAP, apiserver_id_hash: testAPIServerIDHash, hash: goodHash }]);
  });

  test('`hash DIR` prints the hash the metric carries', async () => {
    const r = await cli(['hash', fixture.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${goodHash}\n`);
    const metrics = (await get(`${url}/metrics`)).body;
    assert.equal(samplesOf(metrics, lastConfigInfo)[0]?.labels.hash, r.stdout.trim());
  });

  test('a changed file shows up in last_config_info', async () => {
    const changed = policyAndBinding('p1', "object.metadata.name != 'changed'");
    const newHash = contentHash(changed);
    await writeFile(join(fixture.dir, 'p.yaml.tmp'), changed);
    await rename(join(fixture.dir, 'p.yaml.tmp'), join(fixture.dir, 'p.yaml'));
    const body = await waitFor('last_config_info to carry the new hash', async () => {
      const m = (await get(`${url}/metrics`)).body;
      return samplesOf(m, lastConfigInfo).some((s) => s.labels.hash === newHash) ? m : undefined;
    }, 10_000, 50);
    assert.deepEqual(samplesOf(body, lastConfigInfo).map((s) => s.labels.hash), [newHash], 'the old hash series is gone');
    assert.equal(valueOf(body, reloadsTotal, { status: 'success', plugin: VAP }), 2);
    assert.equal(valueOf(body, reloadsTotal, { status: 'failure', plugin: VAP }), undefined);
    const h = await cli(['hash', fixture.dir]);
    assert.equal(h.stdout.trim(), newHash);
    assert.match(daemon.stderr, /"reloaded manifest config" plugin="ValidatingAdmissionPolicy" dir=/);
  });

  test('a broken file counts failures and keeps the last good hash', async () => {
    const before = (await get(`${url}/metrics`)).body;
    const lastGood = samplesOf(before, lastConfigInfo)[0]!.labels.hash;
    await writeFile(join(fixture.dir, 'broken.yaml.tmp'), brokenSet.replace(/p1/g, 'p9'));
    await rename(join(fixture.dir, 'broken.yaml.tmp'), join(fixture.dir, 'broken.yaml'));
    const body = await waitFor('a failure to be counted', async () => {
      const m = (await get(`${url}/metrics`)).body;
      return (valueOf(m, reloadsTotal, { status: 'failure', plugin: VAP }) ?? 0) >= 1 ? m : undefined;
    }, 10_000, 50);
    assert.deepEqual(samplesOf(body, lastConfigInfo).map((s) => s.labels.hash), [lastGood]);
    assert.deepEqual(await get(`${url}/readyz`), { status: 200, body: 'ok' }, 'still ready: the last good snapshot serves');
    assert.match(daemon.stderr, /"reloading manifest config" err="/);
  });

  test('SIGTERM: exits 0', async () => {
    daemon.child.kill('SIGTERM');
    const r = await exitOf(daemon);
    assert.equal(r.signal, null);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /"Shutting down"/);
  });
});

describe('serve: failures at start', () => {
  test('an invalid initial manifest exits 1 before opening any listener', async (t) => {
    const fixture = await layout({ 'p.yaml': brokenSet });
    t.after(fixture.cleanup);
    // Hold the port the daemon is told to use: had it tried to listen, it would report that instead.
    const port = await heldPort(t);
    const r = await exitOf(start(['serve', '--admission-config', fixture.config, '--health-bind-address', `127.0.0.1:${port}`, '--apiserver-id', testAPIServerID, ...tlsArgs(fixture.config)]));
    assert.equal(r.code, 1, r.stderr);
    // klog quotes the err value; unquoted, it is upstream's message
    const err = klogValue(r.stderr, 'Failed to load static manifests', 'err');
    assert.equal(err, brokenMessage(fixture.dir), r.stderr);
    assert.ok(r.stderr.includes(`failed to load static policy manifests from \\"${fixture.dir}\\": `), r.stderr);
    assert.doesNotMatch(r.stderr, /Serving health and metrics|Failed to start the health listener/);
  });

  test('an invalid initial manifest with JSON logs: err is upstream\'s message', async (t) => {
    const fixture = await layout({ 'p.yaml': brokenSet });
    t.after(fixture.cleanup);
    const r = await exitOf(start(serveArgs(fixture.config, '--logging-format', 'json')));
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const failure = lines.find((l) => l.msg === 'Failed to load static manifests');
    assert.ok(failure, r.stderr);
    assert.equal(failure.err, brokenMessage(fixture.dir));
    assert.equal(failure.plugin, VAP);
  });

  test('the feature gate off: the configuration is refused with upstream\'s message, exit 1', async (t) => {
    const fixture = await layout({ 'p.yaml': minimalPolicySet });
    t.after(fixture.cleanup);
    const r = await exitOf(start(serveArgs(fixture.config, '--feature-gates', 'ManifestBasedAdmissionControlConfig=false')));
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes('staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled'), r.stderr);
    assert.doesNotMatch(r.stderr, /Serving health and metrics/);
  });

  test('a health address already in use exits 1 with the listen error, and the admission listener never opens', async (t) => {
    const fixture = await layout({ 'p.yaml': minimalPolicySet });
    t.after(fixture.cleanup);
    const address = `127.0.0.1:${await heldPort(t)}`;
    const args = serveArgs(fixture.config, '--logging-format', 'json');
    args[args.indexOf('--health-bind-address') + 1] = address;
    const r = await exitOf(start(args));
    assert.equal(r.code, 1, r.stderr);
    const failure = r.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg?: string; err?: string; address?: string })
      .find((e) => e.msg === 'Failed to start the health listener');
    assert.ok(failure, r.stderr);
    assert.equal(failure.address, address);
    assert.match(failure.err ?? '', /EADDRINUSE/);
    assert.doesNotMatch(r.stderr, /Serving health and metrics|Serving admission webhooks/);
  });
});

describe('serve --logging-format json', () => {
  test('every stderr line is a JSON object with ts and msg', async (t) => {
    const fixture = await layout({ 'p.yaml': minimalPolicySet });
    t.after(fixture.cleanup);
    const daemon = start(serveArgs(fixture.config, '--logging-format', 'json'));
    t.after(() => {
      if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
    });
    const url = await waitFor('the JSON "Serving health and metrics" line', () => {
      if (daemon.child.exitCode !== null) throw new Error(`serve exited with ${daemon.child.exitCode}:\n${daemon.stderr}`);
      for (const line of daemon.stderr.split('\n')) {
        if (!line.includes('Serving health and metrics')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'Serving health and metrics') return entry.url;
      }
      return undefined;
    }, 15_000);
    assert.equal((await get(`${url}/readyz`)).status, 200);
    daemon.child.kill('SIGTERM');
    const r = await exitOf(daemon);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    assert.ok(lines.length >= 3, r.stderr);
    for (const line of lines) {
      let entry: Record<string, unknown>;
      assert.doesNotThrow(() => { entry = JSON.parse(line) as Record<string, unknown>; }, `not JSON: ${line}`);
      assert.equal(typeof entry!.ts, 'number', line);
      assert.equal(typeof entry!.msg, 'string', line);
    }
    const msgs = lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    for (const m of ['Starting static-admissiond', 'Loaded manifest-based admission policy configurations', 'Serving health and metrics', 'Shutting down']) {
      assert.ok(msgs.includes(m), `missing ${m} in ${JSON.stringify(msgs)}`);
    }
    // the start names node and its flags (this test starts node with none; the command's #! line names its own)
    const starting = lines.map((l) => JSON.parse(l) as { msg: string; node?: string; nodeFlags?: unknown }).find((e) => e.msg === 'Starting static-admissiond')!;
    assert.equal(starting.node, process.version);
    assert.deepEqual(starting.nodeFlags, []);
  });
});

describe('validate and hash', () => {
  test('validate -o json: one JSON object, exit 0', async (t) => {
    const fixture = await layout({ 'p.yaml': minimalPolicySet });
    t.after(fixture.cleanup);
    const r = await cli(['validate', '--admission-config', fixture.config, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.endsWith('\n'), true);
    assert.equal(r.stdout.trimEnd().split('\n').length, 1, 'exactly one line on stdout');
    assert.deepEqual(JSON.parse(r.stdout), {
      plugins: [{
        plugin: VAP,
        dir: fixture.dir,
        hash: contentHash(minimalPolicySet),
        counts: { ValidatingAdmissionPolicy: 1, ValidatingAdmissionPolicyBinding: 1 },
        warnings: ['ValidatingAdmissionPolicy "p1.static.k8s.io" can match requests in kube-system and kube-node-lease, which the default registration does not send to static-admissiond: it is not enforced there (in-tree it would be). Register with --include-system-namespaces to send them.'],
      }],
      errors: [],
    });
    // the registration sends those namespaces too: nothing to warn about
    const included = await cli(['validate', '--admission-config', fixture.config, '-o', 'json', '--include-system-namespaces']);
    assert.deepEqual((JSON.parse(included.stdout) as { plugins: Array<{ warnings: string[] }> }).plugins[0]!.warnings, []);
  });

  test('validate -o json with a broken directory: upstream\'s message, exit 1', async (t) => {
    const fixture = await layout({ 'p.yaml': brokenSet });
    t.after(fixture.cleanup);
    const r = await cli(['validate', '--admission-config', fixture.config, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout.trimEnd().split('\n').length, 1, 'exactly one line on stdout');
    const report = JSON.parse(r.stdout) as { plugins: unknown[]; errors: Array<{ plugin: string; message: string }> };
    assert.deepEqual(report.plugins, []);
    assert.equal(report.errors.length, 1);
    assert.deepEqual(report.errors[0], { plugin: VAP, message: brokenMessage(fixture.dir) });
  });

  test('validate (text) with an empty directory reports hash ""', async (t) => {
    const fixture = await layout({});
    t.after(fixture.cleanup);
    const r = await cli(['validate', '--admission-config', fixture.config, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { plugins: Array<{ hash: string; counts: Record<string, number> }> };
    assert.equal(report.plugins[0]?.hash, '');
    assert.deepEqual(report.plugins[0]?.counts, {});
  });

  test('hash DIR: upstream\'s content hash over the selected files in name order', async (t) => {
    const a = policyAndBinding('a');
    const b = policyAndBinding('b');
    const fixture = await layout({ 'b.yml': b, 'a.yaml': a, 'notes.txt': 'ignored', 'c.yaml.tmp': 'ignored', 'empty.json': '' });
    t.after(fixture.cleanup);
    const r = await cli(['hash', fixture.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${contentHash(a, b)}\n`);
  });

  test('hash of a directory with no content prints an empty line', async (t) => {
    const fixture = await layout({ 'notes.txt': 'x' });
    t.after(fixture.cleanup);
    const r = await cli(['hash', fixture.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '\n');
  });

  test('hash of a missing directory: upstream\'s read error, exit 1', async (t) => {
    const fixture = await layout({});
    t.after(fixture.cleanup);
    const missing = join(fixture.root, 'nope');
    const r = await cli(['hash', missing]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.includes(`failed to read manifest directory "${missing}": `), r.stderr);
  });
});
