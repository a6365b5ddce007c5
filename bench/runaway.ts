// Isolation benchmark (npm run bench:runaway): do plain requests wait behind requests whose CEL runs into the cost
// limit? One daemon (the real executable, `serve`, default workers unless --workers) loads the 20 bench policies of
// testdata/bench/policies plus one policy on ConfigMaps (testdata/bench/runaway) whose nested comprehension over `data` exceeds the per-call
// cost limit (1,000,000) on a ConfigMap of 2,000 keys: a "runaway", stopped by the limit and denied with upstream's
// message, as test/e2e/validate.test.ts checks. Plain requests (the 4 KB pod review) arrive at a fixed rate (open
// loop, each timed from when it was due) in three phases of --seconds each:
//   quiet       no runaways: the baseline of the same run;
//   sequential  one runaway after another (the next sent when the previous is answered);
//   burst       16 runaways at once, the next 16 when all are answered and a pause of --gap ms has passed; only the
//               plain requests due while a burst was in flight are counted.
// With --compare DIR the same phases run against DIR's build, rounds alternating, so that the machine's load falls on
// both alike. Flags: --rate N (plain req/s, default 100), --seconds N (per phase, 6), --rounds N (2), --burst N (16),
// --gap N (300), --workers N (the daemon's default), --compare DIR.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { newAgent, openLoop, percentile, postOnce } from './load.js';
import type { Target } from './load.js';
import { benchWorkspace, executableArgv, fmt, freePort, httpStatus, metricsText, until, validatingAdmissionConfig, writeServingCertificate } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[++i] ?? '');
const num = (name: string, def: number): number => (args.has(name) ? Number(args.get(name)) : def);
const rate = num('rate', 100);
const seconds = num('seconds', 6);
const rounds = num('rounds', 2);
const burstSize = num('burst', 16);
const gapMs = num('gap', 300);
const workers = args.get('workers');
const compare = args.has('compare') ? resolve(args.get('compare')!) : undefined;


interface PhaseResult {
  readonly latencies: Float64Array;
  readonly errors: number;
  readonly runaways: number;
  readonly runawayErrors: number;
  readonly runawayMs: number[];
  /** requests the daemon handed to its pool during the phase (the rest ran on its main thread) */
  readonly pooled: number;
}

async function poolTasks(metrics: string): Promise<number> {
  const m = /^static_admissiond_policy_pool_tasks_total(?:\{[^}]*\})? (\S+)$/m.exec(await metricsText(metrics));
  return m ? Number(m[1]) : 0;
}

async function phase(kind: 'quiet' | 'sequential' | 'burst', d: { plain: Target; runaway: Target; metrics: string }): Promise<PhaseResult> {
  const { plain, runaway } = d;
  const pooled0 = await poolTasks(d.metrics);
  const plainAgent = newAgent(64);
  const runawayAgent = newAgent(burstSize);
  let stop = false;
  let runaways = 0;
  let runawayErrors = 0;
  const runawayMs: number[] = [];
  const windows: Array<[number, number]> = [];
  const one = async (): Promise<void> => {
    const t0 = performance.now();
    const ok = await postOnce(runaway, runawayAgent);
    runawayMs.push(performance.now() - t0);
    runaways++;
    if (!ok) runawayErrors++;
  };
  const runawayLoop = (async (): Promise<void> => {
    if (kind === 'quiet') return;
    while (!stop) {
      if (kind === 'sequential') {
        await one();
        continue;
      }
      const from = performance.now();
      await Promise.all(Array.from({ length: burstSize }, one));
      windows.push([from, performance.now()]);
      await delay(gapMs);
    }
  })();
  const { latencies, dues, errors } = await openLoop(plain, plainAgent, rate, seconds);
  const timed = Array.from(latencies, (ms, i) => ({ due: dues[i]!, ms }));
  stop = true;
  await runawayLoop;
  plainAgent.destroy();
  runawayAgent.destroy();
  const counted = kind === 'burst' ? timed.filter((t) => windows.some(([a, b]) => t.due >= a && t.due <= b)) : timed;
  return { latencies: Float64Array.from(counted.map((t) => t.ms)).sort(), errors, runaways, runawayErrors, runawayMs, pooled: (await poolTasks(d.metrics)) - pooled0 };
}

async function main(): Promise<void> {
  const { tmp, children, stop } = benchWorkspace('sad-bench-runaway-');
  try {
    const { ca, certFile, keyFile } = await writeServingCertificate(tmp, 'bench CA', 'static-admissiond');
    const policies = join(tmp, 'policies');
    cpSync(join(root, 'testdata', 'bench', 'policies'), policies, { recursive: true });
    cpSync(join(root, 'testdata', 'bench', 'runaway', 'runaway-policy.yaml'), join(policies, '99-runaway.yaml'));
    const config = join(tmp, 'admission-config.yaml');
    writeFileSync(config, validatingAdmissionConfig(policies));

    const podBody = readFileSync(join(root, 'testdata', 'bench', 'pod-review.json'));
    const uid = (JSON.parse(podBody.toString('utf8')) as { request: { uid: string } }).request.uid;
    const cm = JSON.parse(readFileSync(join(root, 'testdata', 'admission', 'captures', '002-validate-CREATE-ConfigMap-cm1.json'), 'utf8')) as { request: { object: { data: Record<string, string> } } };
    // 2,000 keys: ~4,000,000 iterations of the nested comprehension, over the 1,000,000 per-call budget
    cm.request.object.data = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, 'v']));
    const runawayBody = Buffer.from(JSON.stringify(cm));

    const builds = [['this build', root] as const, ...(compare === undefined ? [] : [[compare.split('/').pop()!, compare] as const])];
    const daemons: Array<{ label: string; child: ChildProcess; plain: Target; runaway: Target; metrics: string }> = [];
    for (const [label, dir] of builds) {
      const port = await freePort();
      const health = await freePort();
      const child = spawn(process.execPath, [
        ...executableArgv(dir), 'serve', '--admission-config', config, '--tls-cert-file', certFile, '--tls-private-key-file', keyFile,
        '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
        ...(workers === undefined ? [] : ['--workers', workers]), '--reload-interval', '1h', '--logging-format', 'json',
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      child.stderr!.resume();
      await until(`daemon (${label}) ready`, async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200, 120_000);
      const url = (path: string): URL => new URL(`https://127.0.0.1:${port}${path}?timeout=10s`);
      daemons.push({
        label, child, metrics: `http://127.0.0.1:${health}/metrics`,
        plain: { url: url('/validate'), ca: ca.certPEM, body: podBody, expect: `"uid":"${uid}","allowed":true` },
        runaway: { url: url('/validate'), ca: ca.certPEM, body: runawayBody, expect: 'operation cancelled: actual cost limit exceeded' },
      });
    }
    for (const d of daemons) {
      const agent = newAgent(1);
      if (!(await postOnce(d.plain, agent))) throw new Error(`${d.label}: the pod review was not admitted`);
      if (!(await postOnce(d.runaway, agent))) throw new Error(`${d.label}: the runaway was not denied with the cost-limit message`);
      agent.destroy();
    }

    console.log(`static-admissiond isolation benchmark — Node ${process.version}, ${availableParallelism()} CPUs here, workers: ${workers ?? 'default'}`);
    console.log(`plain: the 4 KB pod review at ${rate} req/s; runaway: a ConfigMap of 2,000 keys (${runawayBody.length} B) hitting the cost limit; ${rounds} rounds × ${seconds} s per phase, builds alternating`);
    // warm-up (JIT, connections, the workers' caches): a quiet phase on each, not counted
    for (const d of daemons) await phase('quiet', d);
    const phases = ['quiet', 'sequential', 'burst'] as const;
    const results = new Map<string, PhaseResult[]>();
    const loads: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const kind of phases) {
        for (const d of daemons) {
          const res = await phase(kind, d);
          const key = `${d.label}|${kind}`;
          results.set(key, [...(results.get(key) ?? []), res]);
        }
      }
      loads.push(loadavg().map((l) => l.toFixed(1)).join(' '));
    }
    console.log(`load average after each round: ${loads.join(' | ')}`);
    console.log(`\n${'build'.padEnd(28)}${'phase'.padEnd(12)}${'plain n'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'err'.padStart(5)}${'runaways'.padStart(10)}${'runaway p50 ms'.padStart(16)}${'pooled'.padStart(8)}`);
    const summary = new Map<string, { p50: number; p99: number }>();
    for (const d of daemons) {
      for (const kind of phases) {
        const all = results.get(`${d.label}|${kind}`)!;
        const lat = Float64Array.from(all.flatMap((x) => [...x.latencies])).sort();
        const rms = Float64Array.from(all.flatMap((x) => x.runawayMs)).sort();
        const errors = all.reduce((s, x) => s + x.errors, 0);
        const runaways = all.reduce((s, x) => s + x.runaways, 0);
        const runawayErrors = all.reduce((s, x) => s + x.runawayErrors, 0);
        const total = all.reduce((n, x) => n + x.runaways, 0) + Math.round(rate * seconds) * all.length;
        summary.set(`${d.label}|${kind}`, { p50: percentile(lat, 50), p99: percentile(lat, 99) });
        console.log(`${d.label.padEnd(28)}${kind.padEnd(12)}${String(lat.length).padStart(8)}${fmt(percentile(lat, 50)).padStart(9)}${fmt(percentile(lat, 99)).padStart(9)}${fmt(lat[lat.length - 1] ?? NaN).padStart(9)}${String(errors).padStart(5)}${`${runaways}${runawayErrors > 0 ? ` (${runawayErrors} bad)` : ''}`.padStart(10)}${fmt(percentile(rms, 50)).padStart(16)}${`${Math.round(100 * all.reduce((n, x) => n + x.pooled, 0) / Math.max(1, total))}%`.padStart(8)}`);
      }
    }
    const pass = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');
    const s = summary.get('this build|sequential')!;
    const b = summary.get('this build|burst')!;
    console.log('\nbars (this build):');
    console.log(`  sequential runaways: plain p50 <= 5 ms     ${fmt(s.p50).padStart(9)} ms   ${pass(s.p50 <= 5)}`);
    console.log(`  sequential runaways: plain p99 <= 50 ms    ${fmt(s.p99).padStart(9)} ms   ${pass(s.p99 <= 50)}`);
    console.log(`  burst of ${burstSize}: plain p99 <= 250 ms          ${fmt(b.p99).padStart(9)} ms   ${pass(b.p99 <= 250)}`);
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
