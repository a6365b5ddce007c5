// The tarball tested as installed (issue 24): built once, unpacked, installed with its install.sh into a scratch prefix
// with no network where a network namespace can be had (twice: it must be idempotent), smoke-tested from there, and
// uninstalled.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { one, parseUnit, words } from '../systemd/unit-file.js';
import { assertNoTestOrBenchData, buildOnce, check, env, listing, name, smokeTest, version } from './helpers.js';

describe('the tarball, installed with install.sh --prefix', () => {
  const tarball = buildOnce('tarball');
  let prefix = '';
  let sysconfdir = '';
  let installSh = '';
  // No network: a new network namespace has none (only a loopback that is down); where none can be made, as is.
  const unshare = spawnSync('unshare', ['--net', 'true']).status === 0;
  const install = (...args: string[]): string => {
    const argv = [installSh, '--prefix', prefix, '--sysconfdir', sysconfdir, '--no-system', ...args];
    return check(spawnSync(unshare ? 'unshare' : 'sh', unshare ? ['--net', 'sh', ...argv] : argv, { encoding: 'utf8', env }), `install.sh ${args.join(' ')}`);
  };

  before(() => {
    const unpacked = join(tarball.scratch(), 'tar');
    mkdirSync(unpacked);
    check(spawnSync('tar', ['-xzf', tarball.path(), '-C', unpacked], { encoding: 'utf8' }), 'tar -x');
    installSh = join(unpacked, `${name}-${version}`, 'install.sh');
    prefix = join(tarball.scratch(), 'prefix');
    sysconfdir = join(tarball.scratch(), 'etc');
  });

  test('installs with the network unused, and again over itself', (t) => {
    if (!unshare) t.diagnostic('unshare --net is not permitted here: install.sh ran with the network present');
    assert.match(install(), new RegExp(`^${name} ${version.replaceAll('.', '\\.')} installed under ${prefix} \\(not started\\)`, 'm'));
    const first = listing(prefix).sort();
    install();
    assert.deepEqual(listing(prefix).sort(), first, 'a second run leaves the same files');
    assertNoTestOrBenchData(first, `lib/${name}`);
    const unit = parseUnit(readFileSync(join(prefix, `lib/systemd/system/${name}.service`), 'utf8'));
    const execStart = one(unit, 'Service', 'ExecStart').split(/\s+/)[0]!;
    assert.equal(execStart, join(prefix, 'bin', name), 'ExecStart= names the prefix\'s command');
    for (const doc of words(unit, 'Unit', 'Documentation')) assert.ok(existsSync(doc.replace(/^file:\/\//, '')), doc);
    for (const d of ['validating', 'mutating', 'policies', 'mutating-policies']) assert.ok(existsSync(join(sysconfdir, 'kubernetes/admission', d)));
    assert.equal(lstatSync(join(sysconfdir, 'kubernetes/pki', name)).mode & 0o777, 0o750);
  });

  test('the installed command runs, validates the shipped examples and serves until /readyz answers', async () => {
    if (!existsSync(join(prefix, 'bin', name))) install();
    await smokeTest(join(prefix, 'bin', name), join(prefix, `share/doc/${name}/examples`), tarball.scratch());
  });

  test('--uninstall removes what it installed and keeps the configuration directories', () => {
    if (!existsSync(join(prefix, 'bin', name))) install();
    install('--uninstall');
    assert.deepEqual(listing(prefix).filter((f) => !f.endsWith('/')), []);
    assert.ok(existsSync(join(sysconfdir, 'kubernetes/admission/policies')));
  });
});
