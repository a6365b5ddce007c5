// /validate's evaluation alone, in one process (npm run bench:validate): the code path a lone request takes inline
// and a worker takes for each request it is handed — decode, match, the ValidatingAdmissionPolicy plugin, the answer
// (lib/review/evaluate.ts's validateOnThisThread) — on the bench's 20 ValidatingAdmissionPolicies
// (testdata/bench/policies) and its 4 KB pod review, reporting CPU µs per evaluation (process.cpuUsage: this thread
// does the work). Two modes, because the cost of a lone evaluation depends on what is still in the CPU caches:
//   back to back: --requests evaluations in a row, per round;
//   spaced: --spaced evaluations per round, each after --idle-ms idle (default 20, what 50 req/s leaves between
//     requests), each timed alone (median and p90 over the round); with --compare the builds take turns evaluation by
//     evaluation.
// `--compare DIR` runs DIR's dist/ (another build) in the same process, rounds alternating, so the ratios are
// measured under the same machine load. `--cpu-prof` profiles it.
//
// Flags: --requests N (default 2000), --spaced N (default 100; 0: back to back only), --idle-ms N (default 20), --rounds N (default 5),
// --compare DIR.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { evaluationBuild } from './evaluation-build.js';
import type { EvaluationBuild } from './evaluation-build.js';
import { fmt, median } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const requests = Number(args.get('requests') ?? 2000);
const spaced = Number(args.get('spaced') ?? 100);
const idleMs = Number(args.get('idle-ms') ?? 20);
const rounds = Number(args.get('rounds') ?? 5);
const compare = args.get('compare');

type Build = EvaluationBuild;

/** The evaluation entry point and the bench's policies compiled by the build whose dist/ is under `dir`. */
const build = (name: string, dir: string): Promise<Build> =>
  evaluationBuild(name, dir, 'validateOnThisThread', 'ValidatingAdmissionPolicy', join(root, 'testdata', 'bench', 'policies'));

const body = readFileSync(join(root, 'testdata', 'bench', 'pod-review.json'));
const thread = {};

/** One evaluation; the answer must admit the pod (the bench's policies all do). */
function evaluate(b: Build, check: boolean): void {
  const answer = b.evaluate({ body, deadline: Date.now() + 10_000, timeoutMs: 10_000 }, b.hooks, thread).answer;
  if (check && (answer instanceof Promise || !Buffer.from(answer.body).toString().includes('"allowed":true'))) throw new Error(`${b.name}: the pod was not admitted`);
}

/** CPU µs per evaluation over `n` back to back. */
function backToBack(b: Build, n: number): number {
  evaluate(b, true);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) evaluate(b, false);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

/**
 * CPU µs of `n` evaluations per build, each after `idleMs` idle. The builds take turns evaluation by evaluation, the
 * order flipping each time: what the machine's other tenants evict while a thread sleeps varies from one second to
 * the next, by more than the difference between two builds.
 */
async function spacedOut(builds: readonly Build[], n: number): Promise<Map<Build, number[]>> {
  const us = new Map<Build, number[]>(builds.map((b) => [b, []]));
  for (let i = 0; i < n; i++) {
    for (const b of i % 2 === 0 ? builds : [...builds].reverse()) {
      await delay(idleMs);
      const start = process.cpuUsage();
      evaluate(b, false);
      const used = process.cpuUsage(start);
      us.get(b)!.push(used.user + used.system);
    }
  }
  return us;
}

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

function report(title: string, builds: readonly Build[], us: Map<Build, number[]>): void {
  console.log(title);
  for (const b of builds) console.log(`  ${b.name}: ${fmt(median(us.get(b)!), 1)} µs (rounds: ${us.get(b)!.map((v) => fmt(v, 1)).join(', ')})`);
  if (builds.length === 2) {
    const ratios = us.get(builds[0]!)!.map((v, i) => v / us.get(builds[1]!)![i]!);
    console.log(`  ratio this / ${builds[1]!.name}: ${median(ratios).toFixed(3)} (median of rounds)`);
  }
}

async function main(): Promise<void> {
  const builds = [await build('this build', root), ...(compare === undefined ? [] : [await build(compare, resolve(compare))])];
  for (const b of builds) backToBack(b, 1000); // warm-up: compiles, inline caches
  const b2b = new Map<Build, number[]>(builds.map((b) => [b, []]));
  const p50 = new Map<Build, number[]>(builds.map((b) => [b, []]));
  const p90 = new Map<Build, number[]>(builds.map((b) => [b, []]));
  for (let r = 0; r < rounds; r++) {
    for (const b of builds) b2b.get(b)!.push(backToBack(b, requests));
    if (spaced === 0) continue;
    const us = await spacedOut(builds, spaced);
    for (const b of builds) {
      p50.get(b)!.push(quantile(us.get(b)!, 0.5));
      p90.get(b)!.push(quantile(us.get(b)!, 0.9));
    }
  }
  console.log(`/validate evaluation, one thread, ${rounds} rounds; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  report(`back to back (${requests} a round), CPU µs per evaluation:`, builds, b2b);
  if (spaced === 0) return;
  report(`spaced (${spaced} a round, ${idleMs} ms idle before each), median CPU µs per evaluation:`, builds, p50);
  report(`spaced, p90 CPU µs per evaluation:`, builds, p90);
}

await main();
