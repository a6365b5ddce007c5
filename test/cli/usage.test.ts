// What a person sees when the command line is wrong or when asking for help: the error, the nearest flag or command,
// the command's own --help, exit 2; and help texts that are the same shape for every command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from './helpers.js';

const commands = ['serve', 'validate', 'hash', 'review', 'test', 'registration', 'version'];

test('an unknown flag suggests the nearest and names the command\'s own --help', async () => {
  const r = await run(['validate', '--admission-conf', 'x']);
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  assert.equal(r.err, "error: unknown flag: --admission-conf\n\nDid you mean this?\n\t--admission-config\n\nSee 'static-admissiond validate --help' for usage.\n");
  // no suggestion when nothing is near
  assert.equal((await run(['review', '--frobnicate'])).err, "error: unknown flag: --frobnicate\nSee 'static-admissiond review --help' for usage.\n");
  // flags before any command are serve's
  assert.match((await run(['--admision-config=x'])).err, /\t--admission-config\n\nSee 'static-admissiond serve --help' for usage\.\n$/);
});

test('a single-dash long flag is refused as pflag refuses it', async () => {
  for (const command of ['serve', 'validate', 'review', 'registration']) {
    const r = await run([command, '-admission-config', '/nonexistent']);
    assert.equal(r.code, 2, command);
    assert.match(r.err, new RegExp(`^error: unknown shorthand flag: 'a' in -admission-config\\n\\nDid you mean this\\?\\n\\t--admission-config\\n\\nSee 'static-admissiond ${command} --help' for usage\\.\\n$`), command);
  }
});

test('an unknown command suggests the nearest', async () => {
  const r = await run(['valdate']);
  assert.equal(r.code, 2);
  assert.equal(r.err, 'error: unknown command "valdate" for "static-admissiond"\n\nDid you mean this?\n\tvalidate\n\nSee \'static-admissiond --help\' for usage.\n');
});

test('every command has a --help of one shape that names its exit codes; help COMMAND prints it', async () => {
  for (const command of commands) {
    for (const help of ['--help', '-h']) {
      const r = await run([command, help]);
      assert.equal(r.code, 0, `${command} ${help}`);
      assert.equal(r.err, '');
      assert.match(r.out, new RegExp(`^Usage: static-admissiond ${command}\\b[^\\n]*\\n\\n[^\\n]+\\n\\nFlags:\\n`), command);
      assert.match(r.out, /Exit 0\b[^\n]*\b2 [^\n]*usage error\./, `${command} documents its exit codes`);
      assert.match(r.out, /\n  -h, --help +show this help\n/, command);
    }
    assert.equal((await run(['help', command])).out, (await run([command, '--help'])).out);
  }
  assert.doesNotMatch((await run(['version', '--help'])).out, /^static-admissiond \d/);
  assert.match((await run(['help'])).out, /^Usage: static-admissiond \[command\] \[flags\]/);
  assert.equal((await run(['help', 'nope'])).code, 2);
});

test('serve --help prints one default per flag', async () => {
  const out = (await run(['serve', '--help'])).out;
  for (const line of out.split('\n').filter((l) => l.startsWith('  -'))) {
    assert.ok((line.match(/\(default\b/g) ?? []).length <= 1, line);
  }
  assert.match(out, /--workers int +policy evaluation worker threads; 0 evaluates on the main thread \(default CPUs - 1, at least 1: \d+ here\)\n/);
});

test('a --feature-gates value the flag cannot take is a usage error worded as pflag words it, not a crash', async () => {
  for (const command of ['validate', 'registration']) {
    const r = await run([command, '--dev', '--ca-file', '/dev/null', '--feature-gates=Bogus=true'].filter((a) => command === 'registration' || a !== '--ca-file' && a !== '/dev/null'));
    assert.equal(r.code, 2, command);
    assert.equal(r.err, `error: invalid argument "Bogus=true" for "--feature-gates" flag: unrecognized feature gate: Bogus\nSee 'static-admissiond ${command} --help' for usage.\n`, command);
  }
});
