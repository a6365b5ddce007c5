// The executable on an unsupported Node: one line naming the required version and exit 1, before any module that an
// old Node could not parse or run is loaded. Real old Nodes (12.22, 18.19) were run by hand; here the running Node is
// made to report an older version before the entry point runs, which is all the entry point looks at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../../cmd/static-admissiond.js', import.meta.url));
const packageJson = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as {
  engines: { node: string };
};

/** Runs the executable with `process.version` and `process.versions.node` reporting `version`. */
function runAs(version: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const fake = `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} });`
    + `Object.defineProperty(process, 'version', { value: ${JSON.stringify(`v${version}`)} });`;
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, entry, ...args], {
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('an older Node is refused in one line naming the required version', () => {
  for (const version of ['18.19.0', '20.18.3', '12.22.12']) {
    const r = runAs(version, 'version');
    assert.equal(r.status, 1, version);
    assert.equal(r.stdout, '', version);
    assert.equal(r.stderr, `static-admissiond: needs Node.js >= 20.19, but ${process.execPath} is v${version}\n`, version);
  }
});

test('the required version is the one package.json declares, and it and later ones run', () => {
  assert.equal(packageJson.engines.node, '>=20.19');
  for (const version of ['20.19.0', '21.0.0', '22.12.0']) {
    const r = runAs(version, 'version');
    assert.equal(r.status, 0, `${version}: ${r.stderr}`);
    assert.match(r.stdout, /^static-admissiond \d+\.\d+\.\d+/, version);
  }
});

test('the entry point loads nothing statically and uses no syntax newer than Node 12 parses', () => {
  // An ES module's static imports are linked before its first statement; one would load the dependencies (which
  // need Node 20: `??`, `File`) before the check could run.
  const text = readFileSync(entry, 'utf8').replace(/^\s*\/\/.*$/gm, '');
  assert.doesNotMatch(text, /^\s*import\s[^(]/m);
  assert.doesNotMatch(text, /\?\?|\?\.[^\d]/);
  assert.doesNotMatch(text, /^await\s/m);
  assert.doesNotMatch(text, /import\.meta/);
});
