// The hostile-input bench (bench/hostile.ts), scaled down to 150 cases: the real daemon, over real TLS, gets
// every kind of malformed request and misbehaving client the bench sends (bad JSON, wrong types, deep nesting, bodies
// up to the limit and over it, gzip bombs, wrong content types, bad framing, hang-ups, stalled and trickled clients),
// and answers each with the refusal it owes, with a message, never a 5xx, never exiting. Behaviour only: the memory
// figures the bench prints are for `npm run bench:hostile`, not for a test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './helpers.js';

test('150 hostile requests: every one refused as it should be, no 5xx, no crash', async () => {
  const child = spawn(process.execPath, [join(root, 'dist/bench/hostile.js'), '--requests', '150', '--connections', '8', '--slow-connections', '2', '--quiet'], { cwd: root });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.match(out, /^crashes: 0, 5xx: 0, wrong or missing refusals: 0$/m, `${out}\n${err}`);
  assert.match(out, /^150 cases /m);
  for (const kind of ['bad JSON', 'wrong types', 'deep nesting', 'wrong content type', 'bad HTTP framing', 'hang-up mid-body']) assert.match(out, new RegExp(`^${kind} +\\d+ `, 'm'), kind);
  assert.equal(code, 0, `${out}\n${err}`);
});
