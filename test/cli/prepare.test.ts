// npm's "prepare" script (scripts/prepare.mjs) compiles only when dist/ is older than its sources: npx runs prepare
// again when it installs the clone into its cache, and the first `npx static-admissiond` must not recompile (issue 24).
// The script runs in a scratch copy of the repository's shape whose "typescript" records each time it is run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../../scripts/prepare.mjs', import.meta.url));

function scratchRepository(): { dir: string; prepare: () => number; compilations: () => number } {
  const dir = mkdtempSync(join(tmpdir(), 'prepare-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(script, join(dir, 'scripts', 'prepare.mjs'));
  for (const d of ['cmd', 'lib/cli', 'node_modules/typescript/bin']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'cmd', 'static-admissiond.ts'), 'export {};\n');
  writeFileSync(join(dir, 'lib', 'cli', 'main.ts'), 'export {};\n');
  for (const f of ['tsconfig.json', 'package.json', 'package-lock.json']) writeFileSync(join(dir, f), '{}\n');
  const log = join(dir, 'compilations');
  writeFileSync(join(dir, 'node_modules', 'typescript', 'package.json'), '{"name":"typescript"}\n');
  writeFileSync(
    join(dir, 'node_modules', 'typescript', 'bin', 'tsc'),
    `const fs = require('node:fs'); fs.appendFileSync(${JSON.stringify(log)}, process.argv.slice(2).join(' ') + '\\n');\n`
      + `fs.mkdirSync(${JSON.stringify(join(dir, 'dist', 'cmd'))}, { recursive: true });\n`
      + `fs.writeFileSync(${JSON.stringify(join(dir, 'dist', 'cmd', 'static-admissiond.js'))}, '', { mode: 0o644 });\n`,
  );
  return {
    dir,
    prepare: () => spawnSync(process.execPath, [join(dir, 'scripts', 'prepare.mjs')], { cwd: dir, stdio: 'inherit' }).status ?? -1,
    compilations: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((l) => l !== '').length : 0),
  };
}

test('prepare compiles a fresh clone once, then not again until a source changes', (t) => {
  const repo = scratchRepository();
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  assert.equal(repo.prepare(), 0);
  assert.equal(repo.compilations(), 1, 'a clone without dist/ is compiled');
  assert.equal(statSync(join(repo.dir, 'dist', 'cmd', 'static-admissiond.js')).mode & 0o777, 0o755, 'the bin is executable');
  assert.equal(repo.prepare(), 0);
  assert.equal(repo.compilations(), 1, 'nothing changed since: not compiled again (what npx runs)');

  const later = new Date(Date.now() + 60_000);
  utimesSync(join(repo.dir, 'lib', 'cli', 'main.ts'), later, later);
  assert.equal(repo.prepare(), 0);
  assert.equal(repo.compilations(), 2, 'a changed source is compiled');

  const evenLater = new Date(Date.now() + 120_000);
  utimesSync(join(repo.dir, 'package-lock.json'), evenLater, evenLater);
  assert.equal(repo.prepare(), 0);
  assert.equal(repo.compilations(), 3, 'changed dependencies (their types) are compiled against');
});

test('a failed compilation fails prepare and is tried again next time', (t) => {
  const repo = scratchRepository();
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const tsc = join(repo.dir, 'node_modules', 'typescript', 'bin', 'tsc');
  const recording = readFileSync(tsc, 'utf8');
  writeFileSync(tsc, `${recording}process.exit(2);\n`);
  assert.equal(repo.prepare(), 2);
  writeFileSync(tsc, recording);
  assert.equal(repo.prepare(), 0);
  assert.equal(repo.compilations(), 2);
});
