// Serving while a large directory reloads (part of npm run bench:reload): the real daemon (`serve`, its policy pool)
// loads 1,000 ValidatingAdmissionPolicies (bench/generate.ts); an open loop sends the 4 KB pod review of
// testdata/bench to /validate at a fixed rate, first with nothing else happening (the baseline), then while every
// file of the directory is rewritten again and again with new expressions (each a full, cold reload of 1,000
// policies, waited for in the daemon's log). Latencies are timed from when each request was due, so a held request
// shows; the rewrites follow one another with a short pause after each reload. The daemon's own event-loop delay over each phase is read from its /metrics (prom-client's
// nodejs_eventloop_lag_max_seconds: perf_hooks.monitorEventLoopDelay, reset at every scrape).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createCertificateAuthority } from '../lib/server/dev-cert.js';
import { generate, generateAsync } from './generate.js';
import { newAgent, openLoop, percentile, postOnce } from './load.js';
import type { LoadResult, Target } from './load.js';
import { commandArgv, freePort, httpStatus, metricsText, until, validatingAdmissionConfig } from './util.js';

export interface PhaseResult {
  readonly load: LoadResult;
  /** the daemon's largest event-loop delay over the phase, ms */
  readonly eventLoopMaxMs: number;
  /** reloads the daemon applied during the phase (each of up to 1,000 changed policies) */
  readonly reloads: number;
  /** complete rewrites of the directory during the phase */
  readonly rewrites: number;
}

export interface ServingResult {
  readonly policies: number;
  readonly rate: number;
  readonly baseline: PhaseResult;
  readonly reloading: PhaseResult;
}

async function eventLoopMaxMs(metricsURL: string): Promise<number> {
  const line = (await metricsText(metricsURL)).split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds '));
  return line === undefined ? NaN : Number(line.split(' ')[1]) * 1000;
}

export async function servingDuringReload(options: { policies: number; rate: number; seconds: number; root: string; daemon?: string; pauseMs?: number }): Promise<ServingResult> {
  const pauseMs = options.pauseMs ?? 700;
  const tmp = mkdtempSync(join(tmpdir(), 'sad-bench-serving-'));
  const dir = join(tmp, 'policies');
  mkdirSync(dir);
  const daemon = options.daemon ?? join(options.root, 'dist', 'cmd', 'static-admissiond.js');
  let child: ReturnType<typeof spawn> | undefined;
  try {
    generate(dir, options.policies, 0);
    const ca = await createCertificateAuthority('bench CA');
    const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1'] });
    writeFileSync(join(tmp, 'tls.crt'), serving.certPEM);
    writeFileSync(join(tmp, 'tls.key'), serving.keyPEM);
    writeFileSync(join(tmp, 'admission-config.yaml'), validatingAdmissionConfig(dir));
    const port = await freePort();
    const health = await freePort();
    child = spawn(process.execPath, [
      ...commandArgv(daemon), 'serve', '--admission-config', join(tmp, 'admission-config.yaml'),
      '--tls-cert-file', join(tmp, 'tls.crt'), '--tls-private-key-file', join(tmp, 'tls.key'),
      '--bind-address', '127.0.0.1', '--secure-port', String(port), '--health-bind-address', `127.0.0.1:${health}`,
      '--reload-interval', '1h', '--logging-format', 'json',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    let reloadedLines = 0;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr = (stderr + text).slice(-4000);
      reloadedLines += text.split('"msg":"reloaded manifest config"').length - 1;
    });
    await until('the daemon ready', async () => (await httpStatus(`http://127.0.0.1:${health}/readyz`)) === 200, 120_000);

    const body = readFileSync(join(options.root, 'testdata', 'bench', 'pod-review.json'));
    const uid = (JSON.parse(body.toString('utf8')) as { request: { uid: string } }).request.uid;
    const target: Target = { url: new URL(`https://127.0.0.1:${port}/validate?timeout=10s`), ca: ca.certPEM, body, expect: `"uid":"${uid}"` };
    const agent = newAgent(32);
    for (let i = 0; i < 50; i++) if (!(await postOnce(target, agent))) throw new Error(`the daemon did not answer the pod review\n${stderr}`);
    await openLoop(target, agent, options.rate, 1); // warm-up
    const metricsURL = `http://127.0.0.1:${health}/metrics`;

    await eventLoopMaxMs(metricsURL); // resets the monitor
    const baselineLoad = await openLoop(target, agent, options.rate, options.seconds);
    const baseline: PhaseResult = { load: baselineLoad, eventLoopMaxMs: await eventLoopMaxMs(metricsURL), reloads: 0, rewrites: 0 };

    // the reloading phase: full rewrites, one after the other, for as long as the load runs
    let stop = false;
    let rounds = 0;
    const driver = (async () => {
      for (let round = 1; !stop; round++) {
        await generateAsync(dir, options.policies, round);
        rounds++;
        // the reload of the complete rewrite (the watch may have started one on the first files already)
        const before = reloadedLines;
        const deadline = Date.now() + 10_000;
        while (reloadedLines === before && !stop && Date.now() < deadline) await delay(5);
        // then a pause: reloads come one at a time, as edits do, rather than back to back
        if (!stop) await delay(pauseMs);
      }
    })();
    await eventLoopMaxMs(metricsURL);
    const linesBefore = reloadedLines;
    const reloadingLoad = await openLoop(target, agent, options.rate, options.seconds);
    const reloadingLoop = await eventLoopMaxMs(metricsURL);
    const applied = reloadedLines - linesBefore;
    stop = true;
    await driver;
    agent.destroy();
    return { policies: options.policies, rate: options.rate, baseline, reloading: { load: reloadingLoad, eventLoopMaxMs: reloadingLoop, reloads: applied, rewrites: rounds } };
  } finally {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { child!.kill('SIGKILL'); resolve(); }, 10_000);
        child!.once('exit', () => { clearTimeout(timer); resolve(); });
      });
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function servingSummary(r: PhaseResult): { p50: number; p99: number; max: number; errors: number; completed: number } {
  const sorted = Float64Array.from(r.load.latencies).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length > 0 ? sorted[sorted.length - 1]! : NaN, errors: r.load.errors, completed: r.load.completed };
}
