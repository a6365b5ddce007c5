// Fuzzes a running daemon's /validate and /mutate with mutated AdmissionReviews and counts the 5xx answers: a
// malformed review must get a 400 with a precise message, anything else an AdmissionReview, never a 5xx.
//
//   node dist/bench/fuzz.js [--count 100000] [--concurrency 4] [--seed 1] [--workers N] [--max-seconds 3600]
//                           [--url https://127.0.0.1:9443 --ca ca.crt] [--save-dir DIR]
//
// Without --url it starts the built executable itself (serve, a throw-away certificate, --workers N or the
// default) over the repository's example policies (testdata/admission/{matrix,mutating,object-keys}, testdata/dev).
// Seeds: the captured and example AdmissionReviews under testdata. Each input is a seed with one to three
// mutations: keys added at any object (Object.prototype names, case variants of known fields, odd strings), keys
// removed, values replaced by values of other types, deep nesting, big or odd numbers, duplicate keys, cut or
// corrupted JSON text, other operations, kinds and resources. Inputs that got a 5xx are written to --save-dir.
// Exit 1 when any answer was a 5xx (or the daemon stopped).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDevCertificates } from '../lib/server/dev-cert.js';
import { generator } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : process.argv[i + 1] ?? fallback;
}

const seedFiles = [
  ...['testdata/admission/apiserver-captures', 'testdata/admission/captures', 'testdata/admission/matrix/requests', 'testdata/dev/requests']
    .flatMap((dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.json') && !f.endsWith('.http.json')).map((f) => join(dir, f))),
  'testdata/admission/mutating/deployment-create.json',
  'testdata/admission/object-keys/crontab-create.json',
];

const prototypeNames = Object.getOwnPropertyNames(Object.prototype);
const knownFields = ['apiVersion', 'kind', 'metadata', 'spec', 'status', 'name', 'namespace', 'labels', 'annotations', 'uid', 'operation', 'object', 'oldObject', 'request', 'response', 'containers', 'image', 'resources', 'limits', 'requests', 'replicas', 'data', 'userInfo', 'groups', 'extra', 'options', 'dryRun', 'subResource', 'securityContext', 'privileged'];

function fuzzer(random: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const key = (): string => {
    switch (Math.floor(random() * 7)) {
      case 0: case 1: return pick(prototypeNames);
      case 2: { const f = pick(knownFields); return random() < 0.5 ? f.toUpperCase() : f[0]!.toUpperCase() + f.slice(1); }
      case 3: return pick(knownFields);
      case 4: return pick(['', ' ', 'a.b', 'a/b', '~0', '~1', '-', '0', '$ref', '\u0000', 'é', '🙂', '\ud800', 'x'.repeat(300), '<script>', "o'k", '"q"', 'k:{"name":"x"}', 'f:spec']);
      default: return `k${Math.floor(random() * 1000)}`;
    }
  };
  const value = (depth = 0): Json => {
    switch (Math.floor(random() * 12)) {
      case 0: return null;
      case 1: return random() < 0.5;
      case 2: return pick([0, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e308, -0, 0.1]);
      case 3: return pick(['', 'v', 'true', '500m', '1Gi', '2026-11-21T18:20:18Z', 'CREATE', 'x'.repeat(1000), 'ÿ', '\u2028']);
      case 4: return depth > 3 ? [] : Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
      case 5: return depth > 3 ? {} : Object.fromEntries(Array.from({ length: Math.floor(random() * 3) }, () => [key(), value(depth + 1)]));
      case 6: { let v: Json = 'deep'; for (let i = 0, n = Math.floor(random() * 200); i < n; i++) v = random() < 0.5 ? [v] : { a: v }; return v; }
      case 7: return { polluted: 'yes' };
      default: return pick(['v', 1, true, {}, [], 'x']);
    }
  };
  /** every object and array in `doc`, with its parent chain kept implicit */
  const containers = (doc: Json): Array<JsonObject | Json[]> => {
    const out: Array<JsonObject | Json[]> = [];
    const stack: Json[] = [doc];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (v === null || typeof v !== 'object') continue;
      out.push(v);
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
    }
    return out;
  };
  const setOwn = (o: JsonObject, k: string, v: Json): void => {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  };
  /** One structural mutation, in place. */
  const mutate = (doc: Json): void => {
    const all = containers(doc);
    const target = pick(all);
    const objects = all.filter((c): c is JsonObject => !Array.isArray(c));
    const request = (doc as { request?: JsonObject }).request;
    switch (Math.floor(random() * 8)) {
      case 0: case 1: case 2: {
        const o = pick(objects);
        setOwn(o, key(), value());
        return;
      }
      case 3: {
        const o = pick(objects);
        const keys = Object.keys(o);
        if (keys.length > 0) delete o[pick(keys)];
        return;
      }
      case 4: {
        if (Array.isArray(target)) {
          if (target.length > 0) target[Math.floor(random() * target.length)] = value();
          else target.push(value());
        } else {
          const keys = Object.keys(target);
          if (keys.length > 0) setOwn(target, pick(keys), value());
        }
        return;
      }
      case 5: {
        if (request === undefined || request === null || typeof request !== 'object') return;
        const field = pick(['operation', 'kind', 'resource', 'requestKind', 'subResource', 'namespace', 'name', 'uid', 'object', 'oldObject', 'userInfo', 'options', 'dryRun']);
        const replacements: Record<string, Json[]> = {
          operation: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'create', 'PATCH', ''],
          kind: [{ group: '', version: 'v1', kind: 'Pod' }, { group: 'apps', version: 'v1', kind: 'Deployment' }, { group: 'stable.example.com', version: 'v1', kind: 'CronTab' }, { group: '', version: 'v1', kind: 'constructor' }, {}],
          resource: [{ group: '', version: 'v1', resource: 'pods' }, { group: 'apps', version: 'v1', resource: 'deployments' }, { group: '', version: 'v1', resource: 'toString' }, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' }],
        };
        setOwn(request, field, Object.hasOwn(replacements, field) ? pick(replacements[field]!) : value());
        return;
      }
      case 6: {
        // another seed's object in this request (an object of another kind)
        if (request !== undefined && request !== null && typeof request === 'object') setOwn(request, pick(['object', 'oldObject']), value());
        return;
      }
      default: {
        const o = pick(objects);
        for (const k of Object.keys(o)) if (random() < 0.3) setOwn(o, k, null);
      }
    }
  };
  /** A textual mutation of the JSON: a duplicate key, a cut, a corrupted byte, an odd number, or none. */
  const textual = (text: string): string => {
    switch (Math.floor(random() * 10)) {
      case 0: { const i = text.indexOf('{', Math.floor(random() * text.length)); return i === -1 ? text : `${text.slice(0, i + 1)}"kind":"x",${text.slice(i + 1)}`; }
      case 1: return text.slice(0, Math.floor(random() * text.length));
      case 2: { const i = Math.floor(random() * text.length); return text.slice(0, i) + pick(['"', '\\', '\u0000', '}', ']', ',', 'ÿ', '\ud800']) + text.slice(i + 1); }
      case 3: return text.replace(/:(\d+)([,}])/, (_m, _d: string, end: string) => `:${pick(['1e400', '-0', '00', '1.0', '9223372036854775808', '1E2'])}${end}`);
      default: return text;
    }
  };
  return { mutate, textual, pick };
}

interface Answer { status: number; body: string }

function post(agent: Agent, base: URL, ca: string, path: string, body: Buffer): Promise<Answer> {
  return new Promise((resolvePost) => {
    const req = request({ host: base.hostname, port: base.port, path, method: 'POST', agent, ca, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolvePost({ status: res.statusCode ?? 0, body: text }));
      res.on('error', (err) => resolvePost({ status: -1, body: err.message }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', (err) => resolvePost({ status: -1, body: err.message }));
    req.end(body);
  });
}

async function startDaemon(workers: string): Promise<{ url: string; ca: string; child: ChildProcess; cleanup: () => void }> {
  const tmp = mkdtempSync(join(tmpdir(), 'sad-fuzz-'));
  const validating = join(tmp, 'validating');
  const mutating = join(tmp, 'mutating');
  mkdirSync(validating);
  mkdirSync(mutating);
  for (const f of readdirSync(join(root, 'testdata/admission/matrix/policies'))) copyFileSync(join(root, 'testdata/admission/matrix/policies', f), join(validating, `matrix-${f}`));
  for (const f of readdirSync(join(root, 'testdata/dev/policies'))) copyFileSync(join(root, 'testdata/dev/policies', f), join(validating, `dev-${f}`));
  copyFileSync(join(root, 'testdata/admission/object-keys/validating/policies.yaml'), join(validating, 'object-keys.yaml'));
  copyFileSync(join(root, 'testdata/admission/mutating/policies.yaml'), join(mutating, 'mutating.yaml'));
  for (const f of readdirSync(join(root, 'testdata/dev/mutating-policies'))) copyFileSync(join(root, 'testdata/dev/mutating-policies', f), join(mutating, `dev-${f}`));
  copyFileSync(join(root, 'testdata/admission/object-keys/mutating/policies.yaml'), join(mutating, 'object-keys.yaml'));
  const config = join(tmp, 'admission-config.yaml');
  writeFileSync(config, ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:',
    ...(['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const).map((plugin) => `- name: ${plugin}\n  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ${plugin}Configuration, staticManifestsDir: ${plugin === 'ValidatingAdmissionPolicy' ? validating : mutating}}`), ''].join('\n'));
  const certs = await generateDevCertificates({ parentDir: tmp });
  const args = [join(root, 'dist/cmd/static-admissiond.js'), 'serve', '--admission-config', config, '--secure-port', '0', '--health-bind-address', '127.0.0.1:0',
    '--tls-cert-file', certs.certFile, '--tls-private-key-file', certs.keyFile, ...(workers === '' ? [] : ['--workers', workers])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19)); });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const url = /"Serving admission webhooks" url="([^"]+)"/.exec(stderr)?.[1];
    if (url !== undefined) return { url, ca: certs.caPEM, child, cleanup: () => rmSync(tmp, { recursive: true, force: true }) };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon did not start:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<number> {
  const count = Number(option('count', '100000'));
  const concurrency = Number(option('concurrency', '4'));
  const seed = Number(option('seed', '1'));
  const maxSeconds = Number(option('max-seconds', '3600'));
  const saveDir = option('save-dir', '');
  const given = option('url', '');
  const daemon = given === '' ? await startDaemon(option('workers', '')) : undefined;
  const base = new URL(daemon?.url ?? given);
  const ca = daemon?.ca ?? readFileSync(option('ca', ''), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const random = generator(seed);
  const { mutate, textual, pick } = fuzzer(random);
  const seeds = seedFiles.map((f) => JSON.parse(readFileSync(join(root, f), 'utf8')) as Json);
  const statuses = new Map<number, number>();
  const failures: Array<{ path: string; input: string; answer: Answer }> = [];
  const start = performance.now();
  const cpuStart = daemon?.child.pid === undefined ? undefined : process.cpuUsage();
  let sent = 0;
  const next = (): { path: string; body: Buffer } => {
    const doc = JSON.parse(JSON.stringify(pick(seeds))) as Json;
    for (let i = 0, n = 1 + Math.floor(random() * 3); i < n; i++) mutate(doc);
    return { path: pick(['/validate', '/mutate']), body: Buffer.from(textual(JSON.stringify(doc)), 'utf8') };
  };
  const worker = async (): Promise<void> => {
    while (sent < count && performance.now() - start < maxSeconds * 1000) {
      const n = ++sent;
      const { path, body } = next();
      const answer = await post(agent, base, ca, path, body);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500 || answer.status < 0) {
        failures.push({ path, input: body.toString('utf8'), answer });
        if (saveDir !== '') {
          mkdirSync(saveDir, { recursive: true });
          writeFileSync(join(saveDir, `failure-${failures.length}${path.replace('/', '-')}.json`), body);
          writeFileSync(join(saveDir, `failure-${failures.length}.answer.txt`), `${answer.status} ${answer.body}\n`);
        }
      }
      if (n % 10_000 === 0) process.stderr.write(`${n} sent, ${failures.length} 5xx or no answer, ${((performance.now() - start) / 1000).toFixed(0)} s\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
    daemon?.child.kill('SIGTERM');
    daemon?.cleanup();
  }
  const seconds = (performance.now() - start) / 1000;
  const answered = [...statuses].sort(([a], [b]) => a - b);
  const fivexx = answered.filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const unanswered = statuses.get(-1) ?? 0;
  process.stdout.write(`${sent} inputs (seed ${seed}, ${concurrency} in flight) in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)}/s)${cpuStart === undefined ? '' : `, ${((process.cpuUsage(cpuStart).user + process.cpuUsage(cpuStart).system) / 1e6).toFixed(1)} s CPU in the fuzzer`}\n`);
  process.stdout.write(`statuses: ${answered.map(([s, c]) => `${s === -1 ? 'no answer' : s}: ${c}`).join(', ')}\n`);
  process.stdout.write(`5xx: ${fivexx}, no answer: ${unanswered}\n`);
  for (const f of failures.slice(0, 5)) process.stdout.write(`  ${f.path} -> ${f.answer.status} ${f.answer.body.slice(0, 300)}\n    input: ${f.input.slice(0, 300)}\n`);
  return fivexx + unanswered === 0 ? 0 : 1;
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`fuzz: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
