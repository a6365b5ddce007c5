// The cel-spec conformance suite through lib/cel (tools/cel-conformance): the bars the project holds its CEL to.
// Skipped when the cel-spec test data is not next to the repository (../shared/cel-spec-testdata or
// $CEL_SPEC_DIR).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { CORE_FILES, defaultSpecDir, EXTENSION_FILES, formatResults, runConformance } from '../../tools/cel-conformance/run.js';

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

  it('prints the table', () => {
    assert.match(formatResults(results), /core files: \d+\/\d+/);
  });
});
