// Checks the shipped systemd unit, kubelet drop-in, sysusers entry and example AdmissionConfiguration:
// the properties the daemon's deployment relies on, the /readyz probe's behaviour, and (when
// systemd-analyze is installed) that systemd itself accepts the unit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { one, parseUnit, words } from './unit-file.js';

// dist/test/systemd/unit.test.js -> repository root is ../../../
const repoFile = (name: string): string => fileURLToPath(new URL(`../../../systemd/${name}`, import.meta.url));
const read = (name: string): string => readFileSync(repoFile(name), 'utf8');

// DESIGN.md defaults: --secure-port 9443, --health-bind-address 127.0.0.1:9444.
const ADMISSION_PORT = 9443;
const HEALTH_PORT = 9444;
const MANIFEST_ROOT = '/etc/kubernetes/admission';

const unitText = read('static-admissiond.service');
const unit = parseUnit(unitText);

/** ExecStart= as argv (no quoting is used on that line). */
const execStart = one(unit, 'Service', 'ExecStart').split(/\s+/);
const flag = (name: string): string => {
  const arg = execStart.find((a) => a.startsWith(`--${name}=`));
  assert.ok(arg, `ExecStart= should pass --${name}=`);
  return arg.slice(name.length + 3);
};

/** The readiness probe: ExecStartPost=<node> -e '<script>'. */
function probe(): { command: string; script: string } {
  const m = /^(\S+) -e '([^']*)'$/s.exec(one(unit, 'Service', 'ExecStartPost'));
  assert.ok(m, 'ExecStartPost= should be a node -e one-liner in single quotes');
  return { command: m[1]!, script: m[2]! };
}

/** ReadOnlyPaths= entries without the optional "-" (ignore if missing) / "+" prefixes. */
const readOnlyPaths = (): string[] => words(unit, 'Service', 'ReadOnlyPaths').map((p) => p.replace(/^[-+]+/, ''));
const isCovered = (file: string, dirs: string[]): boolean =>
  dirs.some((d) => file === d || file.startsWith(d.endsWith('/') ? d : `${d}/`));

test('unit starts the daemon before the kubelet and never stops restarting it', () => {
  assert.ok(words(unit, 'Unit', 'Before').includes('kubelet.service'), 'Before=kubelet.service');
  assert.ok(!words(unit, 'Unit', 'Requires').includes('kubelet.service'));
  assert.ok(words(unit, 'Install', 'WantedBy').includes('multi-user.target'), 'WantedBy=multi-user.target');
  assert.equal(one(unit, 'Unit', 'StartLimitIntervalSec'), '0');
  assert.equal(one(unit, 'Service', 'Type'), 'exec');
  assert.equal(one(unit, 'Service', 'Restart'), 'always');
  assert.equal(one(unit, 'Service', 'RestartSec'), '1');
});

test('ExecStart runs "serve" with the admission config and the serving certificate', () => {
  assert.equal(execStart[0], '/usr/bin/static-admissiond');
  assert.equal(execStart[1], 'serve');
  assert.equal(flag('admission-config'), `${MANIFEST_ROOT}/admission-config.yaml`);
  for (const name of ['tls-cert-file', 'tls-private-key-file']) {
    assert.ok(flag(name).startsWith('/etc/kubernetes/pki/static-admissiond/'), `--${name} under the cert dir`);
  }
});

test('ExecStartPost probes /readyz on the health port with a deadline', () => {
  const { command, script } = probe();
  assert.equal(posix.basename(command), 'node');
  assert.ok(script.includes(`"http://127.0.0.1:${HEALTH_PORT}/readyz"`), 'probes http://127.0.0.1:9444/readyz');
  assert.match(script, /Date\.now\(\)\s*\+\s*\d+/, 'has a deadline');
  // systemd would interpret these inside the command line ($VAR, %specifier, \escape).
  assert.doesNotMatch(script, /[$%\\]/);
  const timeoutStart = Number(one(unit, 'Service', 'TimeoutStartSec'));
  const deadlineMs = Number(/Date\.now\(\)\s*\+\s*(\d+)/.exec(script)![1]);
  assert.ok(deadlineMs < timeoutStart * 1000, 'probe deadline below TimeoutStartSec=');
});

/** Runs the probe script against `url` with a `deadlineMs` deadline; resolves with its exit code. */
async function runProbe(url: string, deadlineMs: number): Promise<{ code: number | null; stderr: string }> {
  const { script } = probe();
  const patched = script
    .replace(`"http://127.0.0.1:${HEALTH_PORT}/readyz"`, JSON.stringify(url))
    .replace(/Date\.now\(\)\s*\+\s*\d+/, `Date.now()+${deadlineMs}`);
  const child = spawn(process.execPath, ['-e', patched], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr };
}

test('readiness probe waits through 503s and exits 0 once /readyz answers 200', async () => {
  // Ready from the third probe on: counted, not timed, so a slow child start cannot skip the 503s.
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.statusCode = paths.length <= 2 ? 503 : 200;
    res.end(res.statusCode === 200 ? 'ok' : 'not ready');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const { code, stderr } = await runProbe(`http://127.0.0.1:${port}/readyz`, 10_000);
    assert.equal(code, 0, stderr);
    assert.equal(paths.length, 3, 'retried after each 503, stopped at the first 200');
    assert.ok(paths.every((p) => p === '/readyz'));
  } finally {
    server.close();
  }
});

test('readiness probe fails after its deadline when the daemon never gets ready', async () => {
  const server = createServer((_req, res) => {
    res.statusCode = 503;
    res.end('not ready');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const started = Date.now();
    const { code, stderr } = await runProbe(`http://127.0.0.1:${port}/readyz`, 700);
    assert.equal(code, 1);
    assert.match(stderr, /not ready/);
    assert.ok(Date.now() - started >= 700);
  } finally {
    server.close();
  }
  // Nothing listening at all (connection refused) is retried the same way, then fails.
  const { code } = await runProbe('http://127.0.0.1:1/readyz', 300);
  assert.equal(code, 1);
});

test('hardening: no MemoryDenyWriteExecute (V8 JIT), no privileges, read-only system', () => {
  for (const [name, section] of unit) {
    assert.ok(!section.has('MemoryDenyWriteExecute'), `[${name}] must not set MemoryDenyWriteExecute= (V8 JIT)`);
  }
  const user = one(unit, 'Service', 'User');
  assert.notEqual(user, 'root');
  assert.notEqual(user, '0');
  assert.deepEqual(unit.get('Service')?.get('CapabilityBoundingSet'), [], 'empty CapabilityBoundingSet=');
  assert.equal(one(unit, 'Service', 'NoNewPrivileges'), 'yes');
  assert.equal(one(unit, 'Service', 'ProtectSystem'), 'strict');
  assert.equal(one(unit, 'Service', 'ProtectProc'), 'invisible');
  assert.equal(one(unit, 'Service', 'UMask'), '0077');
  assert.deepEqual(words(unit, 'Service', 'RestrictAddressFamilies').sort(), ['AF_INET', 'AF_INET6', 'AF_UNIX']);
  // V8 calls pkey_alloc at start-up; @pkey is not part of @system-service, and without it the
  // filter kills node with SIGSYS before it runs any JavaScript.
  const filter = words(unit, 'Service', 'SystemCallFilter');
  assert.ok(filter.includes('@system-service') && filter.includes('@pkey'), `SystemCallFilter=${filter.join(' ')}`);
});

test('memory: glibc malloc gives freed memory back, the main heap is capped, the unit is bounded (README.md "Memory")', () => {
  const env = new Map(words(unit, 'Service', 'Environment').map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] as const));
  assert.equal(env.get('MALLOC_ARENA_MAX'), '2');
  // a fixed threshold: glibc would otherwise raise it to each large block freed, and keep the next ones in its arenas
  assert.equal(env.get('MALLOC_MMAP_THRESHOLD_'), '131072');
  assert.equal(env.get('MALLOC_TRIM_THRESHOLD_'), '131072');
  assert.match(env.get('NODE_OPTIONS') ?? '', /^--max-old-space-size=\d+$/);
  const bytes = (v: string): number => Number(/^(\d+)([KMG]?)$/.exec(v)![1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[/^(\d+)([KMG]?)$/.exec(v)![2]!]!;
  const high = bytes(one(unit, 'Service', 'MemoryHigh'));
  const max = bytes(one(unit, 'Service', 'MemoryMax'));
  // the hostile-input bench's peak stays below 1 GiB with these settings: reclaim starts above it, the kill far above
  assert.ok(high >= 1024 ** 3 && max > high, `MemoryHigh=${high} MemoryMax=${max}`);
});

test('ReadOnlyPaths covers the manifest dir and every file ExecStart names', () => {
  const dirs = readOnlyPaths();
  assert.ok(dirs.includes(MANIFEST_ROOT), `ReadOnlyPaths=${dirs.join(' ')}`);
  for (const name of ['admission-config', 'tls-cert-file', 'tls-private-key-file']) {
    assert.ok(isCovered(flag(name), dirs), `--${name}=${flag(name)} is under ReadOnlyPaths=`);
  }
});

test('network: bind only to the DESIGN.md default ports, reach only loopback', () => {
  const allowed = words(unit, 'Service', 'SocketBindAllow').map((v) => {
    const m = /^(?:(?:ipv4|ipv6):)?(?:tcp:)?(\d+)$/.exec(v);
    assert.ok(m, `SocketBindAllow=${v} should name one TCP port`);
    return Number(m[1]);
  });
  assert.deepEqual(allowed.sort((a, b) => a - b), [ADMISSION_PORT, HEALTH_PORT]);
  assert.deepEqual(words(unit, 'Service', 'SocketBindDeny'), ['any']);
  assert.deepEqual(words(unit, 'Service', 'IPAddressAllow'), ['localhost']);
  assert.deepEqual(words(unit, 'Service', 'IPAddressDeny'), ['any']);
});

test('kubelet drop-in wants and orders after the daemon', () => {
  const dropIn = parseUnit(read('kubelet-wants-static-admissiond.conf'));
  assert.deepEqual([...dropIn.keys()], ['Unit']);
  assert.ok(words(dropIn, 'Unit', 'Wants').includes('static-admissiond.service'));
  assert.ok(words(dropIn, 'Unit', 'After').includes('static-admissiond.service'));
});

test('sysusers entry creates the unit\'s User=', () => {
  const entries = read('static-admissiond.sysusers.conf')
    .split('\n')
    .filter((l) => /^u\s/.test(l))
    .map((l) => l.split(/\s+/)[1]);
  assert.deepEqual(entries, [one(unit, 'Service', 'User')]);
  assert.equal(one(unit, 'Service', 'Group'), one(unit, 'Service', 'User'));
});

test('example AdmissionConfiguration configures the four plugins with their own manifest dirs', () => {
  const config = parse(read('admission-config.yaml')) as {
    apiVersion: string;
    kind: string;
    plugins: { name: string; configuration: Record<string, unknown> }[];
  };
  assert.equal(config.apiVersion, 'apiserver.config.k8s.io/v1');
  assert.equal(config.kind, 'AdmissionConfiguration');
  const expected: Record<string, { kind: string; fields: string[]; dir: string }> = {
    ValidatingAdmissionWebhook: { kind: 'WebhookAdmissionConfiguration', fields: ['kubeConfigFile', 'staticManifestsDir'], dir: 'validating' },
    MutatingAdmissionWebhook: { kind: 'WebhookAdmissionConfiguration', fields: ['kubeConfigFile', 'staticManifestsDir'], dir: 'mutating' },
    ValidatingAdmissionPolicy: { kind: 'ValidatingAdmissionPolicyConfiguration', fields: ['staticManifestsDir'], dir: 'policies' },
    MutatingAdmissionPolicy: { kind: 'MutatingAdmissionPolicyConfiguration', fields: ['staticManifestsDir'], dir: 'mutating-policies' },
  };
  assert.deepEqual(config.plugins.map((p) => p.name).sort(), Object.keys(expected).sort());
  const roPaths = readOnlyPaths();
  for (const { name, configuration } of config.plugins) {
    const want = expected[name]!;
    const { apiVersion, kind, ...fields } = configuration;
    assert.equal(apiVersion, 'apiserver.config.k8s.io/v1', name);
    assert.equal(kind, want.kind, name);
    // Plugin configurations are decoded strictly upstream: no other fields.
    assert.deepEqual(Object.keys(fields).sort(), want.fields.sort(), name);
    assert.equal(fields['staticManifestsDir'], `${MANIFEST_ROOT}/${want.dir}`, name);
    for (const path of Object.values(fields)) {
      assert.ok(typeof path === 'string' && posix.isAbsolute(path), `${name}: absolute path`);
      assert.ok(isCovered(path, roPaths), `${name}: ${path} readable through ReadOnlyPaths=`);
    }
  }
});

const haveSystemdAnalyze = !spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).error;

/** A throw-away copy of the unit whose commands point at executables that exist here. */
function withTempUnit<T>(fn: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'static-admissiond-unit-'));
  try {
    const path = join(dir, 'static-admissiond.service');
    const text = unitText
      .replace(/^ExecStart=\/usr\/bin\/static-admissiond /m, `ExecStart=${process.execPath} `)
      .replace(/^ExecStartPost=node /m, `ExecStartPost=${process.execPath} `);
    assert.notEqual(text, unitText);
    writeFileSync(path, text);
    return fn(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('systemd-analyze verify accepts the unit', (t) => {
  if (!haveSystemdAnalyze) {
    t.skip('systemd-analyze not installed');
    return;
  }
  withTempUnit((path) => {
    const r = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
    assert.equal(r.status, 0, `systemd-analyze verify:\n${r.stdout}${r.stderr}`);
  });
});

test('systemd-analyze security rates the unit below 2.0 exposure', (t) => {
  if (!haveSystemdAnalyze) {
    t.skip('systemd-analyze not installed');
    return;
  }
  withTempUnit((path) => {
    const r = spawnSync('systemd-analyze', ['security', '--offline=yes', path], { encoding: 'utf8' });
    const m = /Overall exposure level for \S+: (\d+(?:\.\d+)?)/.exec(r.stdout);
    if (!m) {
      t.skip(`offline security analysis unsupported here (systemd < 250?): ${r.stderr.trim()}`);
      return;
    }
    assert.ok(Number(m[1]) < 2, `exposure ${m[1]}:\n${r.stdout}`);
  });
});
