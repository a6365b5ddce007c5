// Generated cases (test/upstream/generate), daemon against upstream: at least 2,000 comparisons per run, validating
// and mutating policies crossed with requests shaped like the captures, and manifest directories with mistakes for
// the loader's error texts. The seeds are fixed, so a failure here reproduces with
// `npm run test:upstream -- --seed S --cases N`; `--write-fixtures` keeps it under test/upstream/fixtures/generated.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describe as describeDisagreement } from './differential.js';
import { runGenerated } from './generated.js';
import { Oracle, oracleTestOption } from './oracle.js';
import { setDefaultGeneration } from '../../lib/cel/runtime/index.js';

// the generated CEL evaluation from the first evaluation (a daemon runs it once an expression is hot): the fixture and
// corpus suites judge the planner's closures, which every expression starts on
setDefaultGeneration('always');

/** The suite's seeds and cases per seed (README "Parity with upstream" names them). */
export const suiteSeeds = [1, 2] as const;
export const casesPerSeed = 1_000;

const option = oracleTestOption();
let oracle: Oracle;

before(() => {
  if (option.skip === false) oracle = new Oracle({ timeoutMs: 60_000 });
});
after(async () => {
  await oracle?.close();
});

describe('generated cases: daemon against upstream', option, () => {
  for (const seed of suiteSeeds) {
    // its own time limit: 1,000 cases take about 35 s on 2 shared cores, more while other suites run beside it
    it(`seed ${seed}: ${casesPerSeed} cases agree`, { timeout: 600_000 }, async () => {
      const result = await runGenerated(oracle, { seed, cases: casesPerSeed });
      const total = result.agreements + result.disagreements.length;
      assert.ok(total >= casesPerSeed, `only ${total} cases ran`);
      assert.deepEqual(result.disagreements.slice(0, 10).map((d) => describeDisagreement(d, `seed ${seed}`)), [], `${result.disagreements.length} of ${total} disagree (npm run test:upstream -- --seed ${seed} --cases ${casesPerSeed} --write-fixtures)`);
    });
  }
});
