// Profiles the daemon under load (npm run bench:profile): one `serve` with `node --cpu-prof` (every thread writes
// its own profile), a closed loop of requests for a few seconds, then the shares of the hot path's items on the main
// thread and on the busiest worker (bench/profile-summary.ts), with CPU time per request from /proc (main thread and
// whole process).
//
// Flags: --endpoint validate|mutate (default validate), --workers N (default the daemon's), --seconds N (default 6),
// --connections N (default 8), --root DIR (the checkout whose dist/ is run, default this one: point it at another
// build to profile it the same way), --keep DIR (keep the .cpuprofile files there).
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority } from '../lib/server/dev-cert.js';
import { closedLoop, newAgent, postOnce } from './load.js';
import { formatSummary, summarise } from './profile-summary.js';
import { freePort, httpStatus, mutatingAdmissionConfig, threadCpuSeconds, until, validatingAdmissionConfig } from './util.js';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const endpoint = args.get('endpoint') ?? 'validate';
const root = resolve(args.get('root') ?? here);
const seconds = Number(args.get('seconds') ?? 6);
const connections = Number(args.get('connections') ?? 8);

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'sad-profile-'));
  try {
    const ca = await createCertificateAuthority('profile CA');
    const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1'] });
    writeFileSync(join(tmp, 'tls.crt'), serving.certPEM);
    writeFileSync(join(tmp, 'tls.key'), serving.keyPEM);
    const config = join(tmp, 'admission-config.yaml');
    const policies = join(here, 'testdata', 'bench', 'policies');
    writeFileSync(config, endpoint === 'mutate' ? mutatingAdmissionConfig(policies, join(here, 'testdata', 'bench', 'mutating-policies')) : validatingAdmissionConfig(policies));
    const profiles = join(tmp, 'profiles');
    mkdirSync(profiles);
    const port = await freePort();
    const health = await freePort();
    const child = spawn(process.execPath, [
      '--cpu-prof', '--cpu-prof-dir', profiles,
      join(root, 'dist', 'cmd', 'static-admissiond.js'), 'serve', '--admission-config', config,
      '--tls-cert-file', join(tmp, 'tls.crt'), '--tls-private-key-file', join(tmp, 'tls.key'),
      '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
      '--reload-interval', '1h', ...(args.has('workers') ? ['--workers', args.get('workers')!] : []),
    ], { stdio: ['ignore', 'ignore', 'inherit'] });
    await until('the daemon ready', async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200, 60_000);
    const body = readFileSync(join(here, 'testdata', 'bench', 'pod-review.json'));
    const target = { url: new URL(`https://127.0.0.1:${port}/${endpoint}?timeout=10s`), ca: ca.certPEM, body, expect: '"allowed":true' };
    const agent = newAgent(connections);
    if (!(await postOnce(target, agent))) throw new Error('the daemon did not admit the pod review');
    await closedLoop(target, agent, connections, 1.5);
    const main0 = threadCpuSeconds(child.pid!, child.pid!);
    const all0 = threadCpuSeconds(child.pid!);
    const res = await closedLoop(target, agent, connections, seconds);
    const mainCpu = threadCpuSeconds(child.pid!, child.pid!) - main0;
    const allCpu = threadCpuSeconds(child.pid!) - all0;
    agent.destroy();
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stopAt = Date.now();
    child.kill('SIGTERM');
    await exited;
    const n = res.completed;
    console.log(`${root}: /${endpoint}, ${args.get('workers') ?? 'default'} workers, ${n} requests in ${res.seconds.toFixed(1)} s (${(n / res.seconds).toFixed(0)} req/s, ${res.errors} errors)`);
    console.log(`CPU per request (/proc, this window): main thread ${(mainCpu / n * 1e6).toFixed(0)} µs, whole process ${(allCpu / n * 1e6).toFixed(0)} µs`);
    // CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile: threadId 0 is the main thread
    const files = readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'));
    const threadOf = (f: string): number => Number(f.split('.')[4]);
    // the load window: it ended when the daemon was told to stop, a few hundred ms before each profile's end
    const stopUs = (Date.now() - stopAt) * 1e3;
    const window = { fromEndUs: stopUs + res.seconds * 1e6, toEndUs: stopUs };
    const summaries = files.map((f) => ({ f, thread: threadOf(f), s: summarise(JSON.parse(readFileSync(join(profiles, f), 'utf8')), window) }));
    const mainProfile = summaries.find((x) => x.thread === 0);
    const worker = summaries.filter((x) => x.thread !== 0).sort((a, b) => b.s.busyUs - a.s.busyUs)[0];
    // sampled time is wall time while the thread ran: on a loaded machine a thread descheduled inside a call
    // (postMessage waking another thread, writev) shows that call longer than its CPU time
    if (mainProfile) console.log(formatSummary('main thread (load window)', mainProfile.s, n));
    if (worker) console.log(formatSummary(`busiest worker, thread ${worker.thread} (load window)`, worker.s, n));
    if (args.has('keep')) cpSync(profiles, args.get('keep')!, { recursive: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
