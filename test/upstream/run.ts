// `npm run test:upstream -- --cases N --seed S [--write-fixtures] [--concurrency C] [--ops load,validate,mutate]
// [--cel-generation always|whenHot|never]`: any
// number of generated cases (of the groups named by --ops, all by default) through the daemon and the upstream-oracle; prints agreements and disagreements (grouped by what differs), and
// with --write-fixtures writes each disagreement under test/upstream/fixtures/generated/ with its seed. Exit 1 on any
// disagreement, 2 on a usage error or a missing oracle.
import { parseArgs } from 'node:util';
import { describe } from './differential.js';
import type { Disagreement, Tally } from './differential.js';
import { writeDisagreement } from './fixtures.js';
import { runGenerated } from './generated.js';
import type { GeneratedResult } from './generated.js';
import { locateOracle, Oracle } from './oracle.js';
import { setDefaultGeneration } from '../../lib/cel/runtime/index.js';
import type { GroupOp } from './generate/index.js';

const groupOps: ReadonlySet<string> = new Set<GroupOp>(['load', 'validate', 'mutate']);

function classOf(d: Disagreement): string {
  return `${d.op}: ${d.differences.map((x) => x.slice(0, x.indexOf(':'))).join(', ')}`;
}

function report(result: GeneratedResult, seed: number, started: number, show: number, note: string): void {
  const total = result.agreements + result.disagreements.length;
  const seconds = (Date.now() - started) / 1000;
  const ops = Object.entries(result.byOp).map(([k, v]) => `${v} ${k}`).join(', ');
  process.stdout.write(`seed ${seed}${note}: ${total} cases in ${result.groups} groups${ops === '' ? '' : ` (${ops})`} in ${seconds.toFixed(1)}s: ${result.agreements} agreements, ${result.disagreements.length} disagreements\n`);
  const classes = new Map<string, Disagreement[]>();
  for (const d of result.disagreements) classes.set(classOf(d), [...(classes.get(classOf(d)) ?? []), d]);
  for (const [cls, list] of [...classes].sort((a, b) => b[1].length - a[1].length)) {
    process.stdout.write(`\n${list.length} × ${cls}\n`);
    for (const d of list.slice(0, show)) process.stdout.write(describe(d, '  e.g.') + '\n');
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: '2000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '4' },
      'write-fixtures': { type: 'boolean', default: false },
      show: { type: 'string', default: '5' },
      ops: { type: 'string' },
      'cel-generation': { type: 'string', default: 'always' },
    },
  });
  const cases = Number(values.cases);
  const seed = Number(values.seed);
  const ops = values.ops === undefined ? undefined : new Set(values.ops.split(','));
  const generation = values['cel-generation'];
  if (generation === 'always' || generation === 'never' || generation === 'whenHot') setDefaultGeneration(generation);
  else {
    process.stderr.write('--cel-generation: always (the default here: generated CEL from the first evaluation), whenHot or never\n');
    return 2;
  }
  if (!Number.isSafeInteger(cases) || cases < 1 || !Number.isSafeInteger(seed) || seed < 0 || [...(ops ?? [])].some((op) => !groupOps.has(op))) {
    process.stderr.write('usage: npm run test:upstream -- [--cases N] [--seed S] [--concurrency C] [--write-fixtures] [--ops load,validate,mutate]\n');
    return 2;
  }
  if (locateOracle() === undefined) {
    process.stderr.write('no upstream-oracle: build it with tools/upstream-oracle/build.sh, or set UPSTREAM_ORACLE=/path/to/upstream-oracle\n');
    return 2;
  }
  const oracle = new Oracle({ timeoutMs: 120_000 });
  const started = Date.now();
  const written: string[] = [];
  let lastReport = 0;
  let groups = 0;
  let sofar: Tally | undefined;
  // a run stopped early (SIGINT, SIGTERM) still reports what it compared
  const stop = (): void => {
    if (sofar !== undefined) report({ ...sofar, groups, byOp: {} }, seed, started, Number(values.show), ' (stopped)');
    process.exit(sofar === undefined || sofar.disagreements.length > 0 ? 1 : 0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const result = await runGenerated(oracle, {
      seed, cases, concurrency: Number(values.concurrency), ...(ops === undefined ? {} : { ops: ops as ReadonlySet<GroupOp> }),
      onGroup: (group, disagreements, tally) => {
        sofar = tally;
        groups++;
        disagreements.forEach((d, n) => {
          // a compile difference is printed, not written: the fixture suite replays directories and requests
          if (values['write-fixtures'] && d.op !== 'compile') written.push(writeDisagreement(d, `generated --seed ${seed} group ${group.index} (${group.op} ${group.about})`, `${d.op}-s${seed}-g${group.index}-${n}`));
        });
        const done = tally.agreements + tally.disagreements.length;
        if (Date.now() - lastReport > 5000) {
          lastReport = Date.now();
          process.stderr.write(`… ${done} cases, ${tally.disagreements.length} disagreements\n`);
        }
      },
    });
    report(result, seed, started, Number(values.show), '');
    if (written.length > 0) process.stdout.write(`\nwrote ${written.length} fixtures under test/upstream/fixtures/generated/\n`);
    return result.disagreements.length === 0 ? 0 : 1;
  } finally {
    await oracle.close();
  }
}

// `node --test dist/test/` runs every file under a test/ folder, this one included: there it does nothing (the
// runner marks its children with NODE_TEST_CONTEXT), so the suite never starts a 2,000-case run by accident.
if (process.env['NODE_TEST_CONTEXT'] === undefined) process.exitCode = await main();
