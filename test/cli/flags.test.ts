import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goDuration, nearestNames, parseDuration, parseFlags, UsageError } from '../../lib/cli/flags.js';
import type { FlagSpec } from '../../lib/cli/flags.js';

const specs: FlagSpec[] = [
  { name: 'reload-interval', type: 'duration', default: '1m', usage: '' },
  { name: 'v', short: 'v', type: 'int', default: 0, usage: '' },
  { name: 'dev', type: 'boolean', default: false, usage: '' },
  { name: 'output', short: 'o', type: 'string', default: 'text', usage: '' },
];

test('kube-style flags: --a=b, --a b, -v=2, bare booleans, positionals', () => {
  const f = parseFlags(['--reload-interval=1m30s', '-v', '4', '--dev', '-o=json', 'dir'], specs);
  assert.equal(f.values.get('reload-interval'), 90_000);
  assert.equal(f.values.get('v'), 4);
  assert.equal(f.values.get('dev'), true);
  assert.equal(f.values.get('output'), 'json');
  assert.deepEqual(f.positional, ['dir']);
  assert.equal(parseFlags([], specs).values.get('reload-interval'), 60_000);
});

test('Go durations and errors', () => {
  assert.equal(parseDuration('10ms'), 10);
  assert.equal(parseDuration('1h2m3.5s'), 3_723_500);
  assert.throws(() => parseDuration('5'), { message: 'time: invalid duration "5"' });
  assert.throws(() => parseFlags(['--nope'], specs), (e: Error) => e instanceof UsageError && e.message === 'unknown flag: --nope');
  assert.throws(() => parseFlags(['--v=x'], specs), UsageError);
  assert.throws(() => parseFlags(['--output'], specs), { message: 'flag needs an argument: --output' });
});

// spf13/pflag flag.go (parseLongArg, parseSingleShortArg, FlagSet.Set): the shapes and the messages
test('shorthands as pflag parses them: -o json, -ojson, -o=json, -ho json', () => {
  const withHelp: FlagSpec[] = [...specs, { name: 'help', short: 'h', type: 'boolean', default: false, usage: '' }];
  for (const argv of [['-o', 'json'], ['-ojson'], ['-o=json'], ['-ho', 'json']]) assert.equal(parseFlags(argv, withHelp).values.get('output'), 'json', argv.join(' '));
  assert.equal(parseFlags(['-ho', 'json'], withHelp).values.get('help'), true);
  assert.throws(() => parseFlags(['-o'], specs), { message: "flag needs an argument: 'o' in -o" });
  assert.throws(() => parseFlags(['--=x'], specs), { message: 'bad flag syntax: --=x' });
  assert.throws(() => parseFlags(['----x'], specs), { message: 'bad flag syntax: ----x' });
  assert.throws(() => parseFlags(['-v=x'], specs), { message: 'invalid argument "x" for "-v, --v" flag: strconv.ParseInt: parsing "x": invalid syntax' });
  assert.throws(() => parseFlags(['--dev=x'], specs), { message: 'invalid argument "x" for "--dev" flag: strconv.ParseBool: parsing "x": invalid syntax' });
});

test('a single-dash long flag is refused at its first unknown shorthand, with the long flag suggested', () => {
  const longFlag: FlagSpec[] = [...specs, { name: 'admission-config', type: 'string', default: '', usage: '' }];
  assert.throws(() => parseFlags(['-admission-config', 'x'], longFlag), (e: Error) => e instanceof UsageError
    && e.message === "unknown shorthand flag: 'a' in -admission-config" && e.suggestions.join() === '--admission-config');
  // -output: 'o' takes the rest, as pflag does (-o utput)
  assert.equal(parseFlags(['-output'], specs).values.get('output'), 'utput');
  assert.throws(() => parseFlags(['-dev'], specs), { message: "unknown shorthand flag: 'd' in -dev" });
});

test('an unknown flag suggests the nearest: a typo or a prefix', () => {
  const names = ['admission-config', 'feature-gates', 'dev', 'output'];
  assert.deepEqual(nearestNames('admission-conf', names), ['admission-config']);
  assert.deepEqual(nearestNames('admision-config', names), ['admission-config']);
  assert.deepEqual(nearestNames('feature-gate', names), ['feature-gates']);
  assert.deepEqual(nearestNames('frobnicate', names), []);
  assert.throws(() => parseFlags(['--ouptut=json'], specs), (e: Error) => e instanceof UsageError && e.message === 'unknown flag: --ouptut' && e.suggestions.join() === '--output');
});

test('durations in the help as Go prints them (time.Duration.String)', () => {
  assert.deepEqual([500, 3000, 1500, 60_000, 90_000, 3_723_500, 0].map(goDuration), ['500ms', '3s', '1.5s', '1m0s', '1m30s', '1h2m3.5s', '0s']);
});
