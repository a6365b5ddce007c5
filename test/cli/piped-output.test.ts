// Every command's output reaches a pipe whole, however large and however slowly it is read: the built executable
// runs as a child process whose stdout (or stderr) goes into a reader that sleeps 1 s before it reads, and what
// arrives is compared with what the same command writes to a file. Before, process.exit dropped all but the first
// 64 KiB (a pipe's buffer) of what was still queued.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { tempDir } from '../helpers/fs.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { executable, root } from '../e2e/helpers.js';

const MiB = 1 << 20;

interface Captured {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

let tmp: { dir: string; cleanup: () => void };
before(() => {
  tmp = tempDir('sad-piped-');
});
after(() => tmp.cleanup());

/**
 * Runs the executable with `args` from bash: `stream` into a pipe whose reader waits 1 s before reading, the other
 * stream to a file; or, with `stream` undefined, both to files (what a file redirect gets).
 */
async function capture(args: readonly string[], stream?: 'stdout' | 'stderr'): Promise<Captured> {
  const out = join(tmp.dir, 'out');
  const err = join(tmp.dir, 'err');
  const slowReader = (file: string): string => `{ sleep 1; cat > '${file}'; }`;
  const script = stream === 'stdout'
    ? `node '${executable}' "$@" 2> '${err}' | ${slowReader(out)}; exit "\${PIPESTATUS[0]}"`
    : stream === 'stderr'
      ? `{ node '${executable}' "$@" 2>&1 > '${out}' | ${slowReader(err)}; exit "\${PIPESTATUS[0]}"; }`
      : `node '${executable}' "$@" > '${out}' 2> '${err}'`;
  let code = 0;
  try {
    await promisify(execFile)('bash', ['-c', script, 'bash', ...args], { cwd: root, timeout: 60_000 });
  } catch (e) {
    const failure = e as { code?: unknown };
    if (typeof failure.code !== 'number') throw e;
    code = failure.code;
  }
  return { code, stdout: readFileSync(out), stderr: readFileSync(err) };
}

/** The command through the slow pipe and to a file: the same exit code and the same bytes. */
async function pipedWhole(args: readonly string[], stream: 'stdout' | 'stderr', expectedCode = 0): Promise<Buffer> {
  const piped = await capture(args, stream);
  const filed = await capture(args);
  assert.equal(piped.code, expectedCode, piped.stderr.toString('utf8').slice(0, 2000));
  assert.equal(filed.code, expectedCode);
  assert.equal(piped[stream].length, filed[stream].length, `${stream} through the slow pipe has the redirect's byte count`);
  assert.ok(piped[stream].equals(filed[stream]), `${stream} through the slow pipe is the redirect's`);
  return piped[stream];
}

/**
 * A directory whose load error is over 1.2 MiB: 1,300 unknown fields of 1,000 characters each, all named in one strict
 * decoding error. (One 1.2 MiB key would not do: go-yaml v2 takes no key longer than 1,024 characters, scannerc.go
 * yaml_simple_key_is_valid, so upstream reports a short "could not find expected ':'" for it.)
 */
function hugeErrorDir(): { dir: string; field: string } {
  const dir = join(tmp.dir, 'huge-error');
  cpSync(join(root, 'testdata/dev/policies'), dir, { recursive: true });
  const fields = Array.from({ length: 1300 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(996)}`);
  const file = join(dir, 'deny-privileged.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('  failurePolicy: Fail\n', `  failurePolicy: Fail\n${fields.map((f) => `  ${f}: 1\n`).join('')}`));
  return { dir, field: fields[0]! };
}

test('review: a 1.6 MiB mutated object (-o yaml-object) and a response (-o json) reach a slow pipe whole', async () => {
  const review = JSON.parse(readFileSync(join(root, 'testdata/dev/requests/configmap.json'), 'utf8')) as { request: { object: { data: Record<string, string> } } };
  review.request.object.data = Object.fromEntries(Array.from({ length: 15_000 }, (_, i) => [`k${i}`, 'v'.repeat(100)]));
  const file = join(tmp.dir, 'big-configmap.json');
  writeFileSync(file, JSON.stringify(review));
  const yaml = await pipedWhole(['review', '--dev', '--operation', 'mutate', '-o', 'yaml-object', file], 'stdout');
  assert.ok(yaml.length > MiB, `${yaml.length} bytes`);
  const object = parseYaml(yaml.toString('utf8')) as { metadata: { labels: Record<string, string> }; data: Record<string, string> };
  assert.equal(Object.keys(object.data).length, 15_000);
  assert.equal(object.metadata.labels['team'], 'unassigned');
  // its standard input read whole too
  const json = await pipedWhole(['review', '--dev', '--operation', 'mutate', file], 'stdout');
  assert.equal((JSON.parse(json.toString('utf8')) as { response: { allowed: boolean } }).response.allowed, true);
});

test('test: 1.2 MiB of -o json and -o junit reach a slow pipe whole', async () => {
  const dir = join(tmp.dir, 'suite');
  cpSync(join(root, 'testdata/dev/mutating-policies'), join(dir, 'mutating-policies'), { recursive: true });
  const cases = Array.from({ length: 500 }, (_, i) => ({
    name: `case ${i} ${'n'.repeat(2500)}`,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' } },
    expect: { allowed: true, patched: true },
  }));
  const suite = { apiVersion: 'static-admissiond.io/v1alpha1', kind: 'AdmissionTest', metadata: { name: 'piped' }, admission: { manifests: { MutatingAdmissionPolicy: 'mutating-policies' } }, cases };
  writeFileSync(join(dir, 'admission-test.yaml'), JSON.stringify(suite));
  // the reports carry durations: the same length is not promised between runs, so each is checked whole by parsing
  const json = await capture(['test', '-o', 'json', dir], 'stdout');
  assert.equal(json.code, 0, json.stderr.toString('utf8'));
  assert.ok(json.stdout.length > MiB, `${json.stdout.length} bytes`);
  const report = JSON.parse(json.stdout.toString('utf8')) as { passed: number; suites: Array<{ cases: Array<{ name: string }> }> };
  assert.equal(report.passed, 500);
  assert.equal(report.suites[0]!.cases.at(-1)!.name, cases.at(-1)!.name);
  const junit = await capture(['test', '-o', 'junit', dir], 'stdout');
  assert.equal(junit.code, 0);
  const xml = junit.stdout.toString('utf8');
  assert.ok(junit.stdout.length > MiB, `${junit.stdout.length} bytes`);
  assert.equal(xml.match(/<testcase /g)?.length, 500);
  assert.match(xml, /<\/testsuite>\n<\/testsuites>\n$/);
});

test('validate: a 1.2 MiB -o json report reaches a slow pipe whole, exit 1', async () => {
  const { dir, field } = hugeErrorDir();
  const out = await pipedWhole(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir, '-o', 'json'], 'stdout', 1);
  assert.ok(out.length > 1.2 * MiB, `${out.length} bytes`);
  const report = JSON.parse(out.toString('utf8')) as { errors: Array<{ message: string }> };
  assert.ok(report.errors[0]!.message.includes(`strict decoding error: unknown field "spec.${field}"`));
});

test('serve: a 1.2 MiB startup error reaches a slow stderr pipe whole, exit 1', async () => {
  const { dir, field } = hugeErrorDir();
  const config = join(tmp.dir, 'huge-error-config.yaml');
  writeFileSync(config, admissionConfigYAML(dir));
  const args = ['serve', '--admission-config', config, '--tls-cert-file', '/nonexistent', '--tls-private-key-file', '/nonexistent', '--logging-format', 'json'];
  const piped = await capture(args, 'stderr');
  const filed = await capture(args);
  assert.equal(piped.code, 1);
  assert.equal(filed.code, 1);
  // log lines differ in their timestamps only
  const untimed = (b: Buffer): string => b.toString('utf8').replace(/"ts":[^,]*,/g, '');
  assert.equal(untimed(piped.stderr).length, untimed(filed.stderr).length);
  assert.equal(untimed(piped.stderr), untimed(filed.stderr));
  const lines = piped.stderr.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; err?: string });
  const failure = lines.find((l) => l.msg === 'Failed to load static manifests');
  assert.ok(failure?.err?.includes(`unknown field "spec.${field}"`), 'the whole error is logged');
});

test('registration: 2.8 MiB of YAML (a 1 MiB CA bundle in each webhook) reaches a slow pipe whole', async () => {
  const ca = await createCertificateAuthority('piped output test CA');
  const caFile = join(tmp.dir, 'bundle.crt');
  writeFileSync(caFile, ca.certPEM.repeat(Math.ceil(MiB / ca.certPEM.length)));
  const out = await pipedWhole(['registration', '--dev', '--ca-file', caFile], 'stdout');
  assert.ok(out.length > 2 * MiB, `${out.length} bytes`);
  const docs = parseAllDocuments(out.toString('utf8')).map((d) => d.toJS() as { kind: string; webhooks: Array<{ clientConfig: { caBundle: string } }> });
  assert.deepEqual(docs.map((d) => d.kind), ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
  for (const d of docs) assert.equal(Buffer.from(d.webhooks[0]!.clientConfig.caBundle, 'base64').toString('utf8'), readFileSync(caFile, 'utf8'));
});

test('replay: 1.3 MiB of -o json reaches a slow pipe whole, as a file redirect gets it', async () => {
  // 1,200 audited creates of privileged pods, each by a user with 1 KiB of groups: every result names the user
  const groups = Array.from({ length: 32 }, (_, i) => `group-${i}-${'g'.repeat(24)}`);
  const pod = (name: string, resourceVersion?: string): Record<string, unknown> => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: 'team', ...(resourceVersion === undefined ? {} : { resourceVersion }) },
    spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] },
  });
  const events = Array.from({ length: 1_200 }, (_, i) => JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `piped-${i}`, stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/team/pods', verb: 'create', user: { username: 'alice', groups },
    objectRef: { resource: 'pods', namespace: 'team', name: `p${i}`, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 }, requestObject: pod(`p${i}`), responseObject: pod(`p${i}`, String(100 + i)),
  }));
  const log = join(tmp.dir, 'audit.log');
  writeFileSync(log, events.join('\n') + '\n');
  const config = join(tmp.dir, 'replay-config.yaml');
  writeFileSync(config, admissionConfigYAML(join(root, 'testdata/dev/policies')));
  const out = await pipedWhole(['replay', '--workers', '0', '-o', 'json', '--admission-config', config, log], 'stdout');
  assert.ok(out.length > MiB, `${out.length} bytes`);
  const report = JSON.parse(out.toString('utf8')) as { results: Array<{ auditID: string; result: string }> };
  assert.equal(report.results.length, 1_200);
  assert.equal(report.results.at(-1)!.auditID, 'piped-1199');
  assert.ok(report.results.every((r) => r.result === 'denied'), 'each privileged pod is denied by the dev policy');
});

// These print little, whatever their input (a hash, a version, a help text, an audit policy): the whole of it, through
// the same pipe.
test('hash, version, help, audit-policy and a usage error reach a slow pipe whole', async () => {
  assert.match((await pipedWhole(['audit-policy', '--dev'], 'stdout')).toString('utf8'), /^kind: Policy$/m);
  assert.match((await pipedWhole(['hash', join(root, 'testdata/dev/policies')], 'stdout')).toString('utf8'), /^sha256:[0-9a-f]{64}\n$/);
  assert.match((await pipedWhole(['version'], 'stdout')).toString('utf8'), /^static-admissiond \d+\.\d+\.\d+/);
  assert.match((await pipedWhole(['--help'], 'stdout')).toString('utf8'), /Run 'static-admissiond <command> --help'/);
  assert.match((await pipedWhole(['serve', '--help'], 'stdout')).toString('utf8'), /--workers int/);
  assert.match((await pipedWhole(['validate', '--admission-conf', 'x'], 'stderr', 2)).toString('utf8'), /See 'static-admissiond validate --help' for usage\.\n$/);
});
