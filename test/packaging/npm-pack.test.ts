// `npm pack` keeps working for those who want the npm package, without the repository's tests, benchmarks or their
// data: only testdata/dev, which `--dev` serves, is shipped (issue 24).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { check } from './helpers.js';

test('npm pack ships the program, proto/, systemd/ and the --dev examples, and no test or bench data', () => {
  const repo = fileURLToPath(new URL('../../../', import.meta.url));
  // --ignore-scripts: prepare (the build) has run; `npm test` built dist/ itself
  const packed = JSON.parse(check(spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' }), 'npm pack')) as
    { files: { path: string }[] }[];
  const files = packed[0]!.files.map((f) => f.path);
  for (const path of ['package.json', 'dist/cmd/static-admissiond.js', 'dist/cmd/run.js', 'dist/lib/cli/main.js', 'proto/admission.proto', 'systemd/static-admissiond.service', 'testdata/dev/admission-test.yaml']) {
    assert.ok(files.includes(path), `${path} in the npm package`);
  }
  assert.deepEqual(files.filter((f) => /^dist\/(test|bench)\/|^testdata\/(?!dev\/)|^(test|bench|tools|packaging)\//.test(f)), []);
});
