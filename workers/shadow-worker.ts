// The shadow worker (lib/shadow): one thread beside the policy pool that decides each answered request again with
// the enforced policies and with the candidate's, and reports where their bindings' decisions differ. It holds one
// compiled snapshot per side and plugin, replaced as the main thread sends reloaded ones; nothing here ever reaches
// an answer.
import { parentPort, workerData } from 'node:worker_threads';
import type { AdmissionRequest, AdmissionResponse } from '../lib/api/admission.js';
import { compileManifests } from '../lib/manifest/compile.js';
import type { PolicyHook } from '../lib/manifest/compile.js';
import { compareSets } from '../lib/shadow/evaluate.js';
import type { PolicySet } from '../lib/shadow/evaluate.js';
import type { FromWorker, RequestMessage, RequestSummary, SetSide, ShadowWorkerData, ToWorker } from '../lib/shadow/protocol.js';
import { SubjectAccessReviewClient } from '../lib/webhook/subject-access-review.js';

const data = workerData as ShadowWorkerData;
const port = parentPort!;
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

function summary(request: AdmissionRequest, answer: AdmissionResponse, shadow: AdmissionResponse): RequestSummary {
  return {
    uid: request.uid ?? '',
    operation: text(request.operation),
    resource: text(request.resource?.resource),
    subResource: text(request.subResource),
    namespace: text(request.namespace),
    name: text(request.name),
    user: text(request.userInfo?.username),
    answered: answer.allowed === true ? 'allowed' : 'denied',
    shadowMessage: shadow.allowed ? '' : text(shadow.status?.message),
    shadowWarnings: shadow.warnings ?? [],
  };
}

async function decide(m: RequestMessage): Promise<FromWorker> {
  const empty: RequestSummary = { uid: '', operation: '', resource: '', subResource: '', namespace: '', name: '', user: '', answered: 'allowed', shadowMessage: '', shadowWarnings: [] };
  try {
    // Both were checked by the listener before it answered 200: only the fields are read here.
    const request = (JSON.parse(Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength).toString('utf8')) as { request: AdmissionRequest }).request;
    const answer = (JSON.parse(Buffer.from(m.answer.buffer, m.answer.byteOffset, m.answer.byteLength).toString('utf8')) as { response?: AdmissionResponse }).response ?? { allowed: false };
    const enforced: PolicySet = sets.enforced;
    const shadow: PolicySet = sets.shadow;
    const result = await compareSets(m.endpoint, request, enforced, shadow, authorization === undefined ? {} : { authorization });
    return { type: 'result', id: m.id, endpoint: m.endpoint, comparisons: result.comparisons, patchDiffers: result.patchDiffers, request: summary(request, answer, result.shadow) };
  } catch (err) {
    return { type: 'result', id: m.id, endpoint: m.endpoint, comparisons: [], patchDiffers: false, request: empty, error: err instanceof Error ? err.message : String(err) };
  }
}

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
  void decide(m).then(post);
});
