// Reload-path benchmark (npm run bench:reload): generates 100 and 1,000 ValidatingAdmissionPolicies (one binding
// each, 10 policy+binding pairs per file, 2–3 typical expressions per policy) under a temp dir, then measures with
// the real ManifestSource:
//   - initial load      ManifestSource.loadInitial() (read + hash + decode + validate + compile), median of a few
//   - unchanged tick    checkAndReload() when nothing changed (read + hash, short-circuit), median of many
//   - changed reload    one file modified (a distinct change each run), checkAndReload() until its 'reload' event
//                       with outcome 'reloaded', median of several
// and prints them next to the KEP's SLOs and this project's bars with PASS/FAIL, plus ratios from the same run;
// then /validate's latency and the daemon's event-loop delay while 1,000 policies reload, against the same load with
// no reload (bench/reload-serving.ts; bar: no request held 50 ms by a reload).
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { createLogger } from '../lib/log/logger.js';
import { createReloadMetrics } from '../lib/metrics/reload.js';
import { ManifestSource } from '../lib/reload/manifest-source.js';
import type { ReloadEvent } from '../lib/reload/manifest-source.js';
import { clearCompileCache } from '../lib/cel/index.js';
import { compileManifests, loadManifests, readManifestFilesSync } from '../lib/reload/pipeline.js';
import { generate, perFile } from './generate.js';
import { servingDuringReload, servingSummary } from './reload-serving.js';

const plugin = 'ValidatingAdmissionPolicy';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
/** --serving-rate N (default 50 req/s), --serving-seconds N (default 8), --daemon PATH (another build's daemon, to compare) */
const servingRate = Number(args.get('serving-rate') ?? 50);
const servingSeconds = Number(args.get('serving-seconds') ?? 8);
const daemon = args.get('daemon');
const apiServerIDHash = 'sha256:3c607df3b2bf22c9d9f01d5314b4bbf411c48ef43ff44ff29b1d55b41367c795';
const silent = createLogger({ write: () => {} });

function newSource(dir: string): ManifestSource {
  return new ManifestSource({ plugin, dir, watch: false, metrics: createReloadMetrics(new Registry(), apiServerIDHash), logger: silent });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function fmt(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

interface SizeResult {
  n: number;
  files: number;
  bytes: number;
  load: number[];
  tick: number[];
  changed: number[];
  phases: { read: number; decode: number; compile: number };
}

async function measure(n: number, runs: { load: number; tick: number; changed: number }): Promise<SizeResult> {
  const dir = await mkdtemp(join(tmpdir(), `static-admissiond-bench-${n}-`));
  try {
    const files = generate(dir, n);
    const bytes = files.reduce((sum, f) => sum + readFileSync(f).length, 0);

    // initial load: a fresh source (and registry) each run, with a cold CEL compile cache, as at daemon start
    const load: number[] = [];
    for (let r = 0; r < runs.load; r++) {
      clearCompileCache();
      const s = newSource(dir);
      const t0 = performance.now();
      const snap = s.loadInitial();
      load.push(performance.now() - t0);
      if (snap.counts.ValidatingAdmissionPolicy !== n || snap.counts.ValidatingAdmissionPolicyBinding !== n) {
        throw new Error(`loaded ${JSON.stringify(snap.counts)}, expected ${n} of each`);
      }
    }

    const source = newSource(dir);
    source.loadInitial();
    // the last 'reload' event and when it came (read through a function: it is set from the listener)
    let lastSeen: { event: ReloadEvent; at: number } | undefined;
    source.on('reload', (event) => { lastSeen = { event, at: performance.now() }; });
    const last = (): { event: ReloadEvent; at: number } | undefined => lastSeen;

    // unchanged tick
    const tick: number[] = [];
    for (let r = 0; r < runs.tick; r++) {
      lastSeen = undefined;
      const t0 = performance.now();
      await source.checkAndReload();
      const seen = last();
      if (seen?.event.outcome !== 'unchanged') throw new Error(`expected an unchanged check, got ${seen?.event.outcome}`);
      tick.push(seen.at - t0);
    }

    // changed reload: a distinct edit of one file (a rotating file, a new limit in its first expression) each run
    const changed: number[] = [];
    for (let r = 0; r < runs.changed; r++) {
      const file = files[(r * 7) % files.length]!;
      const text = readFileSync(file, 'utf8');
      const edited = text.replace(/object\.metadata\.name\.size\(\) <= \d+/, `object.metadata.name.size() <= ${64 + r}`);
      if (edited === text) throw new Error('the edit did not change the file');
      writeFileSync(file, edited);
      lastSeen = undefined;
      const t0 = performance.now();
      await source.checkAndReload();
      const seen = last();
      if (seen?.event.outcome !== 'reloaded') throw new Error(`expected a reload, got ${seen?.event.outcome}: ${seen?.event.error?.message}`);
      changed.push(seen.at - t0);
    }

    // where a full reload spends its time (same pipeline stages, run directly)
    const read: number[] = [];
    const decode: number[] = [];
    const compile: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      const mf = readManifestFilesSync(dir);
      const t1 = performance.now();
      const loaded = loadManifests(plugin, mf);
      const t2 = performance.now();
      compileManifests(plugin, loaded);
      const t3 = performance.now();
      read.push(t1 - t0);
      decode.push(t2 - t1);
      compile.push(t3 - t2);
    }
    return { n, files: files.length, bytes, load, tick, changed, phases: { read: median(read), decode: median(decode), compile: median(compile) } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Bar {
  source: 'KEP SLO' | 'project bar';
  what: string;
  measured: number;
  limit: number;
}

async function main(): Promise<void> {
  const started = performance.now();
  const cpu = cpus();
  console.log('static-admissiond reload benchmark');
  console.log(`node ${process.version}, ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${process.platform}/${process.arch}`);
  console.log(`${perFile} policy+binding pairs per file, 2-3 validations per policy; medians (min..max) over the runs shown\n`);

  const small = await measure(100, { load: 7, tick: 101, changed: 15 });
  const large = await measure(1000, { load: 5, tick: 51, changed: 9 });

  const row = (label: string, xs: readonly number[]): string =>
    `  ${label.padEnd(34)} ${fmt(median(xs)).padStart(10)}   (${fmt(Math.min(...xs))}..${fmt(Math.max(...xs))}, n=${xs.length})`;
  for (const r of [small, large]) {
    console.log(`${r.n} policies + ${r.n} bindings in ${r.files} files (${(r.bytes / 1024).toFixed(0)} KiB)`);
    console.log(row('initial load, cold (loadInitial)', r.load));
    console.log(row('unchanged tick (checkAndReload)', r.tick));
    console.log(row('changed reload (one file edited)', r.changed));
    console.log(`  ${'  stages of a full load'.padEnd(34)} read+hash ${fmt(r.phases.read)}, decode+default+validate ${fmt(r.phases.decode)}, compile ${fmt(r.phases.compile)}`);
    console.log('');
  }

  const bars: Bar[] = [
    { source: 'KEP SLO', what: 'startup (initial load), 100 policies < 1 s', measured: median(small.load), limit: 1000 },
    { source: 'KEP SLO', what: 'reload, 100 policies < 100 ms', measured: median(small.changed), limit: 100 },
    { source: 'KEP SLO', what: 'reload, 1,000 policies < 100 ms', measured: median(large.changed), limit: 100 },
    { source: 'project bar', what: 'initial load, 1,000 policies < 1 s', measured: median(large.load), limit: 1000 },
    { source: 'project bar', what: 'unchanged tick, 100 policies < 10 ms', measured: median(small.tick), limit: 10 },
    { source: 'project bar', what: 'unchanged tick, 1,000 policies < 10 ms', measured: median(large.tick), limit: 10 },
    { source: 'project bar', what: 'one-file change reload, 100 policies < 100 ms', measured: median(small.changed), limit: 100 },
  ];
  console.log('bars');
  for (const b of bars) {
    console.log(`  ${(b.measured < b.limit ? 'PASS' : 'FAIL').padEnd(5)} ${b.source.padEnd(12)} ${b.what.padEnd(48)} ${fmt(b.measured).padStart(10)}  (${((b.measured / b.limit) * 100).toFixed(0)}% of the limit)`);
  }

  // serving while 1,000 policies reload, against the same load with no reload
  const servingRun = await servingDuringReload({ policies: 1000, rate: servingRate, seconds: servingSeconds, root, ...(daemon === undefined ? {} : { daemon }) });
  const base = servingSummary(servingRun.baseline);
  const during = servingSummary(servingRun.reloading);
  console.log(`\n/validate at ${servingRun.rate} req/s (4 KB pod review, open loop, ${servingSeconds} s per phase), ${servingRun.policies} policies loaded`);
  const servingRow = (label: string, s: ReturnType<typeof servingSummary>, loopMs: number): string =>
    `  ${label.padEnd(34)} p50 ${fmt(s.p50).padStart(9)}  p99 ${fmt(s.p99).padStart(9)}  max ${fmt(s.max).padStart(9)}  event-loop max ${fmt(loopMs).padStart(9)}  (${s.completed} answered, ${s.errors} errors)`;
  console.log(servingRow('no reload (baseline)', base, servingRun.baseline.eventLoopMaxMs));
  console.log(servingRow(`${servingRun.reloading.reloads} reloads (${servingRun.reloading.rewrites} full rewrites)`, during, servingRun.reloading.eventLoopMaxMs));
  console.log(`  ratios during reload / baseline: p99 x${(during.p99 / base.p99).toFixed(2)}, max x${(during.max / base.max).toFixed(2)}, event-loop max x${(servingRun.reloading.eventLoopMaxMs / servingRun.baseline.eventLoopMaxMs).toFixed(2)}`);
  const stallBar = servingRun.reloading.eventLoopMaxMs < 50 && servingRun.reloading.reloads > 0;
  console.log(`  ${(stallBar ? 'PASS' : 'FAIL').padEnd(5)} project bar  no request held over 50 ms by a reload: the daemon's event loop never blocked 50 ms during the reloads (${fmt(servingRun.reloading.eventLoopMaxMs)})`);

  const ratio = (a: number, b: number): string => `${(a / b).toFixed(3)}`;
  console.log('\nratios (same run)');
  for (const r of [small, large]) {
    console.log(`  ${r.n} policies: unchanged tick / changed reload = ${ratio(median(r.tick), median(r.changed))}; changed reload / initial load = ${ratio(median(r.changed), median(r.load))}`);
  }
  console.log(`  1,000 / 100 policies: initial load x${ratio(median(large.load), median(small.load))}, changed reload x${ratio(median(large.changed), median(small.changed))}, unchanged tick x${ratio(median(large.tick), median(small.tick))}`);
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
