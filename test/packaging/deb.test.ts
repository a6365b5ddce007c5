// The .deb tested as installed (issue 24): built once, unpacked into a scratch root (dpkg-deb -R: the files `dpkg -i`
// puts on disk and the control files, without root), then its contents, its maintainer scripts, the paths its unit
// names, the smoke test from that root, systemd-analyze verify and lintian where they are installed (CI installs both).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { one, parseUnit, words } from '../systemd/unit-file.js';
import { assertNoTestOrBenchData, buildOnce, check, has, listing, needs, name, packageJson, smokeTest, version } from './helpers.js';


describe('the .deb, unpacked into a scratch root', { skip: needs('dpkg-deb') }, () => {
  const deb = buildOnce('deb');
  let root = '';
  let files: string[] = [];
  // lintian takes half a minute: it runs while the tests before it do
  let lintian: Promise<{ status: number | null; output: string }> | undefined;

  before(() => {
    root = join(deb.scratch(), 'deb-root');
    check(spawnSync('dpkg-deb', ['-R', deb.path(), root], { encoding: 'utf8' }), 'dpkg-deb -R');
    files = listing(root);
    if (needs('lintian') === false) {
      const child = spawn('lintian', ['--fail-on', 'error,warning', deb.path()]);
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      lintian = new Promise((resolve) => {
        child.once('error', (err) => resolve({ status: null, output: err.message }));
        child.once('close', (status) => resolve({ status, output }));
      });
    }
  });

  test('holds the program, command, unit, sysusers file, docs and examples in FHS places, and no test data', () => {
    for (const path of [
      `usr/lib/${name}/dist/cmd/${name}.js`, `usr/lib/${name}/package.json`, `usr/lib/${name}/proto/`, `usr/lib/${name}/node_modules/`,
      `usr/bin/${name}`, `usr/lib/systemd/system/${name}.service`, `usr/lib/sysusers.d/${name}.conf`,
      `usr/share/doc/${name}/copyright`, `usr/share/doc/${name}/changelog.gz`, `usr/share/doc/${name}/systemd/README.md`,
      `usr/share/doc/${name}/examples/admission-config.yaml`, `usr/share/doc/${name}/examples/kubelet-wants-static-admissiond.conf`,
      `usr/share/man/man1/${name}.1.gz`,
    ]) assert.ok(files.includes(path), `${path} in the package`);
    assert.equal(realpathSync(join(root, 'usr/bin', name)), join(realpathSync(root), `usr/lib/${name}/dist/cmd/${name}.js`));
    assert.ok(!files.some((f) => f.startsWith('etc/') && !f.endsWith('/')), 'no configuration file is shipped: they are the operator\'s');
    assertNoTestOrBenchData(files, `usr/lib/${name}`);
    // DEBIAN/md5sums (what dpkg --verify checks) lists every file, with its sum
    const sums = readFileSync(join(root, 'DEBIAN', 'md5sums'), 'utf8').trimEnd().split('\n').map((l) => l.split('  ') as [string, string]);
    const regular = files.filter((f) => !f.endsWith('/') && !f.startsWith('DEBIAN/') && !lstatSync(join(root, f)).isSymbolicLink());
    assert.deepEqual(sums.map(([, f]) => f).sort(), regular.sort());
    for (const [sum, f] of sums) assert.equal(createHash('md5').update(readFileSync(join(root, f))).digest('hex'), sum, f);
  });

  test('declares its Node, and its maintainer scripts create the user and never start or restart the service', () => {
    const control = readFileSync(join(root, 'DEBIAN', 'control'), 'utf8');
    assert.match(control, new RegExp(`^Version: ${version.replaceAll('.', '\\.')}$`, 'm'));
    assert.match(control, /^Architecture: all$/m);
    assert.match(control, new RegExp(`^Depends: .*\\bnodejs \\(>= ${packageJson.engines.node.replace('>=', '').replaceAll('.', '\\.')}\\)`, 'm'));
    const postinst = readFileSync(join(root, 'DEBIAN', 'postinst'), 'utf8');
    assert.match(postinst, /systemd-sysusers .*static-admissiond\.conf/);
    assert.match(postinst, /daemon-reload/);
    for (const script of ['postinst', 'prerm', 'postrm']) {
      const text = readFileSync(join(root, 'DEBIAN', script), 'utf8').replace(/^\s*#.*$/gm, '');
      assert.doesNotMatch(text, /\b(start|restart|try-restart|reload-or-restart|enable)\b/, `${script} starts or enables nothing`);
    }
  });

  test('every path the unit names exists in the package', () => {
    const unit = parseUnit(readFileSync(join(root, `usr/lib/systemd/system/${name}.service`), 'utf8'));
    const execStart = one(unit, 'Service', 'ExecStart').split(/\s+/)[0]!;
    assert.equal(execStart, `/usr/bin/${name}`);
    const documentation = words(unit, 'Unit', 'Documentation').map((d) => d.replace(/^file:\/\//, ''));
    const readOnly = words(unit, 'Service', 'ReadOnlyPaths').map((p) => p.replace(/^[-+]+/, ''));
    assert.ok(documentation.length > 0 && readOnly.length > 0);
    for (const path of [execStart, ...documentation, ...readOnly]) {
      assert.ok(existsSync(join(root, path)), `${path}, named by the unit, is in the package`);
    }
    const user = one(unit, 'Service', 'User');
    assert.match(readFileSync(join(root, `usr/lib/sysusers.d/${name}.conf`), 'utf8'), new RegExp(`^u ${user} `, 'm'));
  });

  test('the installed command runs, validates the shipped examples and serves until /readyz answers', async () => {
    await smokeTest(join(root, 'usr/bin', name), join(root, `usr/share/doc/${name}/examples`), deb.scratch());
  });

  test('systemd-analyze verify accepts the installed unit', { skip: has('systemd-analyze') ? false : 'systemd-analyze not installed' }, () => {
    // The unit's absolute paths mapped into the scratch root, and "node" to the node running this test.
    const unit = join(deb.scratch(), `${name}.service`);
    writeFileSync(unit, readFileSync(join(root, `usr/lib/systemd/system/${name}.service`), 'utf8')
      .replace(/^ExecStart=\/usr\/bin\//m, `ExecStart=${root}/usr/bin/`)
      .replace(/^ExecStartPost=node /m, `ExecStartPost=${process.execPath} `));
    check(spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' }), 'systemd-analyze verify');
  });

  test('lintian finds no errors or warnings (those intended are overridden, with the reason)', { skip: needs('lintian') }, async () => {
    const r = await lintian!;
    assert.equal(r.status, 0, `lintian:\n${r.output}`);
    assert.doesNotMatch(r.output, /^[EW]: /m);
  });
});
