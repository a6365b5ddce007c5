// The replay pipeline's ordering and flow control: results come in input order even when one shard answers later
// than another, and a slow consumer (a full stdout pipe) holds reading back without losing or reordering anything.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '../../lib/log/logger.js';
import { loadReplayChain } from '../../lib/replay/chains.js';
import { runReplay } from '../../lib/replay/run.js';
import { ReplayShard } from '../../lib/replay/shard.js';
import type { EventResult } from '../../lib/replay/shard.js';
import { tempDir } from '../helpers/fs.js';
import { auditEvent, configMapPolicy, jsonLines, policySet } from './helpers.js';

const tmp = tempDir('sad-replay-run-');
let config = '';
let logFile = '';
const count = 300;

before(() => {
  config = policySet(tmp.dir, 'set', configMapPolicy('p', '  - expression: "true"\n'));
  const events = [];
  for (let i = 0; i < count; i++) {
    const name = `c${i % 25}`;
    events.push(auditEvent({ auditID: `e${i}`, verb: 'create', requestURI: '/api/v1/namespaces/x/configmaps', objectRef: { resource: 'configmaps', namespace: 'x', name, apiVersion: 'v1' }, code: 201,
      requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'x' } } }));
  }
  logFile = join(tmp.dir, 'audit.log');
  writeFileSync(logFile, jsonLines(events));
});
after(() => tmp.cleanup());

const spec = (): Parameters<typeof loadReplayChain>[0] => ({ configFile: config, featureGates: '', skipWebhooks: true, authorizationKubeconfig: '' });

test('a slow consumer: every result, in input order, on the reading thread and on worker threads', async () => {
  const chain = loadReplayChain(spec(), createLogger({ write: () => {} }));
  try {
    for (const workers of [0, 2]) {
      const seen: string[] = [];
      const totals = await runReplay({
        files: [logFile],
        workers,
        ...(workers === 0 ? { inline: new ReplayShard({ candidate: chain, maxObjects: 10 }) } : { workerData: { candidate: spec(), maxObjects: 10, seed: [] } }),
        batchSize: 4,
        maxInFlight: 1,
        onResult: async (r: EventResult) => {
          assert.ok(!('skip' in r));
          seen.push(r.auditID);
          if (seen.length % 16 === 0) await delay(1);
        },
      });
      assert.equal(totals.read, count);
      assert.deepEqual(seen, Array.from({ length: count }, (_, i) => `e${i}`), `workers ${workers}`);
    }
  } finally {
    await chain.close();
  }
});

test('an aborted replay stops reading and delivers what it had handed out', async () => {
  const chain = loadReplayChain(spec(), createLogger({ write: () => {} }));
  try {
    const controller = new AbortController();
    let delivered = 0;
    const totals = await runReplay({
      files: [logFile],
      workers: 0,
      inline: new ReplayShard({ candidate: chain, maxObjects: 10 }),
      batchSize: 4,
      signal: controller.signal,
      onResult: () => {
        if (++delivered === 10) controller.abort();
      },
    });
    assert.equal(totals.interrupted, true);
    assert.ok(totals.read < count, `read ${totals.read}`);
    assert.ok(delivered >= 10 && delivered <= totals.read);
  } finally {
    await chain.close();
  }
});
