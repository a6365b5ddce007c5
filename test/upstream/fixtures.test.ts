// The differential suite's fixtures (test/upstream/fixtures): upstream's own loader table tests ported as data, and
// every disagreement the generator or the corpus ever found, with its seed. Where a fixture states upstream's answer
// (`expect`), the daemon is held to it on every machine; where the oracle runs, both sides are also compared whole.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { asReleaseBuild } from './compare.js';
import { compareDirectory, newTally, scratch, writeDir } from './differential.js';
import { daemonLoad, DaemonSide } from './daemon.js';
import { describe as describeDisagreement } from './differential.js';
import { expectationMisses, readFixtures } from './fixtures.js';
import type { Fixture } from './fixtures.js';
import { locateOracle, Oracle, oracleTestOption } from './oracle.js';

const fixtures = readFixtures();
const tmp = scratch();
const daemon = new DaemonSide();
let oracle: Oracle | undefined;

before(() => {
  if (locateOracle() !== undefined || process.env['CI'] === 'true') oracle = new Oracle();
});
after(async () => {
  await oracle?.close();
  tmp.cleanup();
});

function skipOf(fixture: Fixture): string | false {
  if (fixture.status === 'known-i26-fixes') return `known difference, fixed on branch i26-fixes: enabled once merged${fixture.note ? ` (${fixture.note})` : ''}`;
  if (fixture.status === 'open') return `open difference, not fixed yet: ${fixture.note ?? ''}`;
  if (fixture.status === 'undecidable') return `upstream's answer is not decidable here: ${fixture.note ?? ''}`;
  return false;
}

async function daemonAnswer(fixture: Fixture, dir: string): Promise<Record<string, unknown>> {
  if (fixture.op === 'load') return daemonLoad(fixture.plugin, dir) as unknown as Record<string, unknown>;
  const answer = fixture.op === 'validate' ? await daemon.validate(dir, fixture.review) : await daemon.mutate(dir, fixture.review);
  return answer as unknown as Record<string, unknown>;
}

describe('fixtures: the daemon answers as upstream states', () => {
  for (const [i, { name, fixture }] of fixtures.entries()) {
    if (fixture.expect === undefined) continue;
    it(`${name} (${fixture.source})`, { skip: skipOf(fixture) }, async () => {
      const dir = writeDir(tmp.dir, `expect-${i}`, fixture.files);
      const misses = expectationMisses(fixture.expect!, await daemonAnswer(fixture, dir));
      assert.deepEqual(misses, [], `${name}: the daemon differs from upstream's answer`);
    });
  }
});

describe('fixtures: daemon and upstream-oracle agree', oracleTestOption(), () => {
  for (const [i, { name, fixture }] of fixtures.entries()) {
    it(`${name} (${fixture.source})`, { skip: skipOf(fixture) }, async () => {
      const dir = writeDir(tmp.dir, `oracle-${i}`, fixture.files);
      const tally = newTally();
      await compareDirectory(oracle!, daemon, dir, fixture.plugin, fixture.files, fixture.op, fixture.review === undefined ? [] : [fixture.review], tally);
      assert.deepEqual(tally.disagreements.map((d) => describeDisagreement(d, name)), []);
      if (fixture.expect !== undefined && fixture.op === 'load') {
        // the fixture's statement of upstream holds for the oracle too (a check on the oracle and on the port)
        const answer = await oracle!.load(fixture.plugin, dir);
        const upstream = answer.ok ? answer : { ...answer, error: asReleaseBuild(answer.error, fixture.plugin) };
        assert.deepEqual(expectationMisses(fixture.expect, upstream as unknown as Record<string, unknown>), [], `${name}: the oracle differs from the upstream test's statement`);
      }
    });
  }
});
