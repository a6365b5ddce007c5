// `static-admissiond replay` throughput (npm run bench:replay): one million synthetic audit events (--events N)
// over the 20 benchmark policies of bench/generate.ts, replayed by the real command on one core (--workers 0: read,
// rebuild and decide on one thread) and on all cores (one decision thread per CPU). Each run is its own child process
// so that its peak RSS is its own; it prints events per second, CPU seconds, and peak RSS, then the ratio of the two.
//
// The log is the mix of a busy cluster's: half the events are reads and RequestReceived stages (dropped from their
// text), half are writes at level RequestResponse — creates, merge patches and deletes of pods, deployments,
// configmaps and services over 20,000 objects, so the old-object tracking is exercised — a twentieth of them denied.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../lib/cli/main.js';
import { generate } from './generate.js';
import { fmt, validatingAdmissionConfig } from './util.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

interface ChildResult {
  readonly events: number;
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly maxRssMiB: number;
  readonly code: number;
}

/** Child mode: one replay run in this process, reported as one JSON line. */
async function child(): Promise<void> {
  const log = argValue('--log')!;
  const config = argValue('--config')!;
  const workers = argValue('--workers')!;
  const events = Number(argValue('--events'));
  const cpu = process.cpuUsage();
  const start = performance.now();
  let err = '';
  const code = await main(['replay', '--workers', workers, '--admission-config', config, log], { stdout: () => {}, stderr: (t) => (err += t) });
  const wallSeconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  if (err !== '') process.stderr.write(err);
  const result: ChildResult = { events, wallSeconds, cpuSeconds: (used.user + used.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024, code };
  process.stdout.write(JSON.stringify(result) + '\n');
}

const kinds = [
  { resource: 'pods', group: '', apiVersion: 'v1', kind: 'Pod' },
  { resource: 'deployments', group: 'apps', apiVersion: 'apps/v1', kind: 'Deployment' },
  { resource: 'configmaps', group: '', apiVersion: 'v1', kind: 'ConfigMap' },
  { resource: 'services', group: '', apiVersion: 'v1', kind: 'Service' },
] as const;

/** `denied`: a label that the benchmark policy `forbidden` (one on this kind: policy i is on kinds[i % 4]) forbids. */
function object(k: (typeof kinds)[number], name: string, rv: number, denied: boolean, forbidden = 0): Record<string, unknown> {
  const metadata = {
    name, namespace: `team-${name.length % 7}`, uid: `uid-${name}`, resourceVersion: String(rv), creationTimestamp: '2026-11-21T18:20:17Z',
    labels: { app: 'web', ...(denied ? { [`bench.example.com/forbidden-${forbidden}-0`]: 'x' } : {}) },
    annotations: { owner: 'storefront' },
  };
  const container = { name: 'web', image: 'registry.example/shop/web:1.24.3', securityContext: { privileged: false }, resources: { limits: { cpu: '500m', memory: '256Mi' } } };
  switch (k.kind) {
    case 'Pod': return { kind: k.kind, apiVersion: k.apiVersion, metadata, spec: { containers: [container] } };
    case 'Deployment': return { kind: k.kind, apiVersion: k.apiVersion, metadata, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } } } };
    case 'ConfigMap': return { kind: k.kind, apiVersion: k.apiVersion, metadata, data: { 'config.yaml': 'a: 1\nb: 2\n' } };
    default: return { kind: k.kind, apiVersion: k.apiVersion, metadata, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } };
  }
}

/** Writes `n` events as JSON lines; returns the number of writes among them. */
async function writeLog(path: string, n: number): Promise<number> {
  const out = createWriteStream(path);
  const objects = 20_000;
  let writes = 0;
  const write = (line: string): Promise<void> | void => {
    if (!out.write(line + '\n')) return new Promise((resolve) => out.once('drain', () => resolve()));
  };
  for (let i = 0; i < n; i++) {
    const k = kinds[i % kinds.length]!;
    const id = (i >> 1) % objects;
    const name = `obj-${id}`;
    const namespace = `team-${name.length % 7}`;
    const base = { kind: 'Event', apiVersion: 'audit.k8s.io/v1', auditID: `bench-${i}` };
    const ref = { resource: k.resource, namespace, name, ...(k.group === '' ? {} : { apiGroup: k.group }), apiVersion: 'v1' };
    const prefix = `/api${k.group === '' ? '' : 's/' + k.group}/v1/namespaces/${namespace}/${k.resource}`;
    let event: Record<string, unknown>;
    if (i % 2 === 0) {
      // a read, or another stage of a write
      event = i % 4 === 0
        ? { ...base, level: 'Metadata', stage: 'ResponseComplete', requestURI: `${prefix}/${name}`, verb: 'get', user: { username: 'system:serviceaccount:kube-system:reader' }, objectRef: ref, responseStatus: { code: 200 } }
        : { ...base, level: 'RequestResponse', stage: 'RequestReceived', requestURI: `${prefix}/${name}`, verb: 'patch', user: { username: 'alice' }, objectRef: ref };
    } else {
      writes++;
      const round = Math.floor(i / (2 * objects));
      const denied = i % 40 === 1;
      const rv = 10 + i;
      const forbidden = (i % 4) + 4 * (i % 5);
      const stored = object(k, name, rv, denied, forbidden);
      const user = { username: 'alice', groups: ['dev', 'system:authenticated'] };
      if (round === 0) {
        event = { ...base, level: 'RequestResponse', stage: 'ResponseComplete', requestURI: `${prefix}?fieldManager=kubectl-create`, verb: 'create', user, objectRef: ref, responseStatus: { code: 201 }, requestObject: object(k, name, 0, denied, forbidden), responseObject: stored };
      } else if (i % 97 === 3) {
        event = { ...base, level: 'RequestResponse', stage: 'ResponseComplete', requestURI: `${prefix}/${name}`, verb: 'delete', user, objectRef: ref, responseStatus: { code: 200 }, requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' }, responseObject: { kind: 'Status', apiVersion: 'v1', status: 'Success' } };
      } else {
        event = { ...base, level: 'RequestResponse', stage: 'ResponseComplete', requestURI: `${prefix}/${name}?fieldManager=kubectl-label`, verb: 'patch', user, objectRef: ref, responseStatus: { code: 200 }, requestObject: { metadata: { labels: { round: String(round) } } }, responseObject: stored };
      }
    }
    await write(JSON.stringify(event));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return writes;
}

function runChild(log: string, config: string, workers: number, events: number): ChildResult {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, '--child', '--log', log, '--config', config, '--workers', String(workers), '--events', String(events)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`replay run failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

async function parent(): Promise<void> {
  const events = Number(argValue('--events') ?? 1_000_000);
  const cores = availableParallelism();
  const dir = mkdtempSync(join(tmpdir(), 'sad-bench-replay-'));
  try {
    const policies = join(dir, 'policies');
    mkdirSync(policies);
    generate(policies, 20);
    const config = join(dir, 'admission-config.yaml');
    writeFileSync(config, validatingAdmissionConfig(policies));
    const log = join(dir, 'audit.log');
    const t0 = performance.now();
    const writes = await writeLog(log, events);
    console.log(`replay benchmark: ${events.toLocaleString('en-US')} events (${writes.toLocaleString('en-US')} writes at RequestResponse), ${(statSync(log).size / 2 ** 20).toFixed(0)} MiB, 20 policies; written in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    console.log(`machine: ${cores} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (a shared machine's numbers move with its load)`);
    const one = runChild(log, config, 0, events);
    const all = runChild(log, config, cores, events);
    const row = (label: string, r: ChildResult): string => `  ${label.padEnd(30)} ${Math.round(r.events / r.wallSeconds).toLocaleString('en-US').padStart(9)} events/s  ${fmt(r.wallSeconds, 1).padStart(6)} s wall  ${fmt(r.cpuSeconds, 1).padStart(6)} s CPU  ${fmt(r.cpuSeconds * 1e6 / r.events, 1).padStart(6)} µs CPU/event  peak RSS ${fmt(r.maxRssMiB, 0)} MiB`;
    console.log(row('1 core (--workers 0)', one));
    console.log(row(`all cores (--workers ${cores})`, all));
    console.log(`  all cores / 1 core: ${fmt(one.wallSeconds / all.wallSeconds)}x events per second`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--child')) await child();
else await parent();
