// Hot-path benchmark (npm run bench): in one run, on loopback, with keep-alive HTTPS connections,
//   (a)  a bare Node HTTPS server that reads the body, runs JSON.parse on it and answers a fixed allow (bare-server.ts),
//   (bN) the daemon — the real executable, `serve` — with a policy pool of N workers (--pool-workers, default the
//        daemon's own default; on a pinned run 1, 3 and 7),
//   (c)  the same daemon evaluating on the main thread (--workers 0),
//   (m)  the daemon answering POST /mutate with the 10 MutatingAdmissionPolicies of testdata/bench/mutating-policies
//        (6 change the pod), alongside the validating policies, with the daemon's default workers,
// (a)–(c) with the 20 Pod Security Standards-style policies (40 expressions) of testdata/bench/policies on the 4 KB pod
// review testdata/bench/pod-review.json. Each server is its own process; the load comes from --client-processes
// processes (bench/load-process.ts).
//
// Many cores (../shared/tools/device-bench.md): --server-cpus 0-3 --client-cpus 6-15 pin the servers and the load
// generators with taskset, so client and server never share a core. Without them it runs unpinned, as on 2 cores.
//
// The other cases are their own scripts: npm run bench:reload, bench:webhooks, bench:test, bench:shadow,
// bench:replay (the `replay` command over one million audit events, on one core and on all) and bench:profile.
//
// Prints the maximum throughput (closed loop; rounds alternate between servers and ratios are medians of per-round
// pairs, so drifting machine load cancels out), p50/p99 at fixed offered rates (open loop, timed from when each
// request was due), and per server the CPU time per request of its main thread and of the whole process (/proc),
// then the hot-path issues' bars (issue 27's on any machine: main-thread CPU against bare's, the pool's whole process against
// --workers 0, /mutate's CPU, the low-rate latency; the throughput and rate bars want a pinned run). Low rates
// (--low-rates) pool latencies over rounds, servers alternating, with the CPU per lone request.
//
// Flags: --seconds N (closed-loop round, default 3), --rounds N (3), --connections N (16 per server, split over the
// client processes), --open-seconds N (3), --rates list (pinned: 50,1000,5000; else 250,500,1000), --low-rates list
// (pinned: none; else 50,200), --low-seconds N (8), --low-rounds N (3), --pool-workers list, --client-processes N
// (pinned: one per client CPU, at most 8; else 1), --server-cpus LIST, --client-cpus LIST, --no-mutate,
// --compare DIR (every daemon also run from DIR's dist/, another build, its rounds alternating with this one's),
// --policies DIR (the validating policies instead of testdata/bench/policies: they must admit the pod and deny it when
// privileged, e.g. a directory holding only 01-pss-privileged.yaml, to see the daemon's cost apart from its policies'),
// --floor (adds f, the daemon with --workers 0 and no policies at all: what the listener, the decode and the answer
// add over bare; c's distance from f is then the policies' evaluation), --low-warmup N (seconds at 200 req/s, not
// measured, each server takes before the low-rate rounds; default 5, 0 for none: see warmLowRates).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPoolThreads } from '../lib/admission/pool/pool.js';
import { LoadGenerators, perRequest } from './load-generators.js';
import type { Measured, Server } from './load-generators.js';
import type { WireTarget } from './load-process.js';
import { percentile } from './load.js';
import { benchWorkspace, executableArgv, fmt, freePort, httpStatus, median, mutatingAdmissionConfig, until, validatingAdmissionConfig, writeServingCertificate } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i]!.replace(/^--/, '');
  if (name === 'no-mutate' || name === 'floor') args.set(name, 'true');
  else args.set(name, process.argv[++i] ?? '');
}
const num = (name: string, def: number): number => (args.has(name) ? Number(args.get(name)) : def);
const list = (name: string, def: readonly number[]): number[] => (args.has(name) ? args.get(name)!.split(',').filter((x) => x !== '').map(Number) : [...def]);
/** CPUs in a taskset list such as 0-3,8 */
const cpuCount = (spec: string): number => spec.split(',').reduce((n, part) => {
  const [lo, hi] = part.split('-').map(Number);
  return n + (hi === undefined ? 1 : hi - lo! + 1);
}, 0);

const serverCpus = args.get('server-cpus');
const clientCpus = args.get('client-cpus');
const pinned = serverCpus !== undefined;
const roundSeconds = num('seconds', 3);
const rounds = num('rounds', 3);
const connections = num('connections', 16);
const openSeconds = num('open-seconds', 3);
const rates = list('rates', pinned ? [50, 1000, 5000] : [250, 500, 1000]);
const lowRates = list('low-rates', pinned ? [] : [50, 200]);
const lowSeconds = num('low-seconds', 8);
const lowRounds = num('low-rounds', 3);
const lowWarmup = num('low-warmup', 5);
/** the warm-up's rate: lone requests still (the default pool evaluates them inline), 1,000 of them in 5 s */
const warmupRate = 200;
const poolWorkers = list('pool-workers', pinned ? [1, 3, 7] : [defaultPoolThreads()]);
const clientProcesses = Math.max(1, num('client-processes', clientCpus !== undefined ? Math.min(8, cpuCount(clientCpus)) : 1));
const withMutate = !args.has('no-mutate');
const withFloor = args.has('floor');
const compare = args.has('compare') ? resolve(args.get('compare')!) : undefined;
/** The daemon's default pool size where the servers run (the workers its --workers default gives them). */
const defaultWorkers = pinned ? Math.max(1, cpuCount(serverCpus) - 1) : defaultPoolThreads();

/** `node args…`, pinned to `cpus` with taskset when given (taskset execs node: the pid is node's). */
function node(cpus: string | undefined, argv: readonly string[], stdio: 'server' | 'daemon'): ChildProcess {
  const [cmd, rest] = cpus === undefined ? [process.execPath, argv] : ['taskset', ['-c', cpus, process.execPath, ...argv]];
  return spawn(cmd, rest, { stdio: stdio === 'server' ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'ignore', 'pipe'] });
}

const signed = (v: number): string => `${v >= 0 ? '+' : ''}${fmt(v)}`;
/** p50 and p99 of `sorted` (latencies, ms) over those of `base`: "+0.12 / +0.40" */
const addedOver = (sorted: Float64Array, base: Float64Array): string =>
  `${signed(percentile(sorted, 50) - percentile(base, 50))} / ${signed(percentile(sorted, 99) - percentile(base, 99))}`;
/** "p50 / p99" of `sorted`, and what it adds over `base` (none for bare itself) */
const latencyCell = (sorted: Float64Array, base: Float64Array | undefined): string =>
  `${fmt(percentile(sorted, 50))} / ${fmt(percentile(sorted, 99))}${base === undefined ? '' : ` (${addedOver(sorted, base)})`}`;
const pass = (ok: boolean): string => (ok ? 'PASS' : 'FAIL');

/** A server's CPU seconds over a phase (main thread, whole process, the load processes) and the requests it answered. */
interface CpuSpent { main: number; total: number; client: number; n: number }

/** Per server, then per rate: the low-rate rounds' latencies pooled, and the server's CPU over them. */
type LowRates = Map<string, Map<number, { latencies: number[]; cpu: CpuSpent; rounds: string[] }>>;

interface Results {
  /** closed-loop throughput per round */
  readonly perRound: Map<string, number[]>;
  /** closed-loop CPU */
  readonly cpu: Map<string, CpuSpent>;
  readonly open: Map<string, Map<number, Measured>>;
  readonly low: LowRates;
  /** each server's warm-up before the low-rate rounds (empty without one) */
  readonly warmup: Map<string, Measured>;
}

/** A server's latencies at a low rate, pooled over the rounds, sorted. */
const pooledLatencies = (low: LowRates, key: string, rate: number): Float64Array => Float64Array.from(low.get(key)!.get(rate)!.latencies).sort();
const lowPercentile = (low: LowRates, key: string, rate: number, p: number): number => percentile(pooledLatencies(low, key, rate), p);

/**
 * Before the low-rate rounds, each server in turn answers lowWarmup seconds of lone requests, not counted in the
 * rounds. The closed loop left the pool's evaluation to its workers, so the pool's main thread runs the inline path
 * only from the open-loop phases on, and V8 optimizes it over its first ~1,000 lone requests, compiling beside them on
 * the same cores. A daemon goes through that once; a busy spell later does not undo it (docs/adr/0003-thin-main-
 * thread.md, "Seventh pass"). With the warm-up the rounds measure the settled path, whatever --rates ran before them,
 * and the warm-up's own latencies are printed apart: what the first quiet spell after start-up costs.
 */
async function warmLowRates(load: LoadGenerators, servers: readonly Server[]): Promise<Map<string, Measured>> {
  const warmup = new Map<string, Measured>();
  if (lowRates.length === 0 || lowWarmup <= 0) return warmup;
  for (const s of servers) warmup.set(s.key, await load.run(s, 'open', { rate: warmupRate, seconds: lowWarmup }));
  return warmup;
}

/** Low rates, the wake-up path where a lone request finds every thread asleep: rounds alternate between servers. */
async function measureLowRates(load: LoadGenerators, servers: readonly Server[]): Promise<LowRates> {
  const low: LowRates = new Map(servers.map((s) => [s.key, new Map(lowRates.map((r) => [r, { latencies: [], cpu: { main: 0, total: 0, client: 0, n: 0 }, rounds: [] }]))]));
  for (let r = 0; r < lowRounds; r++) {
    for (const rate of lowRates) {
      for (const s of servers) {
        const res = await load.run(s, 'open', { rate, seconds: lowSeconds });
        if (res.errors > 0) console.log(`  ! ${s.label}: ${res.errors} failed requests at ${rate} req/s`);
        const cell = low.get(s.key)!.get(rate)!;
        cell.latencies.push(...res.latencies);
        cell.rounds.push(`${fmt(percentile(res.latencies, 50))}/${fmt(percentile(res.latencies, 99))}`);
        cell.cpu.main += res.mainCpu;
        cell.cpu.total += res.totalCpu;
        cell.cpu.client += res.clientCpu;
        cell.cpu.n += res.completed;
      }
    }
  }
  return low;
}

// The CPU per lone request, against the closed loop's, shows what cold caches cost on the machine at hand.
function printLowRates(low: LowRates, warmup: Map<string, Measured>, servers: readonly Server[]): void {
  if (lowRates.length === 0) return;
  if (warmup.size > 0) {
    console.log(`\nlow-rate warm-up — open loop, ${lowWarmup} s at ${warmupRate} req/s per server right after the busy phases, not in the rounds: p50 / p99 ms (added over a)`);
    const bare = warmup.get('a')!.latencies;
    for (const s of servers) console.log(`${s.label.padEnd(46)}${latencyCell(warmup.get(s.key)!.latencies, s.key === 'a' ? undefined : bare).padStart(44)}`);
  }
  console.log(`\nlow rates — open loop, ${lowRounds} rounds × ${lowSeconds} s per rate, servers alternating; latencies pooled over rounds: p50 / p99 ms (added over a) [CPU µs/req main / total]`);
  console.log(`${'server'.padEnd(46)}${lowRates.map((r) => `${r} req/s`.padStart(44)).join('')}`);
  for (const s of servers) {
    const cells = lowRates.map((rate) => {
      const { cpu } = low.get(s.key)!.get(rate)!;
      const cell = latencyCell(pooledLatencies(low, s.key, rate), s.key === 'a' ? undefined : pooledLatencies(low, 'a', rate));
      return `${cell} [${perRequest(cpu.main, cpu.n)}/${perRequest(cpu.total, cpu.n)}]`.padStart(44);
    });
    console.log(`${s.label.padEnd(46)}${cells.join('')}`);
  }
  // a transient (V8 still compiling what a busy spell did not run on this thread) shows in the first rounds
  for (const rate of lowRates) {
    console.log(`per round at ${rate} req/s, p50/p99 ms:`);
    for (const s of servers) console.log(`  ${s.key.padEnd(5)}${low.get(s.key)!.get(rate)!.rounds.join('  ')}`);
  }
}

/** The hot-path issues' bars: those of issue 27 hold on any machine, the throughput and rate ones want a pinned run. */
function printBars({ perRound, cpu, open, low, warmup }: Results): void {
  const b = `b${defaultWorkers}`;
  console.log(`\nbars (the default pool is ${b}${perRound.has(b) ? '' : ': not measured, name it in --pool-workers'}):`);
  if (!perRound.has(b)) return;
  const max = (key: string): number => median(perRound.get(key)!);
  const at = (key: string, rate: number, p: number): number => percentile(open.get(key)!.get(rate)!.latencies, p);
  const perReq = (key: string, which: 'main' | 'total'): number => {
    const c = cpu.get(key);
    return c === undefined || c.n === 0 ? NaN : (c[which] / c.n) * 1e6;
  };
  const mainRatio = perReq(b, 'main') / perReq('a', 'main');
  console.log(`  ${b} main-thread CPU/req <= 1.25 of a's          ${fmt(mainRatio).padStart(8)}        ${pass(mainRatio <= 1.25)}`);
  if (cpu.has('c')) {
    const whole = perReq(b, 'total');
    const inline = perReq('c', 'total');
    console.log(`  ${b} whole-process CPU/req <= c's          ${`${whole.toFixed(1)} vs ${inline.toFixed(1)}`.padStart(13)} µs    ${pass(whole <= inline)}`);
  }
  if (cpu.has('m')) {
    const m = perReq('m', 'total');
    console.log(`  m /mutate whole-process CPU/req <= 232 µs     ${m.toFixed(0).padStart(8)} µs     ${pass(m <= 232)}`);
  }
  if (lowRates.includes(50)) {
    const p50 = lowPercentile(low, b, 50, 50) - lowPercentile(low, 'a', 50, 50);
    const p99 = lowPercentile(low, b, 50, 99) - lowPercentile(low, 'a', 50, 99);
    console.log(`  ${b} at 50 req/s (low rounds): added p50 <= 0.3 ms ${signed(p50).padStart(6)} ms  ${pass(p50 <= 0.3)}`);
    console.log(`  ${b} at 50 req/s (low rounds): added p99 <= 0.6 ms ${signed(p99).padStart(6)} ms  ${pass(p99 <= 0.6)}`);
    const first = warmup.get(b);
    if (first !== undefined) console.log(`    (${b}'s first quiet spell, the warm-up at ${warmupRate} req/s: added p50 / p99 ${addedOver(first.latencies, warmup.get('a')!.latencies)} ms, not a bar)`);
  }
  const ratio = median(perRound.get(b)!.map((v, i) => v / perRound.get('a')![i]!));
  console.log(`  max throughput of ${b} >= 0.8 of a's             ${fmt(ratio).padStart(8)}        ${pass(ratio >= 0.8)}`);
  const pools = poolWorkers.filter((w) => w > 0).sort((x, y) => x - y).map((w) => `b${w}`);
  for (let i = 1; i < pools.length; i++) {
    // "beyond noise": the spread of the fewer workers' own rounds
    const lower = pools[i - 1]!;
    const spread = Math.max(...perRound.get(lower)!) - Math.min(...perRound.get(lower)!);
    const ok = max(pools[i]!) >= max(lower) - spread;
    console.log(`  ${pools[i]} does not lower ${lower}'s max throughput    ${max(pools[i]!).toFixed(0)} vs ${max(lower).toFixed(0)} (±${spread.toFixed(0)})   ${pass(ok)}`);
  }
  if (rates.includes(50)) {
    const p50 = at(b, 50, 50) - at('a', 50, 50);
    const p99 = at(b, 50, 99) - at('a', 50, 99);
    console.log(`  ${b} at 50 req/s: added p50 <= 0.2 ms            ${signed(p50).padStart(8)} ms     ${pass(p50 <= 0.2)}`);
    console.log(`  ${b} at 50 req/s: added p99 <= 0.5 ms            ${signed(p99).padStart(8)} ms     ${pass(p99 <= 0.5)}`);
  }
  if (rates.includes(1000)) {
    const p99 = at(b, 1000, 99) - at('a', 1000, 99);
    console.log(`  ${b} at 1,000 req/s: added p99 <= 0.5 ms         ${signed(p99).padStart(8)} ms     ${pass(p99 <= 0.5)}`);
  }
  if (rates.includes(5000)) {
    const p99 = at(b, 5000, 99);
    console.log(`  ${b} at 5,000 req/s: p99 <= 5 ms                 ${fmt(p99).padStart(8)} ms     ${pass(p99 <= 5)}`);
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const { tmp, children, stop } = benchWorkspace('sad-bench-');
  const load = new LoadGenerators(clientProcesses, connections, clientCpus);
  try {
    const { ca, certFile, keyFile } = await writeServingCertificate(tmp, 'bench CA', 'static-admissiond');
    const policiesDir = args.has('policies') ? resolve(args.get('policies')!) : join(root, 'testdata', 'bench', 'policies');
    const config = join(tmp, 'admission-config.yaml');
    writeFileSync(config, validatingAdmissionConfig(policiesDir));
    const mutatingConfig = join(tmp, 'admission-config-mutating.yaml');
    writeFileSync(mutatingConfig, mutatingAdmissionConfig(policiesDir, join(root, 'testdata', 'bench', 'mutating-policies')));
    const noPolicies = join(tmp, 'no-policies');
    mkdirSync(noPolicies);
    const floorConfig = join(tmp, 'admission-config-floor.yaml');
    writeFileSync(floorConfig, validatingAdmissionConfig(noPolicies));
    const bodyFile = join(root, 'testdata', 'bench', 'pod-review.json');
    const body = readFileSync(bodyFile);
    const review = JSON.parse(body.toString('utf8')) as { request: { uid: string; object: { spec: { containers: Array<{ securityContext: Record<string, unknown> }> } } } };
    const uid = review.request.uid;
    review.request.object.spec.containers[0]!.securityContext.privileged = true;
    const privileged = Buffer.from(JSON.stringify(review));

    const target = (port: number, b: Buffer, expect: string, path = '/validate'): WireTarget => ({ url: `https://127.0.0.1:${port}${path}?timeout=10s`, ca: ca.certPEM, body: b.toString('base64'), expect });
    const allowed = `"uid":"${uid}","allowed":true`;
    const denied = 'denied request: privileged containers are not allowed';

    const servers: Server[] = [];
    {
      const port = await freePort();
      const child = node(serverCpus, [join(root, 'dist', 'bench', 'bare-server.js'), String(port), certFile, keyFile, uid], 'server');
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      await until('the bare server', () => out.includes('listening'));
      servers.push({ key: 'a', label: 'a  bare HTTPS server + JSON.parse', child, target: target(port, body, allowed) });
    }
    const ours: Array<readonly [string, number, string]> = [
      ...poolWorkers.map((w) => [`b${w}`, w, `b${w} daemon, pool of ${w} worker${w === 1 ? '' : 's'}${w === defaultWorkers ? ' (default)' : ''}`] as const),
      ['c', 0, 'c  daemon, --workers 0'],
      ...(withFloor ? [['f', 0, 'f  daemon, --workers 0, no policies (floor)'] as const] : []),
      ...(withMutate ? [['m', defaultWorkers, `m  daemon, /mutate (10 mutating policies)`] as const] : []),
    ];
    // with --compare, each daemon of the other build right after ours (key and label marked with ')
    const daemons = ours.flatMap(([key, workers, label]) => [
      [key, workers, label, root] as const,
      ...(compare === undefined ? [] : [[`${key}'`, workers, `${key}' ${label.slice(3)} [${compare.split('/').pop()}]`, compare] as const]),
    ]);
    for (const [key, workers, label, daemonRoot] of daemons) {
      const port = await freePort();
      const health = await freePort();
      const child = node(serverCpus, [
        ...executableArgv(daemonRoot), 'serve',
        '--admission-config', key.startsWith('m') ? mutatingConfig : key.startsWith('f') ? floorConfig : config, '--tls-cert-file', certFile, '--tls-private-key-file', keyFile,
        '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
        '--workers', String(workers), '--reload-interval', '1h', '--logging-format', 'json',
      ], 'daemon');
      children.push(child);
      let err = '';
      child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      child.on('exit', (code) => { if (code !== 0 && code !== null) process.stderr.write(`daemon ${key} exited ${code}:\n${err}\n`); });
      await until(`daemon ${key} ready`, async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200, 120_000);
      servers.push(key.startsWith('m') ? { key, label, child, target: target(port, body, '"patchType":"JSONPatch"', '/mutate') }
        : key.startsWith('f') ? { key, label, child, target: target(port, body, allowed) }
          : { key, label, child, target: target(port, body, allowed), deny: target(port, privileged, denied) });
    }
    const validating = servers.filter((s) => !s.key.startsWith('m'));

    // Every server answers what it should before anything is measured; the checks open the keep-alive connections.
    for (const s of servers) {
      if ((await load.run(s, 'check')).errors > 0) throw new Error(`${s.label} did not answer the pod review as expected`);
      if (s.deny && (await load.run(s, 'check', { target: s.deny })).errors > 0) throw new Error(`${s.label} did not deny the privileged pod`);
    }

    console.log([
      `static-admissiond hot-path benchmark — Node ${process.version}, ${availableParallelism()} CPUs here, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
      pinned ? `servers pinned to CPUs ${serverCpus} (daemon default: ${defaultWorkers} workers), ${clientProcesses} load process(es) pinned to ${clientCpus ?? 'any CPU'}` : `unpinned; ${clientProcesses} load process(es)`,
      `request: ${bodyFile.slice(root.length + 1)} (${body.length} B), policies: ${args.has('policies') ? policiesDir : 'testdata/bench/policies (20 policies, 40 expressions, all admit the pod)'}`,
      'CPU per request from /proc: the server\'s main thread / the whole server process; client: the load processes',
    ].join('\n'));

    // warm-up: JIT, connections, worker caches
    for (const s of servers) await load.run(s, 'closed', { seconds: 1.5 });

    // maximum throughput: closed loop, rounds alternating between servers
    const perRound = new Map<string, number[]>(servers.map((s) => [s.key, []]));
    const cpu = new Map<string, CpuSpent>(servers.map((s) => [s.key, { main: 0, total: 0, client: 0, n: 0 }]));
    const closedP50 = new Map<string, number[]>(servers.map((s) => [s.key, []]));
    for (let r = 0; r < rounds; r++) {
      for (const s of servers) {
        const res = await load.run(s, 'closed', { seconds: roundSeconds });
        const c = cpu.get(s.key)!;
        c.main += res.mainCpu;
        c.total += res.totalCpu;
        c.client += res.clientCpu;
        c.n += res.completed;
        if (res.errors > 0) console.log(`  ! ${s.label}: ${res.errors} failed requests in round ${r + 1}`);
        perRound.get(s.key)!.push(res.completed / res.seconds);
        closedP50.get(s.key)!.push(percentile(res.latencies, 50));
      }
    }
    const max = (key: string): number => median(perRound.get(key)!);
    const pairedRatio = (x: string, y: string): number => median(perRound.get(x)!.map((v, i) => v / perRound.get(y)![i]!));

    console.log(`\nmaximum throughput — closed loop, ${connections} connections, ${rounds} rounds × ${roundSeconds} s, median (rounds)`);
    console.log(`${'server'.padEnd(46)}${'req/s'.padStart(8)}${'/a'.padStart(7)}   ${'rounds'.padEnd(20)}${'p50 ms'.padStart(8)}${'CPU µs/req main / total'.padStart(26)}${'client µs/req'.padStart(15)}`);
    for (const s of servers) {
      const c = cpu.get(s.key)!;
      console.log(`${s.label.padEnd(46)}${max(s.key).toFixed(0).padStart(8)}${(s.key.startsWith('m') ? '' : fmt(pairedRatio(s.key, 'a'))).padStart(7)}   ${perRound.get(s.key)!.map((v) => v.toFixed(0)).join('/').padEnd(20)}${fmt(median(closedP50.get(s.key)!)).padStart(8)}${`${perRequest(c.main, c.n)} / ${perRequest(c.total, c.n)}`.padStart(26)}${perRequest(c.client, c.n).padStart(15)}`);
    }

    // latency at fixed offered rates: open loop
    const open = new Map<string, Map<number, Measured>>(servers.map((s) => [s.key, new Map()]));
    for (const rate of rates) for (const s of servers) open.get(s.key)!.set(rate, await load.run(s, 'open', { rate, seconds: openSeconds }));
    console.log(`\nlatency at fixed offered rates — open loop, ${openSeconds} s per rate, timed from when each request was due: p50 / p99 ms (added over a) [CPU µs/req main / total]`);
    console.log(`${'server'.padEnd(46)}${rates.map((r) => `${r} req/s`.padStart(44)).join('')}`);
    for (const s of servers) {
      const cells = rates.map((rate) => {
        const res = open.get(s.key)!.get(rate)!;
        const errors = res.errors > 0 ? ` ${res.errors} err` : '';
        return `${latencyCell(res.latencies, s.key === 'a' ? undefined : open.get('a')!.get(rate)!.latencies)} [${perRequest(res.mainCpu, res.completed)}/${perRequest(res.totalCpu, res.completed)}]${errors}`.padStart(44);
      });
      console.log(`${s.label.padEnd(46)}${cells.join('')}`);
    }

    const warmup = await warmLowRates(load, validating);
    const low = await measureLowRates(load, validating);
    printLowRates(low, warmup, validating);
    printBars({ perRound, cpu, open, low, warmup });
    if (compare !== undefined) {
      console.log(`\nthis build against ${compare} (median of per-round paired ratios; CPU per request over all rounds, main / total):`);
      for (const [key] of ours) {
        const o = cpu.get(key)!;
        const t = cpu.get(`${key}'`)!;
        console.log(`  ${key.padEnd(4)} throughput ${fmt(pairedRatio(key, `${key}'`))}×   CPU µs/req ${perRequest(o.main, o.n)} / ${perRequest(o.total, o.n)} against ${perRequest(t.main, t.n)} / ${perRequest(t.total, t.n)}`);
      }
    }
    console.log(`\n(whole run ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    load.close();
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
