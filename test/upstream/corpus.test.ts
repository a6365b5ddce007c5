// Every manifest directory and AdmissionReview the repository holds, through the daemon and through kube-apiserver
// 1.36's own code (the upstream-oracle): each directory loaded by both (error text, hash, counts), every review
// decided by every policy directory of its endpoint, and each AdmissionTest suite's requests by its own directories.
// Skipped, saying so, without the oracle; required under CI=true.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDirs, corpusReviewFiles, corpusSuites } from './corpus.js';
import type { CorpusDir } from './corpus.js';
import { compareDirectory, describe as describeDisagreement, newTally } from './differential.js';
import type { Op } from './differential.js';
import { DaemonSide } from './daemon.js';
import type { Files } from './generate/index.js';
import { Oracle, oracleTestOption } from './oracle.js';

const option = oracleTestOption();
let oracle: Oracle;
const daemon = new DaemonSide();

before(() => {
  if (option.skip === false) oracle = new Oracle();
});
after(async () => {
  await oracle?.close();
});

/** The directory's files, for a disagreement's fixture. */
function filesOf(dir: string): Files {
  const files: Files = {};
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isFile() && statSync(path).size < 1 << 20) files[name] = readFileSync(path, 'utf8');
  }
  return files;
}

/**
 * Pairs upstream cannot decide: its answer changes from run to run. Each is left out of the comparison, named in
 * the test's output (and in README "Parity with upstream").
 */
const undecidable: ReadonlyArray<{ readonly dir: string; readonly review: string; readonly why: string }> = [
  {
    dir: 'testdata/admission/object-keys/mutating', review: 'testdata/bench/pod-review.json',
    why: 'a policy joins the keys of a map of four labels: cel-go v0.26.0 common/types/map.go stringIfaceMapAccessor.Iterator ranges over a Go map, in random order (the daemon: the object\'s key order)',
  },
];

const opOf = (d: CorpusDir): Op => (d.plugin === 'ValidatingAdmissionPolicy' ? 'validate' : d.plugin === 'MutatingAdmissionPolicy' ? 'mutate' : 'load');

describe('corpus: the repository\'s manifests and reviews, daemon against upstream', option, () => {
  const dirs = corpusDirs();
  const reviews = corpusReviewFiles();

  it('finds the corpus (manifest directories of both policy plugins, and the captures)', () => {
    assert.ok(dirs.some((d) => d.plugin === 'ValidatingAdmissionPolicy') && dirs.some((d) => d.plugin === 'MutatingAdmissionPolicy'), 'no policy directories found');
    assert.ok(reviews.length >= 20, `only ${reviews.length} AdmissionReviews found`);
  });

  for (const d of dirs) {
    it(`${d.name} as ${d.plugin}: loads, and decides every review, as upstream`, async (t) => {
      const tally = newTally();
      const left = undecidable.filter((u) => u.dir === d.name);
      for (const u of left) t.diagnostic(`not compared: ${u.review}: upstream is undecidable here: ${u.why}`);
      const compared = reviews.filter((r) => !left.some((u) => u.review === r.name));
      await compareDirectory(oracle, daemon, d.dir, d.plugin, filesOf(d.dir), opOf(d), compared.map((r) => r.review), tally);
      const names = new Map(reviews.map((r) => [r.review, r.name]));
      assert.deepEqual(tally.disagreements.map((x) => describeDisagreement(x, `${d.name} × ${x.review === undefined ? 'load' : names.get(x.review as never)}`)), []);
      assert.ok(tally.agreements >= 1);
    });
  }

  for (const suite of corpusSuites()) {
    it(`${suite.file}: its cases' requests decided as upstream`, async () => {
      const tally = newTally();
      for (const { plugin, dir } of suite.dirs) {
        const op = plugin === 'ValidatingAdmissionPolicy' ? 'validate' : plugin === 'MutatingAdmissionPolicy' ? 'mutate' : 'load';
        await compareDirectory(oracle, daemon, dir, plugin, filesOf(dir), op, suite.reviews.map((r) => r.review), tally);
      }
      const names = new Map(suite.reviews.map((r) => [r.review, r.name]));
      assert.deepEqual(tally.disagreements.map((x) => describeDisagreement(x, names.get(x.review as never) ?? 'load')), []);
    });
  }
});
