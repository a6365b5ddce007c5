// Piscina task file of bench/hop.ts: the policy worker's task with the hand-off variants the benchmark compares.
// Task: an array of PolicyTask buffers (as the policy pool sends), or [offset, length] of one in a SharedArrayBuffer.
// workerData: { snapshot: SnapshotData, sab: SharedArrayBuffer | undefined, work: 'noop' | 'real', output: 'proto-transfer' | 'proto-copy' | 'clone' }
import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import type { AdmissionRequest } from '../lib/api/admission.js';
import { decodeTask, encodeBatchResults } from '../lib/admission/pool/codec.js';
import type { SnapshotData } from '../lib/admission/pool/protocol.js';
import { EvaluationRequest, evaluatePlannedPolicy } from '../lib/admission/validating/dispatcher.js';
import type { PolicyEvaluation } from '../lib/admission/validating/dispatcher.js';
import { compiledPolicy } from '../lib/admission/validating/validator.js';
import { compileManifests } from '../lib/manifest/compile.js';

const data = workerData as { snapshot: SnapshotData; sab?: SharedArrayBuffer; work: 'noop' | 'real'; output: 'proto-transfer' | 'proto-copy' | 'clone' };
const compiled = compileManifests(data.snapshot.plugin, data.snapshot.manifests);
const policies = compiled.family === 'policy' ? compiled.hooks.map((h) => compiledPolicy(h)) : [];
const admitted: PolicyEvaluation = { seconds: 0, value: { decisions: [], auditAnnotations: [] } };

export default function hop(tasks: Uint8Array[] | [number, number]): unknown {
  const buffers = Array.isArray(tasks) && typeof tasks[0] === 'number'
    ? [new Uint8Array(data.sab!, tasks[0], tasks[1] as number)]
    : (tasks as Uint8Array[]);
  const all = buffers.map((buf) => {
    const t = decodeTask(buf);
    if (data.work === 'noop') return t.matches.map(() => admitted);
    const review = JSON.parse(Buffer.from(t.review.buffer, t.review.byteOffset, t.review.byteLength).toString('utf8')) as { request: AdmissionRequest };
    const request = new EvaluationRequest(review.request);
    return t.matches.map((m) => evaluatePlannedPolicy(policies[m.hook]!, request, m));
  });
  if (data.output === 'clone') {
    // what the proto carries, as plain objects: admitted validations left out
    return all.map((evaluations) => evaluations.map((e) => ({
      seconds: e.seconds,
      value: { decisions: e.value.decisions.filter((d) => d.action !== 'admit' || d.evaluation === 'error'), auditAnnotations: e.value.auditAnnotations },
    })));
  }
  const out = encodeBatchResults(all.map((evaluations) => ({ evaluations })));
  return data.output === 'proto-transfer' ? move(out) : out;
}
