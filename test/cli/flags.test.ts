import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, parseFlags, UsageError } from '../../lib/cli/flags.js';
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
