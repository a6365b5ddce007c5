// The dependency rules of DESIGN.md's layout that a refactoring can break without a failing behaviour test: the
// commands (lib/cli) sit on top, nothing in lib/ imports them; workers never import the transport (lib/server).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** The lib/ folders a source file imports (relative imports only), as paths from the package root. */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const folders: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm)) {
    folders.push(relative(root, dirname(resolve(dirname(file), m[1]!))));
  }
  return folders;
}

test('nothing in lib/ outside lib/cli imports lib/cli', () => {
  const offenders = sources(join(root, 'lib'))
    .filter((f) => !relative(root, f).startsWith('lib/cli/'))
    .filter((f) => importedFolders(f).some((d) => d === 'lib/cli' || d.startsWith('lib/cli/')))
    .map((f) => relative(root, f));
  assert.deepEqual(offenders, []);
});

test('workers/ never imports lib/server', () => {
  const offenders = sources(join(root, 'workers'))
    .filter((f) => importedFolders(f).some((d) => d === 'lib/server' || d.startsWith('lib/server/')))
    .map((f) => relative(root, f));
  assert.deepEqual(offenders, []);
});

test('the rules read the imports they judge', () => {
  // against rules that pass because they see nothing: known imports are found (cmd/run.ts is above lib/cli)
  assert.ok(importedFolders(join(root, 'lib/cli/serve.ts')).includes('lib/review'));
  assert.ok(importedFolders(join(root, 'cmd/run.ts')).some((d) => d.startsWith('lib/cli')));
});
