// Hostile-input benchmark (npm run bench:hostile): does the daemon's memory come back after a flood of malformed
// requests, and does every one of them get its refusal? One daemon — the real executable, `serve`, real HTTPS on
// loopback, the bench's policy set (testdata/bench/policies and mutating-policies), the default pool — gets --requests
// hostile cases (hostile-inputs.ts: bad JSON, wrong types, deep nesting, bodies up to the 7 MiB limit and over it,
// gzip bombs, wrong content types, bad HTTP framing, clients hanging up mid-body) over --connections keep-alive
// connections, while --slow-connections more hold slow clients (stalled and trickled headers and bodies).
//
// Checks: the daemon never exits, never answers 5xx, and answers every case that still has a client with the status
// it owes (400/413/415/431 as a metav1.Status or Go-style text naming the fault, 408 for slow clients and for bodies
// of megabytes that took longer than the request timeout to arrive), with a message.
// Samples the daemon's RSS (/proc/<pid>/status VmRSS; the worker threads are in the same process) after the first
// tenth of the cases, its peak (VmHWM) and at the end, once nothing is in flight (the pool's in-flight gauge at 0,
// the connections closed) and RSS has stopped moving; then prints issue 27's bar: end ≤ max(2 × tenth, tenth +
// 256 MiB) and peak ≤ 1 GiB.
//
//   node dist/bench/hostile.js [--requests 100000] [--connections 32] [--slow-connections 8] [--seed 1]
//                              [--workers N] [--root DIR (another build's daemon)] [--node-options "..."]
//                              [--daemon-args "..."] [--daemon-log FILE (its stderr)] [--no-unit-environment] [--quiet]
//
// The daemon runs with the Environment= of systemd/static-admissiond.service (glibc malloc and heap settings), as
// the unit runs it; --no-unit-environment leaves them out.
//
// Exit 1 when a check or the bar fails (the bar only with --requests 100000 or more).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultAdmissionServerLimits } from '../lib/server/limits.js';
import { send } from './hostile-client.js';
import type { Endpoint, Outcome } from './hostile-client.js';
import { hostileCatalogue } from './hostile-inputs.js';
import type { HostileCase } from './hostile-inputs.js';
import { benchWorkspace, cpuSeconds, executableArgv, fmt, freePort, generator, httpStatus, metricsText, mutatingAdmissionConfig, until, writeServingCertificate } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i]!.replace(/^--/, '');
  if (name === 'quiet' || name === 'no-unit-environment') args.set(name, 'true');
  else args.set(name, process.argv[++i] ?? '');
}
const num = (name: string, def: number): number => (args.has(name) ? Number(args.get(name)) : def);
const MiB = 1024 * 1024;
const fullRun = 100_000;

/** VmRSS and VmHWM of a process, bytes. */
export function processMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kB('VmRSS'), hwm: kB('VmHWM') };
}

/** A gauge or counter's value in Prometheus text (the sum over its series). */
function metricValue(text: string, name: string): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

const mib = (bytes: number): string => `${fmt(bytes / MiB, 0)} MiB`;

/** The Environment= assignments of the shipped systemd unit (glibc malloc and V8 heap settings): the daemon runs with them. */
export function unitEnvironment(unitText: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of unitText.matchAll(/^Environment=(.*)$/gm)) {
    for (const assignment of m[1]!.trim().split(/\s+/)) {
      const eq = assignment.indexOf('=');
      if (eq > 0) env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
  }
  return env;
}

interface Daemon {
  readonly child: ChildProcess;
  readonly endpoint: Endpoint;
  readonly metrics: string;
  readonly stderr: () => string;
}

async function startDaemon(tmp: string, children: ChildProcess[]): Promise<Daemon> {
  const { ca, certFile, keyFile } = await writeServingCertificate(tmp, 'hostile bench CA', 'static-admissiond');
  const config = join(tmp, 'admission-config.yaml');
  writeFileSync(config, mutatingAdmissionConfig(join(root, 'testdata/bench/policies'), join(root, 'testdata/bench/mutating-policies')));
  const port = await freePort();
  const health = await freePort();
  const daemonRoot = resolve(args.get('root') ?? root);
  const nodeOptions = (args.get('node-options') ?? '').split(' ').filter((x) => x !== '');
  const extra = (args.get('daemon-args') ?? '').split(' ').filter((x) => x !== '');
  // another build's (--root) own unit, when it has one: each daemon runs as its unit would run it
  const unitFile = join(daemonRoot, 'systemd/static-admissiond.service');
  const env = args.has('no-unit-environment') || !existsSync(unitFile) ? {} : unitEnvironment(readFileSync(unitFile, 'utf8'));
  if (!args.has('quiet')) process.stderr.write(`daemon environment from systemd/static-admissiond.service: ${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}\n`);
  const child = spawn(process.execPath, [
    ...nodeOptions, ...executableArgv(daemonRoot), 'serve',
    '--admission-config', config, '--tls-cert-file', certFile, '--tls-private-key-file', keyFile,
    '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
    '--reload-interval', '1h', '--logging-format', 'json',
    ...(args.has('workers') ? ['--workers', args.get('workers')!] : []), ...extra,
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  let stderr = '';
  const log = args.get('daemon-log');
  child.stderr!.on('data', (d: Buffer) => {
    if (log !== undefined) appendFileSync(log, d);
    stderr += d.toString();
    if (stderr.length > MiB) stderr = stderr.slice(-MiB / 2);
  });
  const metrics = `http://127.0.0.1:${health}/metrics`;
  await until('the daemon ready', async () => {
    if (child.exitCode !== null) throw new Error(`the daemon exited ${child.exitCode}:\n${stderr}`);
    return (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200;
  }, 120_000);
  return { child, endpoint: { host: '127.0.0.1', port, ca: ca.certPEM }, metrics, stderr: () => stderr };
}

/** Whether an answer is the refusal `c` is owed: its status, with a message naming the fault. */
function judge(c: HostileCase, o: Outcome): string | undefined {
  if (c.expect === undefined) return o.status !== undefined && o.status >= 500 ? `answered ${o.status}` : undefined;
  if (o.status === undefined) return c.resetIsRefusal && /EPIPE|ECONNRESET/.test(o.error ?? '') ? undefined : `no answer: ${o.error ?? 'the connection closed'}`;
  if (o.status === 408 && c.mayTimeOut === true && o.body.includes('(--request-body-timeout)')) return undefined;
  if (o.status !== c.expect) return `answered ${o.status}, expected ${c.expect}: ${o.body.slice(0, 200)}`;
  if (o.contentType.startsWith('application/json')) {
    let message: unknown;
    try {
      message = (JSON.parse(o.body) as { message?: unknown }).message;
    } catch {
      return `a ${o.status} whose body is not JSON: ${o.body.slice(0, 200)}`;
    }
    return typeof message === 'string' && message !== '' ? undefined : `a ${o.status} without a message: ${o.body.slice(0, 200)}`;
  }
  return /^\d{3} [A-Za-z ]+: \S/.test(o.body) ? undefined : `a ${o.status} without a message: ${o.body.slice(0, 200)}`;
}

interface KindTally { count: number; statuses: Map<string, number>; failures: number; example?: string }

async function main(): Promise<number> {
  const total = num('requests', fullRun);
  const connections = num('connections', 32);
  const slowConnections = num('slow-connections', 8);
  const quiet = args.has('quiet');
  const { tmp, children, cleanup } = benchWorkspace('sad-hostile-');
  const loadStart = loadavg();
  try {
    const daemon = await startDaemon(tmp, children);
    const pid = daemon.child.pid!;
    let crashed: string | undefined;
    daemon.child.on('exit', (code, signal) => { crashed = `the daemon exited (code ${code}, signal ${signal})`; });
    const review = JSON.parse(readFileSync(join(root, 'testdata/bench/pod-review.json'), 'utf8')) as Record<string, never>;
    const catalogue = hostileCatalogue(review, defaultAdmissionServerLimits.maxBodyBytes, generator(num('seed', 1)));
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    const startMemory = processMemory(pid);
    if (!quiet) process.stderr.write(`daemon pid ${pid}\n`);
    const cpu0 = cpuSeconds(pid);
    const started = performance.now();

    const tally = new Map<string, KindTally>();
    let issued = 0;
    let completed = 0;
    let fivexx = 0;
    let failures = 0;
    let tenth: { rss: number; at: number } | undefined;
    const record = (c: HostileCase, o: Outcome): void => {
      completed++;
      const t = tally.get(c.kind) ?? { count: 0, statuses: new Map<string, number>(), failures: 0 };
      tally.set(c.kind, t);
      t.count++;
      const s = o.status !== undefined ? String(o.status) : /EPIPE|ECONNRESET/.test(o.error ?? '') ? 'reset' : 'none';
      t.statuses.set(s, (t.statuses.get(s) ?? 0) + 1);
      if (o.status !== undefined && o.status >= 500) fivexx++;
      const fault = judge(c, o);
      if (fault !== undefined) {
        failures++;
        t.failures++;
        t.example ??= `${c.path}: ${fault}`;
      }
      if (tenth === undefined && completed >= total / 10) tenth = { rss: processMemory(pid).rss, at: (performance.now() - started) / 1000 };
      if (!quiet && completed % Math.max(1000, Math.floor(total / 10)) === 0) {
        const m = processMemory(pid);
        process.stderr.write(`${completed} done in ${fmt((performance.now() - started) / 1000, 0)} s: RSS ${mib(m.rss)}, peak ${mib(m.hwm)}, ${failures} failed\n`);
      }
    };
    const lane = async (draw: () => HostileCase): Promise<void> => {
      while (issued < total && crashed === undefined) {
        issued++;
        const c = draw();
        record(c, await send(c, daemon.endpoint, agent));
      }
    };
    await Promise.all([
      ...Array.from({ length: connections }, () => lane(catalogue.next)),
      ...Array.from({ length: slowConnections }, () => lane(catalogue.nextSlow)),
    ]);
    agent.destroy();
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;

    // Nothing in flight: the pool has no task, and the daemon still answers a valid review at once.
    let settledRss = NaN;
    let idleRss = NaN;
    let heap = '';
    if (crashed === undefined) {
      await until('the pool to empty', async () => metricValue(await metricsText(daemon.metrics), 'static_admissiond_policy_pool_tasks_in_flight') === 0, 60_000);
      idleRss = processMemory(pid).rss;
      // RSS settles once the workers' idle collections are done (V8's memory reducer, which the main thread runs
      // without, cmd/engine.ts, starts them 8 s after the last full collection): wait until it moved less than 1 MiB
      // over 12 s, for at most a minute
      const samples: number[] = [];
      await until('RSS to settle', () => {
        samples.push(processMemory(pid).rss);
        const last = samples.slice(-240);
        return last.length === 240 && Math.max(...last) - Math.min(...last) < MiB;
      }, 60_000).catch(() => undefined);
      settledRss = processMemory(pid).rss;
      const text = await metricsText(daemon.metrics);
      heap = `main thread heap ${mib(metricValue(text, 'nodejs_heap_size_used_bytes'))} used of ${mib(metricValue(text, 'nodejs_heap_size_total_bytes'))}, external ${mib(metricValue(text, 'nodejs_external_memory_bytes'))}`;
    }
    const end = processMemory(pid);

    const lines = [
      `static-admissiond hostile-input benchmark — Node ${process.version}, load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} at start, ${loadavg().map((l) => l.toFixed(2)).join(' ')} at end`,
      `${completed} cases (${connections} connections + ${slowConnections} slow) in ${fmt(seconds, 1)} s, daemon CPU ${fmt(cpu, 1)} s (${fmt((cpu / completed) * 1e6, 0)} µs per case)`,
      '',
      'case                          count  answers                          failed',
      ...[...tally].sort(([a], [b]) => a.localeCompare(b)).map(([kind, t]) =>
        `${kind.padEnd(28)} ${String(t.count).padStart(6)}  ${[...t.statuses].map(([s, n]) => `${s}: ${n}`).join(', ').padEnd(32)} ${t.failures}${t.example ? `  e.g. ${t.example}` : ''}`),
      '',
      `crashes: ${crashed === undefined ? 0 : 1}${crashed === undefined ? '' : ` (${crashed})`}, 5xx: ${fivexx}, wrong or missing refusals: ${failures}`,
      `RSS: at start ${mib(startMemory.rss)}, after the first ${Math.ceil(total / 10)} ${tenth === undefined ? '—' : `${mib(tenth.rss)} (${fmt(tenth.at, 0)} s)`}, peak ${mib(end.hwm)}, end with nothing in flight ${mib(idleRss)} → settled ${mib(settledRss)}`,
      ...(heap === '' ? [] : [heap]),
    ];
    const behaved = crashed === undefined && fivexx === 0 && failures === 0;
    let barMet = true;
    if (tenth !== undefined && crashed === undefined) {
      const allowed = Math.max(2 * tenth.rss, tenth.rss + 256 * MiB);
      barMet = settledRss <= allowed && end.hwm <= 1024 * MiB;
      lines.push(`bar: end ${mib(settledRss)} ≤ max(2 × ${mib(tenth.rss)}, ${mib(tenth.rss)} + 256 MiB) = ${mib(allowed)}: ${settledRss <= allowed ? 'met' : 'NOT met'}; peak ${mib(end.hwm)} ≤ 1024 MiB: ${end.hwm <= 1024 * MiB ? 'met' : 'NOT met'}${total < fullRun ? ` (a shorter run than the bar's ${fullRun})` : ''}`);
    }
    console.log(lines.join('\n'));
    if (!behaved) process.stderr.write(`daemon log (tail):\n${daemon.stderr().slice(-4000)}\n`);
    return behaved && (barMet || total < fullRun) ? 0 : 1;
  } finally {
    cleanup();
  }
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`hostile: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
