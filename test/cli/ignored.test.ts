// validate names the directory entries a load skips, and why: upstream's manifest.LoadFiles reads only direct
// children named .yaml, .yml or .json (last extension, any case) and skips zero-byte files, silently
// (k8s.io/apiserver pkg/admission/plugin/manifest/loader.go). Editor droppings and dotfiles are counted in one line.
// The load and the content hash are what they are without those entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir, vap, writeFiles } from '../helpers/fs.js';
import { run } from './helpers.js';

const policy = vap('p.static.k8s.io');

test('validate names a .txt file, a subdirectory and an empty file; counts editor and hidden entries; hash unchanged', async () => {
  const { dir: clean } = tempDir('sad-ignored-clean-');
  writeFiles(clean, { 'policy.yaml': policy });
  const { dir } = tempDir('sad-ignored-');
  writeFiles(dir, {
    'policy.yaml': policy,
    'extra-policy.yaml.txt': vap('extra.static.k8s.io'),
    'more/policy.yaml': vap('more.static.k8s.io'),
    'empty.yaml': '',
    '.policy.yaml.swp': 'swap',
    'policy.yaml~': policy,
    '.#policy.yaml.lock': 'lock',
    '.hidden': 'x',
  });
  const text = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
  assert.equal(text.code, 0, text.err);
  const expectedHash = (await run(['hash', clean])).out.trim();
  assert.notEqual(expectedHash, '');
  assert.equal(
    text.out,
    `ValidatingAdmissionPolicy: ${dir}: 1 ValidatingAdmissionPolicy; hash ${expectedHash}
  ignored "empty.yaml": an empty file
  ignored "extra-policy.yaml.txt": not named .yaml, .yml or .json
  ignored "more": a subdirectory (only the directory's own files are read)
  ignored 4 editor or hidden entries (.swp, ~, .#…, dotfiles)
`,
  );
  const json = JSON.parse((await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir, '-o', 'json'])).out) as { plugins: Array<{ hash: string; counts: object; ignored: unknown; ignoredHidden: number }> };
  assert.equal(json.plugins[0]!.hash, expectedHash);
  assert.deepEqual(json.plugins[0]!.counts, { ValidatingAdmissionPolicy: 1 });
  assert.deepEqual(json.plugins[0]!.ignored, [
    { name: 'empty.yaml', reason: 'empty' },
    { name: 'extra-policy.yaml.txt', reason: 'suffix' },
    { name: 'more', reason: 'directory' },
  ]);
  assert.equal(json.plugins[0]!.ignoredHidden, 4);
  // skipping is no warning: --warnings-as-errors still passes
  assert.equal((await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir, '--warnings-as-errors'])).code, 0);
});

test('a directory with nothing skipped prints no ignored lines', async () => {
  const { dir } = tempDir('sad-ignored-none-');
  writeFiles(dir, { 'a.YAML': policy });
  const text = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
  assert.doesNotMatch(text.out, /^ +ignored/m);
});
