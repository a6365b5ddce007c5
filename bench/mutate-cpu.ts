// /mutate's evaluation alone, in one process (npm run bench:mutate): the worker's code path for one request — decode,
// the MutatingAdmissionPolicy plugin with reinvocation, the JSON Patch answer — run back to back on the bench's 10
// MutatingAdmissionPolicies (testdata/bench/mutating-policies) and its 4 KB pod review, and the CPU time per request
// reported (process.cpuUsage: this thread only does the work). Without sockets, threads or a load generator it shows
// what the evaluation costs with little noise, and `--compare DIR` runs DIR's dist/ (another build) in the same
// process, rounds alternating, so the ratio is measured under the same machine load. `--cpu-prof` profiles it.
//
// Flags: --requests N per round (default 2000), --rounds N (default 5), --compare DIR.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluationBuild } from './evaluation-build.js';
import type { EvaluationBuild } from './evaluation-build.js';
import { fmt, median } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const requests = Number(args.get('requests') ?? 2000);
const rounds = Number(args.get('rounds') ?? 5);
const compare = args.get('compare');

type Build = EvaluationBuild;

/** The evaluation entry point and the bench's mutating policies compiled by the build whose dist/ is under `dir`. */
const build = (name: string, dir: string): Promise<Build> =>
  evaluationBuild(name, dir, 'mutateOnThisThread', 'MutatingAdmissionPolicy', join(root, 'testdata', 'bench', 'mutating-policies'));

const body = readFileSync(join(root, 'testdata', 'bench', 'pod-review.json'));
const thread = {};

/** CPU µs per request over `n` requests. */
async function round(b: Build, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const answer = await b.evaluate({ body, deadline: Date.now() + 10_000, timeoutMs: 10_000 }, b.hooks, thread).answer;
    if (i === 0 && !Buffer.from(answer.body).toString().includes('"patchType":"JSONPatch"')) throw new Error(`${b.name}: no patch in the answer`);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

async function main(): Promise<void> {
  const builds = [await build('this build', root), ...(compare === undefined ? [] : [await build(compare, resolve(compare))])];
  for (const b of builds) await round(b, 500); // warm-up: compiles, inline caches
  const us = new Map<Build, number[]>(builds.map((b) => [b, []]));
  for (let r = 0; r < rounds; r++) for (const b of builds) us.get(b)!.push(await round(b, requests));
  console.log(`/mutate evaluation, one thread, ${rounds} rounds × ${requests} requests; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const b of builds) console.log(`  ${b.name}: ${fmt(median(us.get(b)!), 0)} µs CPU per request (rounds: ${us.get(b)!.map((v) => fmt(v, 0)).join(', ')})`);
  if (builds.length === 2) {
    const ratios = us.get(builds[0]!)!.map((v, i) => v / us.get(builds[1]!)![i]!);
    console.log(`  ratio this / ${builds[1]!.name}: ${median(ratios).toFixed(3)} (median of rounds)`);
  }
}

await main();
