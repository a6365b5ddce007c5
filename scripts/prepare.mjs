#!/usr/bin/env node
// npm's "prepare": builds dist/ unless it is newer than everything the compiler reads.
//
// npm runs prepare after `npm install` in the repository, and again whenever it installs this directory as a link,
// which is what `npx static-admissiond` does the first time in a clone: it installs the directory into its npx cache
// as a link, and arborist runs a link's prepare script (@npmcli/arborist/lib/arborist/rebuild.js, "links should run
// prepare scripts"). Running tsc there cost 10-28 s, in silence, on a dist/ that `npm install` had just built.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The last successful build through this script. `npm run build` does not write it: after one, prepare builds once more.
const stamp = join(root, 'dist', '.prepared');
// What tsconfig.json includes, plus the files that decide how it compiles (package-lock.json: the @types versions).
const sourceDirs = ['cmd', 'lib', 'workers', 'test', 'bench'];
const sourceFiles = ['tsconfig.json', 'package.json', 'package-lock.json'];

/** The newest modification time under `path` (0 if it does not exist). */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted or renamed file changes its directory's time
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const built = newest(stamp);
const changed = Math.max(...sourceDirs.map((d) => newest(join(root, d))), ...sourceFiles.map((f) => newest(join(root, f))));
if (built > 0 && built >= changed) process.exit(0);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
// package.json's "bin": tsc writes it 0644, and npx links the bin only when it first installs this clone into its cache.
chmodSync(join(root, 'dist', 'cmd', 'static-admissiond.js'), 0o755);
mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
