// The cel-spec conformance suite through lib/cel (tools/cel-conformance): the bars the project holds its CEL to.
// Skipped when the cel-spec test data is not next to the repository (../shared/cel-spec-testdata or
// $CEL_SPEC_DIR).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { CORE_FILES, defaultSpecDir, EXTENSION_FILES, formatResults, runConformance } from '../../tools/cel-conformance/run.js';
import { setDefaultGeneration } from '../../lib/cel/runtime/index.js';

const dir = defaultSpecDir();
const available = fs.existsSync(dir);

describe('cel-spec conformance of lib/cel', { skip: available ? false : `no cel-spec test data at ${dir}` }, () => {
  const files = [...CORE_FILES, ...EXTENSION_FILES];
  const results = available ? runConformance({ dir, filter: new RegExp(`^(?:${files.join('|')})$`) }) : [];

  it('runs every file', () => {
    assert.deepEqual(results.map((r) => r.file).sort(), [...files].sort());
  });

  for (const file of CORE_FILES) {
    it(`${file}: at least 97% of the runnable tests pass`, () => {
      const r = results.find((x) => x.file === file)!;
      assert.ok(r.passed >= 0.97 * r.runnable, `${r.passed}/${r.runnable}\n${r.failures.join('\n')}`);
    });
  }

  for (const file of EXTENSION_FILES) {
    it(`${file}: at least 90% of the runnable tests pass`, () => {
      const r = results.find((x) => x.file === file)!;
      assert.ok(r.passed >= 0.9 * r.runnable, `${r.passed}/${r.runnable}\n${r.failures.join('\n')}`);
    });
  }

  // each expression here is evaluated once, on the planner's closures; the generated evaluation a hot expression
  // moves to (lib/cel/runtime/codegen.ts) must pass and fail the same tests with the same results
  it('the generated evaluation passes and fails exactly the tests the closures do', () => {
    setDefaultGeneration('always');
    let generated: typeof results;
    try {
      generated = runConformance({ dir, filter: new RegExp(`^(?:${files.join('|')})$`) });
    } finally {
      setDefaultGeneration('whenHot');
    }
    const summary = (rs: typeof results) => rs.map((r) => ({ file: r.file, passed: r.passed, runnable: r.runnable, failures: r.failures }));
    assert.deepEqual(summary(generated), summary(results));
  });

  it('prints the table', () => {
    assert.match(formatResults(results), /core files: \d+\/\d+/);
  });
});
