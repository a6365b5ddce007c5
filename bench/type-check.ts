// Type-check benchmark (npm run bench:type-check): what the schema-aware type check costs `validate`.
//   (1) in one process, for 1,000 generated ValidatingAdmissionPolicies (bench/generate.ts: 2–3 typical expressions
//       each over Pods, Deployments, ConfigMaps and Services), the time of everything `validate` did before
//       (read + hash + decode + validate + compile + the other warnings) and the time the type check adds, each round
//       with every expression new (compiled and checked cold); the ratio per round, its median against the 30% bar;
//   (2) the `validate` executable itself on 100 and on 1,000 policies, process start to exit (what an operator waits
//       for; the schemas are parsed on first use inside it), median of a few runs, against the KEP's 1 s for 100.
// Rounds alternate the two measurements of (1) inside one process, so drifting machine load cancels out of the ratio.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { clearCompileCache } from '../lib/cel/index.js';
import { pluginKinds } from '../lib/manifest/plugins.js';
import { typeCheckManifests } from '../lib/manifest/type-check.js';
import { authorizerWarnings, manifestWarnings } from '../lib/manifest/warnings.js';
import { compileManifests, loadManifests, readManifestFilesSync } from '../lib/reload/pipeline.js';
import { generate } from './generate.js';
import { executableArgv } from './util.js';

const plugin = 'ValidatingAdmissionPolicy';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** node's arguments for the executable, as its #! line starts it (read once, outside the timed runs) */
const command = executableArgv(root);
const rounds = Number(process.argv[2] ?? 7);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const kinds = pluginKinds[plugin];
const tmp = mkdtempSync(join(tmpdir(), 'sad-bench-typecheck-'));
try {
  for (const n of [1000, 100]) {
  const dir = join(tmp, `p${n}`);
  execFileSync('mkdir', ['-p', dir]);
  const before: number[] = [];
  const added: number[] = [];
  const ratios: number[] = [];
  let warnings = 0;
  for (let round = 0; round <= rounds; round++) {
    generate(dir, n, round + 1);
    clearCompileCache();
    const t0 = performance.now();
    const files = readManifestFilesSync(dir);
    const manifests = loadManifests(plugin, files);
    const compiled = compileManifests(plugin, manifests);
    manifestWarnings(kinds.primary, kinds.binding, manifests);
    authorizerWarnings(compiled, false);
    const t1 = performance.now();
    warnings = typeCheckManifests(kinds.primary, manifests).warnings.length;
    const t2 = performance.now();
    // round 0 warms the code paths (and parses the schemas once, as the first type check of a process does)
    if (round === 0) continue;
    before.push(t1 - t0);
    added.push(t2 - t1);
    ratios.push((t2 - t1) / (t1 - t0));
  }
  const ratio = median(ratios);
  console.log(`validate on ${n} policies, in process, ${rounds} rounds of new expressions (${warnings} warnings found):`);
  console.log(`  without the type check  median ${median(before).toFixed(0)} ms`);
  console.log(`  type check added        median ${median(added).toFixed(0)} ms`);
  console.log(`  added / without         median ${(ratio * 100).toFixed(1)}% (per round: ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(' ')})  bar <= 30%: ${ratio <= 0.3 ? 'PASS' : 'FAIL'}`);
  }

  const timed = (args: readonly string[]): number => {
    const t0 = performance.now();
    execFileSync(process.execPath, [...command, ...args], { stdio: 'ignore' });
    return performance.now() - t0;
  };
  for (const n of [100, 1000]) {
    const d = join(tmp, `cli${n}`);
    execFileSync('mkdir', ['-p', d]);
    generate(d, n, 99);
    // alternating: the executable's own start (`hash`: node, the modules, read and hash) and the whole `validate`
    const start: number[] = [];
    const whole: number[] = [];
    for (let i = 0; i < 5; i++) {
      start.push(timed(['hash', d]));
      whole.push(timed(['validate', '--plugin', plugin, d]));
    }
    const m = median(whole);
    console.log(`validate executable on ${n} policies, process start to exit: median ${m.toFixed(0)} ms of 5 (of which starting the executable, as \`hash\` on the same directory takes: ${median(start).toFixed(0)} ms)${n === 100 ? `  KEP bar < 1000 ms: ${m < 1000 ? 'PASS' : 'FAIL'}` : ''}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
