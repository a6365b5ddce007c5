#!/usr/bin/env node
// `npm run package`: builds the release artifacts from the built dist/ and the lock file, into release/ (or --out):
//   static-admissiond_<version>_all.deb        (dpkg-deb; FHS places, Depends: nodejs (>= 20.19))
//   static-admissiond-<version>-linux.tar.gz   (the same files under one prefix, with install.sh)
//   SHA256SUMS
// Nothing here needs the network except `npm ci` when the npm cache lacks a locked package; --offline forbids that
// (the tests use it). What the artifacts hold needs no network at install time: the production node_modules
// (no dev or optional dependencies: the only optional one, piscina's @napi-rs/nice, is native and unused) is
// installed here from package-lock.json, so the package is architecture-independent.
//
// Usage: node packaging/build.mjs [--out DIR] [--offline] [--fast] [--only deb|tarball]
//   --fast  gzip instead of xz inside the .deb, and gzip -1 for the tarball (the tests' build: xz took 40 s here)
//   --only  build one of the two (the tests build each in its own file, in parallel)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const name = 'static-admissiond';

const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(root, 'release'));
const offline = flag('--offline');
const fast = flag('--fast');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? args[onlyIndex + 1] : undefined;
if (only !== undefined && only !== 'deb' && only !== 'tarball') throw new Error(`--only deb or --only tarball, not ${only}`);

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = pkg.version;
const requiredNode = /^>=\s*(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
if (!requiredNode) throw new Error(`package.json engines.node ${JSON.stringify(pkg.engines.node)} is not ">=X.Y"`);

/** The commit time, so that two builds of one commit give the same bytes (dpkg-deb clamps mtimes to it too). */
const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? (git('log', '-1', '--format=%ct') || Math.floor(Date.now() / 1000)));
const env = { ...process.env, SOURCE_DATE_EPOCH: String(epoch) };

function git(...a) {
  const r = spawnSync('git', a, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

function run(command, argv, options = {}) {
  const r = spawnSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env, ...options });
  if (r.error) throw new Error(`${command}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${command} ${argv.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

for (const built of ['dist/cmd/static-admissiond.js', 'dist/lib', 'dist/workers']) {
  if (!existsSync(join(root, built))) throw new Error(`${built} is missing: build first (npm run package does)`);
}

const stage = mkdtempSync(join(tmpdir(), `${name}-package-`));
try {
  const app = join(stage, 'app');
  stageProgram(app);
  mkdirSync(out, { recursive: true });
  // One tree, moved rather than copied: laid out for the .deb, then its usr/ becomes the tarball's top directory.
  const debTree = join(stage, 'deb');
  layOut(app, join(debTree, 'usr'));
  normaliseModes(join(debTree, 'usr'));
  const artifacts = [];
  if (only !== 'tarball') artifacts.push(buildDeb(debTree));
  if (only !== 'deb') artifacts.push(buildTarball(join(debTree, 'usr'), join(stage, 'tar')));
  const sums = artifacts.map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${relative(out, f)}\n`);
  writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
  for (const f of artifacts) process.stdout.write(`${relative(process.cwd(), f)}\t${lstatSync(f).size} bytes\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

/** What /usr/lib/static-admissiond holds: the compiled program without tests, benchmarks or source maps, proto/, the
 * --dev examples, and the production node_modules installed from the lock file. */
function stageProgram(app) {
  mkdirSync(app, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(root, f), join(app, f));
  for (const d of ['dist/cmd', 'dist/lib', 'dist/workers']) {
    cpSync(join(root, d), join(app, d), { recursive: true, filter: (src) => !src.endsWith('.map') });
  }
  cpSync(join(root, 'proto'), join(app, 'proto'), { recursive: true });
  cpSync(join(root, 'testdata', 'dev'), join(app, 'testdata', 'dev'), { recursive: true });
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  run(npm[0], [...npm.slice(1), 'ci', '--omit=dev', '--omit=optional', '--ignore-scripts', '--no-audit', '--no-fund',
    ...(offline ? ['--offline'] : ['--prefer-offline'])], { cwd: app });
  // (--ignore-scripts: the one install script among them, protobufjs's postinstall, only warns about version ranges)
  // npm ci's links to dependencies' commands and its record of the tree: nothing at run time reads them
  rmSync(join(app, 'node_modules', '.bin'), { recursive: true, force: true });
  rmSync(join(app, 'node_modules', '.package-lock.json'), { force: true });
  rmSync(join(app, 'package-lock.json'));
  pruneModules(join(app, 'node_modules'));
  chmodSync(join(app, 'dist', 'cmd', 'static-admissiond.js'), 0o755);
}

/** Drops what modules publish but never load: their benchmarks (piscina's carries a copy of the async library) and
 * .npmignore files (npm's own packing configuration; lintian: package-contains-npm-ignore-file). */
function pruneModules(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry.startsWith('@')) pruneModules(path);
    else if (existsSync(join(path, 'package.json'))) {
      rmSync(join(path, 'benchmark'), { recursive: true, force: true });
      rmSync(join(path, '.npmignore'), { force: true });
      if (existsSync(join(path, 'node_modules'))) pruneModules(join(path, 'node_modules'));
    }
  }
}

/** The files both artifacts install, laid out under `prefix` (a directory standing for /usr); moves `app` there. */
function layOut(app, prefix) {
  mkdirSync(join(prefix, 'lib'), { recursive: true });
  renameSync(app, join(prefix, 'lib', name));
  mkdirSync(join(prefix, 'bin'), { recursive: true });
  symlinkSync(`../lib/${name}/dist/cmd/static-admissiond.js`, join(prefix, 'bin', name));
  const systemd = join(root, 'systemd');
  cpSync(join(systemd, `${name}.service`), join(prefix, 'lib', 'systemd', 'system', `${name}.service`));
  cpSync(join(systemd, `${name}.sysusers.conf`), join(prefix, 'lib', 'sysusers.d', `${name}.conf`));
  mkdirSync(join(prefix, 'share', 'man', 'man1'), { recursive: true });
  const doc = join(prefix, 'share', 'doc', name);
  cpSync(join(root, 'README.md'), join(doc, 'README.md'));
  cpSync(join(systemd, 'README.md'), join(doc, 'systemd', 'README.md'));
  cpSync(join(root, 'docs'), join(doc, 'docs'), { recursive: true });
  for (const example of ['admission-config.yaml', 'kubelet-wants-static-admissiond.conf', 'tests']) {
    cpSync(join(systemd, example), join(doc, 'examples', example), { recursive: true });
  }
  writeFileSync(join(doc, 'copyright'), copyright(join(prefix, 'lib', name)));
  writeFileSync(join(prefix, 'share', 'man', 'man1', `${name}.1.gz`), gzipSync(manPage(join(prefix, 'lib', name)), { level: 9 }));
  writeFileSync(join(doc, 'changelog.gz'), gzipSync(changelog(), { level: 9 })); // zlib writes no name and mtime 0, as gzip -n
}

function buildDeb(tree) {
  // The directories the unit's ReadOnlyPaths= names (a missing one fails the start with 226/NAMESPACE) and the four
  // the example admission-config.yaml names. The manifests and the configuration are the operator's: none is shipped.
  for (const d of ['validating', 'mutating', 'policies', 'mutating-policies']) mkdirSync(join(tree, 'etc/kubernetes/admission', d), { recursive: true });
  mkdirSync(join(tree, 'etc/kubernetes/pki', name), { recursive: true });
  // Debian's way to say that a lintian finding is intended, and why (the file says).
  cpSync(join(here, 'debian', 'lintian-overrides'), join(tree, 'usr/share/lintian/overrides', name));
  const control = join(tree, 'DEBIAN');
  mkdirSync(control);
  for (const script of ['postinst', 'prerm', 'postrm']) cpSync(join(here, 'debian', script), join(control, script));
  for (const added of ['etc', 'DEBIAN', 'usr/share/lintian']) normaliseModes(join(tree, added));
  chmodSync(join(tree, 'etc/kubernetes/pki', name), 0o750);
  // what dh_md5sums writes: `dpkg --verify` and debsums check installed files against it
  writeFileSync(join(control, 'md5sums'), md5sums(tree, control).map(([sum, file]) => `${sum}  ${file}\n`).join(''));
  const installedKiB = Math.ceil(diskUsage(tree, control) / 1024);
  writeFileSync(join(control, 'control'), readFileSync(join(here, 'debian', 'control'), 'utf8')
    .replace('@VERSION@', version).replace('@INSTALLED_SIZE@', String(installedKiB))
    .replace('nodejs (>= 20.19)', `nodejs (>= ${requiredNode})`));
  for (const f of ['control', 'md5sums']) chmodSync(join(control, f), 0o644);
  const deb = join(out, `${name}_${version}_all.deb`);
  run('dpkg-deb', ['--root-owner-group', `-Z${fast ? 'gzip' : 'xz'}`, '--build', tree, deb]);
  return deb;
}

/** The tarball from the .deb's usr/ tree (`usr`), which it moves. */
function buildTarball(usr, tree) {
  const top = `${name}-${version}`;
  const base = join(tree, top);
  mkdirSync(tree);
  renameSync(usr, base);
  rmSync(join(base, 'share', 'lintian'), { recursive: true, force: true }); // the .deb's
  writeFileSync(join(base, 'install.sh'), readFileSync(join(here, 'install.sh'), 'utf8').replaceAll('@REQUIRED_NODE@', requiredNode));
  chmodSync(join(base, 'install.sh'), 0o755);
  const tarball = join(out, `${top}-linux.tar.gz`);
  const tar = run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=@${epoch}`, '-cf', '-', top],
    { cwd: tree, encoding: 'buffer', maxBuffer: 1 << 30 });
  writeFileSync(tarball, gzipSync(tar, { level: fast ? 1 : 9 }));
  return tarball;
}

/** 0755 for directories and for files someone may execute, 0644 for the rest: npm and git leave group bits as umask
 * had them. */
function normaliseModes(path) {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if (st.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) normaliseModes(join(path, entry));
    return;
  }
  const executable = (st.mode & 0o100) !== 0 || /\/DEBIAN\/(postinst|prerm|postrm)$/.test(path);
  chmodSync(path, executable ? 0o755 : 0o644);
}

/** [md5, path relative to `tree`] of every regular file under `tree` but `except`, sorted by path. */
function md5sums(tree, except, dir = tree) {
  return readdirSync(dir).sort().flatMap((entry) => {
    const path = join(dir, entry);
    const st = lstatSync(path);
    if (path === except || st.isSymbolicLink()) return [];
    if (st.isDirectory()) return md5sums(tree, except, path);
    return [[createHash('md5').update(readFileSync(path)).digest('hex'), relative(tree, path)]];
  });
}

function diskUsage(path, except) {
  const st = lstatSync(path);
  if (path === except) return 0;
  if (!st.isDirectory()) return Math.ceil(st.size / 1024) * 1024;
  return 1024 + readdirSync(path).reduce((sum, e) => sum + diskUsage(join(path, e), except), 0);
}

/** Debian's copyright file: this project's licence and, for each module bundled under node_modules, its licence as its
 * package.json declares it (the licence texts are in each module's directory). */
function copyright(program) {
  const modules = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (entry.startsWith('@')) walk(path);
      else if (existsSync(join(path, 'package.json'))) {
        const m = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
        modules.push(`  ${relative(program, path)} (${m.name} ${m.version}): ${m.license ?? 'see its directory'}`);
        if (existsSync(join(path, 'node_modules'))) walk(join(path, 'node_modules'));
      }
    }
  };
  walk(join(program, 'node_modules'));
  return [
    `${name}: manifest-based admission control for the local kube-apiserver.`,
    '',
    `Copyright ${new Date(epoch * 1000).getUTCFullYear()} the ${name} authors`,
    `License: ${pkg.license}`,
    '',
    'On Debian systems, the full text of the Apache License 2.0 is in',
    '/usr/share/common-licenses/Apache-2.0.',
    '',
    `Bundled Node.js modules, under /usr/lib/${name}/ (each directory holds its licence text):`,
    ...modules.sort(),
    '',
  ].join('\n');
}

/** A manual page made of the command's own help texts, so it cannot disagree with them: one process prints them all. */
function manPage(app) {
  const main = pathToFileURL(join(app, 'dist', 'lib', 'cli', 'main.js')).href;
  const script = `import { main } from ${JSON.stringify(main)};
    const help = async (argv) => { let text = ''; await main(argv, { stdout: (t) => (text += t), stderr: (t) => (text += t) }); return text; };
    const top = await help(['--help']);
    const commands = [...top.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]).filter((c) => c !== 'help');
    const sections = [];
    for (const c of commands) sections.push([c, await help([c, '--help'])]);
    process.stdout.write(JSON.stringify({ top, sections }));`;
  const { top, sections } = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script]));
  const roff = (text) => text.replace(/\\/g, '\\e').replace(/^[.']/gm, '\\&$&');
  const day = new Date(epoch * 1000).toISOString().slice(0, 10);
  return [
    `.TH STATIC-ADMISSIOND 1 ${day} "${name} ${version}" "User Commands"`,
    '.SH NAME',
    `${name} \\- manifest-based admission control (KEP-5793) for the local kube-apiserver`,
    '.SH SYNOPSIS',
    `.B ${name}`,
    '[\\fIcommand\\fR] [\\fIflags\\fR]',
    '.SH DESCRIPTION',
    '.nf',
    roff(top),
    '.fi',
    ...sections.flatMap(([c, text]) => [`.SS ${c}`, '.nf', roff(text), '.fi']),
    '.SH SEE ALSO',
    `/usr/share/doc/${name}/README.md, /usr/share/doc/${name}/systemd/README.md`,
    '',
  ].join('\n');
}

function changelog() {
  const date = new Date(epoch * 1000).toUTCString().replace('GMT', '+0000');
  const commit = git('rev-parse', '--short', 'HEAD');
  const maintainer = /^Maintainer: (.+)$/m.exec(readFileSync(join(here, 'debian', 'control'), 'utf8'))[1];
  return `${name} (${version}) unstable; urgency=medium\n\n  * Release ${version}${commit ? ` (commit ${commit})` : ''}.\n\n -- ${maintainer}  ${date}\n`;
}
