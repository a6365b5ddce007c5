// Hot-path benchmark (npm run bench): in one run, on loopback, with keep-alive HTTPS connections,
//   (a) a bare Node HTTPS server answering a fixed allowed AdmissionReview (bench/bare-server.ts),
//   (b) the daemon — the real executable, `serve` — evaluating in its policy worker pool (--workers default),
//   (c) the same daemon evaluating on the main thread (--workers 0),
//   (m) the daemon answering POST /mutate with the 10 MutatingAdmissionPolicies of testdata/bench/mutating-policies
//       (6 change the pod: ApplyConfiguration merges and JSONPatches; 4 match and change nothing), alongside (b)'s
//       validating policies in the same process, as a node would run both,
// (a)–(c) each with the 20 Pod Security Standards-style policies (40 expressions) of testdata/bench/policies on the 4 KB
// pod review testdata/bench/pod-review.json. Each server is its own process; the load generator is this one.
//
// Prints the maximum throughput (closed loop: several connections, each sending as soon as its answer is in;
// rounds alternate between servers and ratios are medians of per-round pairs, so drifting machine load cancels
// out), p50/p99 at fixed offered rates (open loop), server CPU per request, the ratios b/a and b/c, and the bars:
//   b's max throughput >= 50% of a's;  b's p99 at 1,000 req/s < 2 ms.
// For (m): its p50/p99 at each rate and the ratio to (b)'s at the same rate.
// Low rates (what a control plane sends: tens to hundreds of requests a second): (a), (b) and (c) at 50 and 200 req/s,
// open loop, rounds alternating between servers, printing what (b) and (c) add to (a)'s p50 and p99, and the bars:
//   at 50 req/s, added p50 <= 0.15 ms and added p99 <= 0.5 ms;  at 1,000 req/s, added p99 <= 0.5 ms.
//
// Flags: --seconds N (closed-loop round length, default 3), --rounds N (default 3), --connections N (default 16),
// --open-seconds N (default 3), --rates 250,500,1000, --workers N (pool size of b; default: the daemon's),
// --low-rates 50,200, --low-seconds N (per rate and round, default 8), --low-rounds N (default 3).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { defaultPoolThreads } from '../lib/admission/pool/pool.js';
import { createCertificateAuthority } from '../lib/server/dev-cert.js';
import { benchWorkspace, cpuSeconds, fmt, freePort, httpStatus, median, until, validatingAdmissionConfig } from './util.js';
import { closedLoop, newAgent, openLoop, percentile, postOnce } from './load.js';
import type { LoadResult, Target } from './load.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const num = (name: string, def: number): number => (args.has(name) ? Number(args.get(name)) : def);
const roundSeconds = num('seconds', 3);
const rounds = num('rounds', 3);
const connections = num('connections', 16);
const openSeconds = num('open-seconds', 3);
const rates = (args.get('rates') ?? '250,500,1000').split(',').map(Number);
const poolWorkers = num('workers', defaultPoolThreads());
const lowRates = (args.get('low-rates') ?? '50,200').split(',').filter((r) => r !== '').map(Number);
const lowSeconds = num('low-seconds', 8);
const lowRounds = num('low-rounds', 3);

interface Server {
  readonly key: 'a' | 'b' | 'c' | 'm';
  readonly label: string;
  readonly child: ChildProcess;
  readonly target: Target;
  readonly deny?: Target;
}

async function main(): Promise<void> {
  const started = Date.now();
  const { tmp, children, cleanup } = benchWorkspace('sad-bench-');
  try {
    const ca = await createCertificateAuthority('bench CA');
    const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1'] });
    const certFile = join(tmp, 'tls.crt');
    const keyFile = join(tmp, 'tls.key');
    writeFileSync(certFile, serving.certPEM);
    writeFileSync(keyFile, serving.keyPEM);
    const policiesDir = join(root, 'testdata', 'bench', 'policies');
    const config = join(tmp, 'admission-config.yaml');
    writeFileSync(config, validatingAdmissionConfig(policiesDir));
    const mutatingConfig = join(tmp, 'admission-config-mutating.yaml');
    writeFileSync(mutatingConfig, `${readFileSync(config, 'utf8')}- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: ${join(root, 'testdata', 'bench', 'mutating-policies')}
`);
    const bodyFile = join(root, 'testdata', 'bench', 'pod-review.json');
    const body = readFileSync(bodyFile);
    const review = JSON.parse(body.toString('utf8')) as { request: { uid: string; object: { spec: { containers: Array<{ securityContext: Record<string, unknown> }> } } } };
    const uid = review.request.uid;
    review.request.object.spec.containers[0]!.securityContext.privileged = true;
    const privileged = Buffer.from(JSON.stringify(review));

    const target = (port: number, b: Buffer, expect: string, path = '/validate'): Target => ({ url: new URL(`https://127.0.0.1:${port}${path}?timeout=10s`), ca: ca.certPEM, body: b, expect });
    const allowed = `"uid":"${uid}","allowed":true`;
    const denied = "denied request: privileged containers are not allowed";

    const servers: Server[] = [];
    {
      const port = await freePort();
      const child = spawn(process.execPath, [join(root, 'dist', 'bench', 'bare-server.js'), String(port), certFile, keyFile, uid], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      await until('the bare server', () => out.includes('listening'));
      servers.push({ key: 'a', label: 'a  bare HTTPS server', child, target: target(port, body, allowed) });
    }
    for (const [key, workers] of [['b', poolWorkers], ['c', 0], ['m', poolWorkers]] as const) {
      const port = await freePort();
      const health = await freePort();
      const child = spawn(process.execPath, [
        join(root, 'dist', 'cmd', 'static-admissiond.js'), 'serve',
        '--admission-config', key === 'm' ? mutatingConfig : config, '--tls-cert-file', certFile, '--tls-private-key-file', keyFile,
        '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
        '--workers', String(workers), '--reload-interval', '1h', '--logging-format', 'json',
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      child.on('exit', (code) => { if (code !== 0 && code !== null) process.stderr.write(`daemon ${key} exited ${code}:\n${err}\n`); });
      await until(`daemon ${key} ready`, async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200);
      if (key === 'm') {
        servers.push({ key, label: 'm  daemon, /mutate (10 mutating policies)', child, target: target(port, body, '"patchType":"JSONPatch"', '/mutate') });
        continue;
      }
      servers.push({
        key,
        label: key === 'b' ? `b  daemon, policy pool (${workers} worker${workers === 1 ? '' : 's'})` : 'c  daemon, main-thread evaluation',
        child,
        target: target(port, body, allowed),
        deny: target(port, privileged, denied),
      });
    }

    // Every server answers what it should before anything is measured.
    // A fixed set of keep-alive connections per server (as the apiserver keeps to a webhook), opened in the warm-up: the
    // open loop queues on them instead of opening new ones, so no TLS handshake lands inside a measurement.
    const agents = new Map(servers.map((s) => [s.key, newAgent(connections)]));
    for (const s of servers) {
      const agent = agents.get(s.key)!;
      if (!(await postOnce(s.target, agent))) throw new Error(`${s.label} did not answer the pod review as expected (${s.target.expect})`);
      if (s.deny && !(await postOnce(s.deny, agent))) throw new Error(`${s.label} did not deny the privileged pod`);
    }

    const header = [
      `static-admissiond hot-path benchmark — Node ${process.version}, ${availableParallelism()} CPUs (availableParallelism), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
      `request: ${bodyFile.slice(root.length + 1)} (${body.length} B), policies: testdata/bench/policies (20 policies, 40 expressions, all admit the pod), pool: ${poolWorkers} worker(s)`,
      'servers run as separate processes; the load generator (this process) uses HTTPS keep-alive connections on 127.0.0.1',
    ];
    console.log(header.join('\n'));

    // warm-up: JIT, connections, worker caches
    for (const s of servers) await closedLoop(s.target, agents.get(s.key)!, connections, 1.5);

    // maximum throughput: closed loop, rounds alternating between servers
    const perRound = new Map<string, number[]>(servers.map((s) => [s.key, []]));
    const cpu = new Map<string, { server: number; client: number; n: number }>(servers.map((s) => [s.key, { server: 0, client: 0, n: 0 }]));
    const closedLatency = new Map<string, number[]>(servers.map((s) => [s.key, []]));
    for (let r = 0; r < rounds; r++) {
      for (const s of servers) {
        const c0 = cpuSeconds(s.child.pid!);
        const u0 = process.cpuUsage();
        const res = await closedLoop(s.target, agents.get(s.key)!, connections, roundSeconds);
        const u = process.cpuUsage(u0);
        const c = cpu.get(s.key)!;
        c.server += cpuSeconds(s.child.pid!) - c0;
        c.client += (u.user + u.system) / 1e6;
        c.n += res.completed;
        if (res.errors > 0) console.log(`  ! ${s.label}: ${res.errors} failed requests in round ${r + 1}`);
        perRound.get(s.key)!.push(res.completed / res.seconds);
        closedLatency.get(s.key)!.push(percentile(res.latencies.sort(), 50));
      }
    }
    const max = new Map(servers.map((s) => [s.key, median(perRound.get(s.key)!)]));
    const pairedRatio = (x: string, y: string): number => median(perRound.get(x)!.map((v, i) => v / perRound.get(y)![i]!));

    console.log(`\nmaximum throughput — closed loop, ${connections} connections, ${rounds} rounds × ${roundSeconds} s, median (rounds)`);
    console.log(`${'server'.padEnd(42)}${'req/s'.padStart(8)}   ${'rounds'.padEnd(22)}${'p50 ms'.padStart(8)}${'server CPU µs/req'.padStart(20)}${'client CPU µs/req'.padStart(20)}`);
    for (const s of servers) {
      const c = cpu.get(s.key)!;
      console.log(`${s.label.padEnd(42)}${max.get(s.key)!.toFixed(0).padStart(8)}   ${perRound.get(s.key)!.map((v) => v.toFixed(0)).join('/').padEnd(22)}${fmt(median(closedLatency.get(s.key)!)).padStart(8)}${(c.server / c.n * 1e6).toFixed(0).padStart(20)}${(c.client / c.n * 1e6).toFixed(0).padStart(20)}`);
    }

    // latency at fixed offered rates: open loop
    const open = new Map<string, Map<number, LoadResult>>(servers.map((s) => [s.key, new Map()]));
    for (const rate of rates) {
      for (const s of servers) {
        const res = await openLoop(s.target, agents.get(s.key)!, rate, openSeconds);
        res.latencies.sort();
        open.get(s.key)!.set(rate, res);
      }
    }
    console.log(`\nlatency at fixed offered rates — open loop, ${openSeconds} s per rate, timed from when each request was due: p50 / p99 ms (achieved req/s)`);
    console.log(`${'server'.padEnd(42)}${rates.map((r) => `${r} req/s`.padStart(26)).join('')}`);
    for (const s of servers) {
      const cells = rates.map((rate) => {
        const res = open.get(s.key)!.get(rate)!;
        const errors = res.errors > 0 ? ` ${res.errors} err` : '';
        return `${fmt(percentile(res.latencies, 50))} / ${fmt(percentile(res.latencies, 99))} (${(res.completed / res.seconds).toFixed(0)})${errors}`.padStart(26);
      });
      console.log(`${s.label.padEnd(42)}${cells.join('')}`);
    }

    console.log(`\nmutating (m) against validating (b) at the same offered rate: p50 ratio / p99 ratio`);
    console.log(rates.map((rate) => {
      const m = open.get('m')!.get(rate)!.latencies;
      const b = open.get('b')!.get(rate)!.latencies;
      return `  ${rate} req/s: m/b = ${fmt(percentile(m, 50) / percentile(b, 50))} / ${fmt(percentile(m, 99) / percentile(b, 99))}`;
    }).join('\n'));

    // low rates: the wake-up path, where a lone request finds every thread asleep
    const low = new Map<string, Map<number, number[]>>(servers.map((s) => [s.key, new Map(lowRates.map((r) => [r, []]))]));
    for (let r = 0; r < lowRounds; r++) {
      for (const rate of lowRates) {
        for (const s of servers.filter((x) => x.key !== 'm')) {
          const res = await openLoop(s.target, agents.get(s.key)!, rate, lowSeconds);
          if (res.errors > 0) console.log(`  ! ${s.label}: ${res.errors} failed requests at ${rate} req/s`);
          low.get(s.key)!.get(rate)!.push(...res.latencies);
        }
      }
    }
    const signed = (v: number): string => `${v >= 0 ? '+' : ''}${fmt(v)}`;
    const lowPct = (key: string, rate: number, p: number): number => percentile(Float64Array.from(low.get(key)!.get(rate)!).sort(), p);
    console.log(`\nlow rates — open loop, ${lowRounds} rounds × ${lowSeconds} s per rate, servers alternating; latencies pooled over rounds`);
    console.log(`${'server'.padEnd(42)}${lowRates.map((r) => `${r} req/s p50 / p99 (added over a)`.padStart(40)).join('')}`);
    const added = new Map<string, Map<number, { p50: number; p99: number }>>();
    for (const s of servers.filter((x) => x.key !== 'm')) {
      const row = new Map<number, { p50: number; p99: number }>();
      const cells = lowRates.map((rate) => {
        const p50 = lowPct(s.key, rate, 50);
        const p99 = lowPct(s.key, rate, 99);
        const d = { p50: p50 - lowPct('a', rate, 50), p99: p99 - lowPct('a', rate, 99) };
        row.set(rate, d);
        return `${fmt(p50)} / ${fmt(p99)}${s.key === 'a' ? '' : ` (${signed(d.p50)} / ${signed(d.p99)})`}`.padStart(40);
      });
      added.set(s.key, row);
      console.log(`${s.label.padEnd(42)}${cells.join('')}`);
    }

    const ba = pairedRatio('b', 'a');
    const bc = pairedRatio('b', 'c');
    const ca_ = pairedRatio('c', 'a');
    console.log(`\nratios (median of per-round paired ratios): b/a = ${fmt(ba)}   b/c = ${fmt(bc)}   c/a = ${fmt(ca_)}`);
    const p99at1000 = open.get('b')!.has(1000) ? percentile(open.get('b')!.get(1000)!.latencies, 99) : NaN;
    const bar1 = ba >= 0.5;
    const bar2 = p99at1000 < 2;
    console.log('bars:');
    console.log(`  b max throughput >= 50% of a's          b/a = ${fmt(ba)}            ${bar1 ? 'PASS' : 'FAIL'}`);
    console.log(`  b p99 at 1,000 req/s < 2 ms              p99 = ${fmt(p99at1000)} ms       ${bar2 ? 'PASS' : 'FAIL'}`);
    if (open.get('a')!.has(1000)) {
      const addedAt1000 = p99at1000 - percentile(open.get('a')!.get(1000)!.latencies, 99);
      console.log(`  b added p99 at 1,000 req/s <= 0.5 ms     ${signed(addedAt1000)} ms        ${addedAt1000 <= 0.5 ? 'PASS' : 'FAIL'}`);
    }
    for (const key of ['b', 'c'] as const) {
      const at50 = added.get(key)?.get(50);
      if (!at50) continue;
      console.log(`  ${key} at 50 req/s: added p50 <= 0.15 ms    ${signed(at50.p50)} ms        ${at50.p50 <= 0.15 ? 'PASS' : 'FAIL'}`);
      console.log(`  ${key} at 50 req/s: added p99 <= 0.5 ms     ${signed(at50.p99)} ms        ${at50.p99 <= 0.5 ? 'PASS' : 'FAIL'}`);
    }
    console.log(`\n(whole run ${((Date.now() - started) / 1000).toFixed(0)} s)`);
    for (const agent of agents.values()) agent.destroy();
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await delay(200);
    cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
