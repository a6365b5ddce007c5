// The suites the repository ships run through the real executable, so the examples they test never rot: the dev
// examples `serve --dev` serves, and the systemd example configuration with its node layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../../', import.meta.url).pathname;
const executable = join(root, 'dist/cmd/static-admissiond.js');

for (const [what, path] of [['testdata/dev', 'testdata/dev'], ['the systemd example configuration', 'systemd/tests']] as const) {
  test(`the shipped suite for ${what} passes through the CLI`, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [executable, 'test', path], { cwd: root });
    const closing = /\n(\d+) passed, 0 failed\n$/.exec(stdout);
    assert.ok(closing !== null, stdout);
    assert.ok(Number(closing[1]) >= 8, `the suite runs its cases:\n${stdout}`);
    assert.doesNotMatch(stdout, /^FAIL|^ERROR/m);
  });
}
