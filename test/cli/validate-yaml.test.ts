// `validate` on a directory with a YAML mistake shows kube-apiserver's own text: go-yaml v2's message and line,
// wrapped by the loader (`error loading <file>: `) and by the plugin's startup error, exit 1. The loader's part is the
// upstream-oracle's answer for the same directory (tools/upstream-oracle, `load` op).
// upstream: go.yaml.in/yaml/v2 v2.4.3 scannerc.go yaml_parser_fetch_next_token; decode.go parser.fail
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { run } from './helpers.js';

const tabbed = 'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p.static.k8s.io\nspec:\n\tfailurePolicy: Fail\n';

test('validate: a tab-indented line is upstream\'s "yaml: line 6: found character that cannot start any token"', async () => {
  const { dir, cleanup } = tempDir('sad-validate-yaml-');
  try {
    writeFiles(dir, { 'policy.yaml': tabbed });
    const loader = `error loading ${join(dir, 'policy.yaml')}: yaml: line 6: found character that cannot start any token`;
    const text = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
    assert.equal(text.code, 1);
    assert.equal(text.err, `error: ValidatingAdmissionPolicy: failed to load static policy manifests from "${dir}": ${loader}\n`);
    const json = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir, '-o', 'json']);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.out), {
      plugins: [],
      errors: [{ plugin: 'ValidatingAdmissionPolicy', message: `failed to load static policy manifests from "${dir}": ${loader}` }],
    });
  } finally {
    cleanup();
  }
});

test('validate: a document after a leading separator is quoted with it, as upstream\'s splitter keeps it', async () => {
  const { dir, cleanup } = tempDir('sad-validate-yaml-');
  try {
    writeFiles(dir, { 'a.yaml': '---\nkind: X\n' });
    const text = await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', dir]);
    assert.equal(text.code, 1);
    assert.match(text.err, new RegExp(`error loading ${join(dir, 'a.yaml')}: Object 'apiVersion' is missing in '---\\nkind: X'\\n$`));
  } finally {
    cleanup();
  }
});
