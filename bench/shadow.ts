// Shadow benchmark (npm run bench:shadow): what --shadow-admission-config costs the enforced path.
//
// Part 1, in this process — the main thread's CPU time per shadowed request (its own thread's, from
// /proc/self/task/<pid>/stat, so neither the worker nor the machine's other load counts), for the two places the
// evaluation could run: on the shadow worker (what serve does: copy the body and answer, post them, and later take
// the result and record the metrics) or on the main thread itself (the comparison there, which a
// setImmediate-when-idle scheme would spend between requests). The enforced set is testdata/bench/policies (20 policies, 40 expressions); the candidate is
// the same 20 plus one that denies the pod (a difference on every request: the worst case, logging included).
//
// Part 2, real daemons — the executable twice, the same enforced set, one with the candidate as its shadow set; an
// open loop sends the 4 KB pod review of testdata/bench to /validate at each rate, rounds alternating between the
// daemons (the order flipped every round) so drifting machine load cancels out. Prints p50/p99 of each, the median of
// the per-round ratios shadow/plain, server CPU per request (all threads, the shadow worker's included), and how many
// requests the shadow decided or skipped (its budget).
//
// Flags: --rates 100,500 --seconds 5 --rounds 3 --requests 2000 (part 1) --workers N (each daemon's pool).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import type { AdmissionRequest } from '../lib/api/admission.js';
import { defaultPoolThreads } from '../lib/admission/pool/pool.js';
import { defaultFeatureGates } from '../lib/config/feature-gates.js';
import { createLogger } from '../lib/log/logger.js';
import { createReloadMetrics } from '../lib/metrics/reload.js';
import { ManifestSource } from '../lib/reload/manifest-source.js';
import { loadSnapshotSync } from '../lib/reload/pipeline.js';
import { createCertificateAuthority } from '../lib/server/dev-cert.js';
import { compareSets } from '../lib/shadow/evaluate.js';
import type { PolicySet } from '../lib/shadow/evaluate.js';
import { Shadow } from '../lib/shadow/shadow.js';
import { newAgent, openLoop, percentile, postOnce } from './load.js';
import type { Target } from './load.js';
import { benchWorkspace, cpuSeconds, executableArgv, fmt, freePort, httpStatus, median, metricsText, until, validatingAdmissionConfig } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const num = (name: string, def: number): number => (args.has(name) ? Number(args.get(name)) : def);
const rates = (args.get('rates') ?? '100,500').split(',').map(Number);
const seconds = num('seconds', 5);
const rounds = num('rounds', 3);
const requests = num('requests', 5000);
const workers = num('workers', defaultPoolThreads());

const extraPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bench-candidate-owner.static.k8s.io
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["pods"]
  validations:
  - expression: "has(object.metadata.annotations) && 'bench.example.com/owner' in object.metadata.annotations"
    message: an owner annotation is required
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: bench-candidate-owner-binding.static.k8s.io
spec:
  policyName: bench-candidate-owner.static.k8s.io
  validationActions: [Deny]
`;

/** CPU seconds of this process's main thread (Linux). */
function mainThreadCPU(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The sum of a counter's samples whose line contains `filter`. */
function counterSum(text: string, name: string, filter = ''): number {
  return text.split('\n').filter((l) => l.startsWith(name) && l.includes(filter)).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

async function mainThreadCost(enforcedDir: string, candidateConfig: string, candidateDir: string, body: Buffer, answer: Buffer): Promise<void> {
  const request = (JSON.parse(body.toString('utf8')) as { request: AdmissionRequest }).request;
  const hooks = (dir: string): PolicySet => {
    const s = loadSnapshotSync('ValidatingAdmissionPolicy', dir);
    return { validating: s.compiled.family === 'policy' ? s.compiled.hooks : [], mutating: [] };
  };
  const enforcedSet = hooks(enforcedDir);
  const candidateSet = hooks(candidateDir);
  const n = requests;

  // on the main thread: parse the body, decide with both sets, as an inline scheme would between requests
  for (let i = 0; i < 200; i++) await compareSets('validate', (JSON.parse(body.toString('utf8')) as { request: AdmissionRequest }).request, enforcedSet, candidateSet);
  let cpu0 = mainThreadCPU();
  for (let i = 0; i < n; i++) await compareSets('validate', (JSON.parse(body.toString('utf8')) as { request: AdmissionRequest }).request, enforcedSet, candidateSet);
  const inlineUs = ((mainThreadCPU() - cpu0) / n) * 1e6;

  // on the shadow worker: what serve's main thread does per request
  const registry = new Registry();
  const logger = createLogger({ write: () => undefined });
  const enforced = new ManifestSource({ plugin: 'ValidatingAdmissionPolicy', dir: enforcedDir, metrics: createReloadMetrics(registry, ''), logger });
  enforced.loadInitial();
  const shadow = new Shadow({
    configFile: candidateConfig, gates: defaultFeatureGates, enforced: [enforced], intervalMs: 3_600_000, registry, logger, authorizationKubeconfig: '',
    // no skipping here: every request is sent, to measure the sending and the results
    budget: { maxInFlight: n + 1, cpuShare: 1.1 },
  });
  shadow.start();
  const stop = new AbortController();
  const watching = shadow.run(stop.signal);
  await until('the shadow worker', () => shadow.readiness.check() === undefined, 60_000);
  const decided = async (): Promise<number> => counterSum(await registry.metrics(), 'static_admissiond_shadow_requests_total{');
  // warm-up
  for (let i = 0; i < 200; i++) shadow.observe('/validate', body, answer);
  await until('the warm-up results', async () => (await decided()) >= 200, 60_000);
  const before = await decided();
  cpu0 = mainThreadCPU();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) shadow.observe('/validate', body, answer);
  const sendMs = performance.now() - t0;
  // polled rarely: a scrape is main-thread work too
  await until('the results', async () => (await decided()) >= before + n, 120_000);
  // this thread's CPU from the first send to the last result, the send loop included
  const workerUs = ((mainThreadCPU() - cpu0) / n) * 1e6;

  // the same one request per turn of the event loop (a batch of one, as at low rates), less the turns' own cost
  const turns = async (send: boolean): Promise<number> => {
    const at = await decided();
    const c0 = mainThreadCPU();
    for (let i = 0; i < n; i++) {
      if (send) shadow.observe('/validate', body, answer);
      await new Promise((r) => setImmediate(r));
    }
    if (send) await until('the results', async () => (await decided()) >= at + n, 120_000);
    return mainThreadCPU() - c0;
  };
  const idleTurns = await turns(false);
  const oneByOneUs = (((await turns(true)) - idleTurns) / n) * 1e6;
  stop.abort();
  await watching;
  await shadow.close();

  console.log(`\npart 1 — main-thread time per shadowed request (${n} requests, ${request.uid}): where the shadow evaluation runs`);
  console.log(`  on the shadow worker (serve): ${fmt(workerUs, 1)} µs when all ${n} come in one turn (the send loop alone: ${fmt((sendMs / n) * 1000, 1)} µs wall); ${fmt(oneByOneUs, 1)} µs one request per turn`);
  console.log(`  on the main thread (inline):  ${fmt(inlineUs, 1)} µs   (parse + both sets decided)`);
  console.log(`  inline / worker (one per turn) = ${fmt(inlineUs / oneByOneUs)}`);
}

interface Daemon { readonly key: 'plain' | 'shadow'; readonly child: ChildProcess; readonly target: Target; readonly metrics: string }

async function main(): Promise<void> {
  const started = Date.now();
  const { tmp, children, stop } = benchWorkspace('sad-bench-shadow-');
  try {
    const policiesDir = join(root, 'testdata', 'bench', 'policies');
    const candidateDir = join(tmp, 'candidate');
    mkdirSync(candidateDir);
    for (const f of readdirSync(policiesDir)) copyFileSync(join(policiesDir, f), join(candidateDir, f));
    writeFileSync(join(candidateDir, '21-candidate-owner.yaml'), extraPolicy);
    const config = join(tmp, 'admission-config.yaml');
    const candidateConfig = join(tmp, 'candidate-config.yaml');
    writeFileSync(config, validatingAdmissionConfig(policiesDir));
    writeFileSync(candidateConfig, validatingAdmissionConfig(candidateDir));
    const body = readFileSync(join(root, 'testdata', 'bench', 'pod-review.json'));
    const uid = (JSON.parse(body.toString('utf8')) as { request: { uid: string } }).request.uid;
    const answer = Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));

    console.log(`static-admissiond shadow benchmark — Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('enforced: testdata/bench/policies (20 policies); candidate: the same + 1 that denies the pod (a difference on every request)');
    await mainThreadCost(policiesDir, candidateConfig, candidateDir, body, answer);

    const ca = await createCertificateAuthority('bench CA');
    const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1'] });
    writeFileSync(join(tmp, 'tls.crt'), serving.certPEM);
    writeFileSync(join(tmp, 'tls.key'), serving.keyPEM);
    const daemons: Daemon[] = [];
    for (const key of ['plain', 'shadow'] as const) {
      const port = await freePort();
      const health = await freePort();
      const child = spawn(process.execPath, [
        ...executableArgv(root), 'serve', '--admission-config', config,
        '--tls-cert-file', join(tmp, 'tls.crt'), '--tls-private-key-file', join(tmp, 'tls.key'),
        '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
        '--workers', String(workers), '--reload-interval', '1h', '--logging-format', 'json',
        ...(key === 'shadow' ? ['--shadow-admission-config', candidateConfig] : []),
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
      child.on('exit', (code) => { if (code !== 0 && code !== null) process.stderr.write(`daemon ${key} exited ${code}:\n${err}\n`); });
      await until(`daemon ${key} ready`, async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200, 120_000);
      if (key === 'shadow') await until('the shadow set', async () => (await httpStatus(`http://127.0.0.1:${health}/readyz/shadow-manifests-loaded`)) === 200, 120_000);
      daemons.push({
        key, child, metrics: `http://127.0.0.1:${health}/metrics`,
        target: { url: new URL(`https://127.0.0.1:${port}/validate?timeout=10s`), ca: ca.certPEM, body, expect: `"uid":"${uid}","allowed":true` },
      });
    }
    const agents = new Map(daemons.map((d) => [d.key, newAgent(32)]));
    for (const d of daemons) {
      for (let i = 0; i < 50; i++) if (!(await postOnce(d.target, agents.get(d.key)!))) throw new Error(`daemon ${d.key} did not allow the pod review`);
      await openLoop(d.target, agents.get(d.key)!, rates[0]!, 1);
    }

    console.log(`\npart 2 — /validate latency, open loop, ${rounds} rounds × ${seconds} s per rate and daemon, alternating; --workers ${workers}`);
    console.log(`${'rate'.padEnd(10)}${'plain p50/p99 ms'.padStart(20)}${'shadow p50/p99 ms'.padStart(20)}${'ratio p50/p99'.padStart(16)}${'CPU µs/req plain/shadow'.padStart(26)}${'shadow decided/skipped'.padStart(26)}`);
    for (const rate of rates) {
      const lat = new Map<string, number[][]>(daemons.map((d) => [d.key, []]));
      const cpu = new Map<string, { s: number; n: number }>(daemons.map((d) => [d.key, { s: 0, n: 0 }]));
      const shadowDaemon = daemons.find((d) => d.key === 'shadow')!;
      const m0 = await metricsText(shadowDaemon.metrics);
      for (let r = 0; r < rounds; r++) {
        for (const d of r % 2 === 0 ? daemons : [...daemons].reverse()) {
          const c0 = cpuSeconds(d.child.pid!);
          const res = await openLoop(d.target, agents.get(d.key)!, rate, seconds);
          const c = cpu.get(d.key)!;
          c.s += cpuSeconds(d.child.pid!) - c0;
          c.n += res.completed;
          if (res.errors > 0) console.log(`  ! ${d.key}: ${res.errors} failed requests at ${rate} req/s`);
          const sorted = res.latencies.sort();
          lat.get(d.key)!.push([percentile(sorted, 50), percentile(sorted, 99)]);
        }
      }
      const m1 = await metricsText(shadowDaemon.metrics);
      const decided = counterSum(m1, 'static_admissiond_shadow_requests_total{') - counterSum(m0, 'static_admissiond_shadow_requests_total{');
      const skipped = counterSum(m1, 'static_admissiond_shadow_skipped_total{') - counterSum(m0, 'static_admissiond_shadow_skipped_total{');
      const p = (key: string, i: number): number => median(lat.get(key)!.map((x) => x[i]!));
      const ratio = (i: number): number => median(lat.get('shadow')!.map((x, r) => x[i]! / lat.get('plain')![r]![i]!));
      const cpuUs = (key: string): string => fmt((cpu.get(key)!.s / cpu.get(key)!.n) * 1e6, 0);
      console.log(`${`${rate}/s`.padEnd(10)}${`${fmt(p('plain', 0))} / ${fmt(p('plain', 1))}`.padStart(20)}${`${fmt(p('shadow', 0))} / ${fmt(p('shadow', 1))}`.padStart(20)}${`${fmt(ratio(0))} / ${fmt(ratio(1))}`.padStart(16)}${`${cpuUs('plain')} / ${cpuUs('shadow')}`.padStart(26)}${`${decided} / ${skipped}`.padStart(26)}`);
      const reasons = ['queue_full', 'cpu_budget', 'not_loaded', 'failed'].map((r) => `${r} ${counterSum(m1, 'static_admissiond_shadow_skipped_total{', `reason="${r}"`) - counterSum(m0, 'static_admissiond_shadow_skipped_total{', `reason="${r}"`)}`);
      console.log(`${''.padEnd(10)}  per round p99 plain ${lat.get('plain')!.map((x) => fmt(x[1]!)).join(', ')}; shadow ${lat.get('shadow')!.map((x) => fmt(x[1]!)).join(', ')}; skipped: ${reasons.join(', ')}`);
    }
    console.log(`\n(whole run ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    for (const agent of agents.values()) agent.destroy();
  } finally {
    // the daemons' exits, not a kill sent: nothing of this run may still hold a core when the next bench starts
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
