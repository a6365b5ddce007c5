// The shadow worker (lib/shadow): one thread beside the policy pool that decides each answered request again with
// the enforced policies and with the candidate's, and reports every reportIntervalMs how each binding decided on
// both sides and which requests differ; each finished request also counts in the shared `finished` table. It holds
// one compiled snapshot per side and plugin, replaced as the main thread sends reloaded ones; nothing here ever
// reaches an answer.
import { parentPort, workerData } from 'node:worker_threads';
import type { AdmissionRequest, AdmissionResponse } from '../lib/api/admission.js';
import { compileManifests } from '../lib/manifest/compile.js';
import type { PolicyHook } from '../lib/manifest/compile.js';
import { compareSets } from '../lib/shadow/evaluate.js';
import { shadowEndpoints, unpackRequests } from '../lib/shadow/protocol.js';
import type { AnsweredRequest, Difference, FromWorker, SetSide, ShadowWorkerData, ToWorker } from '../lib/shadow/protocol.js';
import { SubjectAccessReviewClient } from '../lib/webhook/subject-access-review.js';

const data = workerData as ShadowWorkerData;
const port = parentPort!;
const finished = new Int32Array(data.finished);
const sets: Record<SetSide, { validating: readonly PolicyHook[]; mutating: readonly PolicyHook[] }> = {
  enforced: { validating: [], mutating: [] },
  shadow: { validating: [], mutating: [] },
};

let authorization: SubjectAccessReviewClient | undefined;
try {
  authorization = data.authorizationKubeconfig === '' ? undefined : SubjectAccessReviewClient.fromKubeconfig(data.authorizationKubeconfig);
} catch {
  // the main thread read the same kubeconfig at start; checks are then evaluation errors on both sides alike
  authorization = undefined;
}

const post = (message: FromWorker): void => port.postMessage(message);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const parse = <T>(bytes: Uint8Array): T => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;

/** the one-second window of described differences */
let windowStart = 0;
let described = 0;

function mayDescribe(): boolean {
  const now = Date.now();
  if (now - windowStart >= 1_000) {
    windowStart = now;
    described = 0;
  }
  return described++ < data.differencesPerSecond;
}

interface Pending {
  failed: number[];
  compared: number[];
  patchDiffers: number[];
  differences: Difference[];
  suppressed: number;
  error?: string;
}

const zero = (): number[] => shadowEndpoints.map(() => 0);
const nothing = (): Pending => ({ failed: zero(), compared: zero(), patchDiffers: zero(), differences: [], suppressed: 0 });
let pending = nothing();
/** plugin, policy, binding, enforced, shadow → count since the last report */
const decisions = new Map<string, [string, string, string, string, string, number]>();
let reportTimer: NodeJS.Timeout | undefined;

function report(): void {
  reportTimer = undefined;
  post({ type: 'report', ...pending, decisions: [...decisions.values()] });
  pending = nothing();
  decisions.clear();
}

async function decide(r: AnsweredRequest): Promise<void> {
  const e = shadowEndpoints.indexOf(r.endpoint);
  try {
    // Both were checked by the listener before it answered 200: only the fields are read here.
    const request = parse<{ request: AdmissionRequest }>(r.body).request;
    const result = await compareSets(r.endpoint, request, sets.enforced, sets.shadow, authorization === undefined ? {} : { authorization });
    pending.compared[e]!++;
    if (result.patchDiffers) pending.patchDiffers[e]!++;
    const plugin = r.endpoint === 'validate' ? 'ValidatingAdmissionPolicy' : 'MutatingAdmissionPolicy';
    for (const c of result.comparisons) {
      const key = `${plugin}\u0000${c.policy}\u0000${c.binding}\u0000${c.enforced}\u0000${c.shadow}`;
      const row = decisions.get(key);
      if (row === undefined) decisions.set(key, [plugin, c.policy, c.binding, c.enforced, c.shadow, 1]);
      else row[5]++;
    }
    // every difference is counted above; only those that would change the answer are described (rate-limited)
    if (result.answerChanges.length === 0) return;
    const differing = result.comparisons.filter((c) => c.enforced !== c.shadow);
    if (!mayDescribe()) {
      pending.suppressed++;
      return;
    }
    const answer = parse<{ response?: AdmissionResponse }>(r.answer).response;
    pending.differences.push({
      endpoint: r.endpoint,
      uid: request.uid ?? '',
      operation: text(request.operation),
      resource: text(request.resource?.resource),
      subResource: text(request.subResource),
      namespace: text(request.namespace),
      name: text(request.name),
      user: text(request.userInfo?.username),
      answered: answer?.allowed === true ? 'allowed' : 'denied',
      changes: result.answerChanges,
      comparisons: differing,
      patchDiffers: result.patchDiffers,
      shadowMessage: result.shadow.allowed ? '' : text(result.shadow.status?.message),
      shadowWarnings: result.shadow.warnings ?? [],
    });
  } catch (err) {
    pending.failed[e]!++;
    pending.error ??= err instanceof Error ? err.message : String(err);
  } finally {
    Atomics.add(finished, e, 1);
    reportTimer ??= setTimeout(report, data.reportIntervalMs);
  }
}

/** one request at a time, in order: requests waiting on SubjectAccessReviews do not pile up evaluations */
let queue = Promise.resolve();

port.on('message', (m: ToWorker) => {
  if (m.type === 'snapshot') {
    try {
      const compiled = compileManifests(m.plugin, m.manifests);
      const hooks = compiled.family === 'policy' ? compiled.hooks : [];
      if (m.plugin === 'ValidatingAdmissionPolicy') sets[m.side].validating = hooks;
      else sets[m.side].mutating = hooks;
      post({ type: 'compiled', side: m.side, plugin: m.plugin, hash: m.hash });
    } catch (err) {
      post({ type: 'compiled', side: m.side, plugin: m.plugin, hash: m.hash, error: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  const requests = unpackRequests(m.packed);
  queue = queue.then(async () => {
    for (const r of requests) await decide(r);
  });
});
