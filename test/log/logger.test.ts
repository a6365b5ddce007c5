import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../lib/log/logger.js';

const at = new Date(Date.UTC(2026, 10, 21, 18, 5, 7, 123));

test('klog text lines: header, quoted message, key="value" pairs, err', () => {
  const lines: string[] = [];
  const log = createLogger({ write: (l) => lines.push(l), now: () => at, source: 'reload' });
  log.info('reloaded manifest config', { plugin: 'ValidatingAdmissionPolicy', count: 2 });
  log.error(new Error('boom'), 'reloading manifest config', { dir: '/d' });
  log.v(2).info('hidden');
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^I1121 18:05:07\.123000 +\d+ reload\] "reloaded manifest config" plugin="ValidatingAdmissionPolicy" count=2$/);
  assert.match(lines[1]!, /^E1121 18:05:07\.123000 +\d+ reload\] "reloading manifest config" err="boom" dir="\/d"$/);
});

test('JSON lines carry ts (seconds), v, msg and err', () => {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', verbosity: 2, write: (l) => lines.push(l), now: () => at });
  log.v(2).info('debug detail', { a: 1 });
  log.error('bad', 'failed');
  const [info, error] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual({ ...info, caller: undefined }, { ts: at.getTime() / 1000, caller: undefined, v: 2, msg: 'debug detail', a: 1 });
  assert.equal(error!.err, 'bad');
  assert.equal(error!.v, undefined);
});
