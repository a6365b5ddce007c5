// The file Piscina loads in each policy worker is CommonJS, so Piscina's require() of it never loads an ES module.
// On Node 20.19+ require() of an ES module (require(esm)) in a worker thread that is terminated while it loads aborts
// the whole process (ModuleWrap::CreateRequiredModuleFacade's assertion): workers/policy-worker-entry.cts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { workerFile } from '../../../lib/admission/pool/pool.js';

test('the policy worker entry loads with require() where require(esm) is off, and hands Piscina both handlers', () => {
  // With require(esm) off an ES module entry throws ERR_REQUIRE_ESM here; the entry's import of the worker module
  // runs outside a worker thread, so its outcome is only observed, not required.
  const script = `
    const entry = require(${JSON.stringify(workerFile)});
    const handlers = ['default', 'review'].map((name) => [name, entry[name]]);
    for (const [, h] of handlers) Promise.resolve(h).catch(() => {});
    console.log(JSON.stringify({ esModule: entry.__esModule, thenables: handlers.filter(([, h]) => typeof h?.then === 'function').map(([n]) => n) }));
  `;
  const out = execFileSync(process.execPath, ['--no-experimental-require-module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { esModule: true, thenables: ['default', 'review'] });
});
