// A replay shard on its own thread (lib/replay/run.ts): loads the candidate and baseline sets once, then rebuilds
// and decides the batches of writes the reading thread routes here, answering each batch with its results.
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../lib/log/logger.js';
import { loadReplayChain } from '../lib/replay/chains.js';
import type { ReplayWorkerData, WorkerReply, WorkerRequest } from '../lib/replay/run.js';
import { RegistrationScope } from '../lib/replay/scope.js';
import { ReplayShard } from '../lib/replay/shard.js';

const data = workerData as ReplayWorkerData;
const port = parentPort!;
const logger = createLogger({ write: (line) => process.stderr.write(line + '\n'), source: 'replay' });
const reply = (m: WorkerReply): void => port.postMessage(m);

try {
  const candidate = loadReplayChain(data.candidate, logger);
  const baseline = data.baseline === undefined ? undefined : loadReplayChain(data.baseline, logger);
  const scope = data.scope === undefined ? undefined : RegistrationScope.from(data.scope, candidate.snapshots);
  const shard = new ReplayShard({ candidate, ...(baseline === undefined ? {} : { baseline }), ...(scope === undefined ? {} : { scope }), maxObjects: data.maxObjects, seed: data.seed });
  port.on('message', (m: WorkerRequest) => {
    shard.process(m.records).then(
      (results) => reply({ id: m.id, results }),
      (err: unknown) => reply({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  reply({ ready: true });
} catch (err) {
  reply({ fatal: err instanceof Error ? err.message : String(err) });
}
