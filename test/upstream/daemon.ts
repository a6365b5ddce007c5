// The daemon's side of each differential comparison, in-process, through the very code its commands run: loads as
// `validate` loads (lib/reload/pipeline.ts loadSnapshotSync), decisions through the admission chain `serve`,
// `review` and `test` share (lib/review/chain.ts createAdmissionChain), and the mutated object as the apiserver makes
// it from the daemon's JSONPatch (lib/admission/mutate.ts patchedObject). Answers take the oracle's shapes
// (oracle.ts), so compare.ts can set them side by side.
import type { AdmissionRequest, AdmissionResponse } from '../../lib/api/admission.js';
import { patchedObject } from '../../lib/admission/mutate.js';
import { createAdmissionChain } from '../../lib/review/chain.js';
import { ManifestError } from '../../lib/manifest/errors.js';
import { pluginKinds } from '../../lib/manifest/plugins.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import type { Snapshot } from '../../lib/reload/snapshot.js';
import { parseAdmissionReview } from '../../lib/review/decode.js';
import type { LoadAnswer, MutateAnswer, ValidateAnswer } from './oracle.js';

/** The longest time kube-apiserver gives a webhook call, as `review` allows. */
const deadlineMs = 30_000;

export function daemonLoad(plugin: PluginName, dir: string): LoadAnswer {
  try {
    const snapshot = loadSnapshotSync(plugin, dir);
    return { ok: true, hash: snapshot.hash, counts: { ...snapshot.counts }, names: namesOf(plugin, snapshot) };
  } catch (err) {
    if (err instanceof ManifestError) return { ok: false, error: err.message };
    throw err;
  }
}

function namesOf(plugin: PluginName, snapshot: Snapshot): Record<string, string[]> {
  // by the kind the plugin loaded them as (list items carry no kind of their own)
  const kinds = pluginKinds[plugin];
  const names = (objects: ReadonlyArray<{ metadata?: { name?: string } }>): string[] => objects.map((o) => o.metadata?.name ?? '');
  const m = snapshot.manifests;
  const out: Record<string, string[]> = {};
  if (m.family === 'webhook') out[kinds.primary] = names(m.configurations);
  else {
    out[kinds.primary] = names(m.policies);
    out[kinds.binding!] = names(m.bindings);
  }
  return out;
}

/** Snapshots by plugin and directory: generated cases send many requests against one directory. */
export class DaemonSide {
  readonly #snapshots = new Map<string, Snapshot | ManifestError>();

  snapshot(plugin: PluginName, dir: string): Snapshot {
    const key = `${plugin}\0${dir}`;
    let s = this.#snapshots.get(key);
    if (s === undefined) {
      try {
        s = loadSnapshotSync(plugin, dir);
      } catch (err) {
        if (!(err instanceof ManifestError)) throw err;
        s = err;
      }
      this.#snapshots.set(key, s);
    }
    if (s instanceof ManifestError) throw s;
    return s;
  }

  /** The ValidatingAdmissionPolicy plugin's answer to `review` (POST /validate without webhooks). */
  async validate(dir: string, review: unknown): Promise<ValidateAnswer> {
    const snapshot = this.snapshot('ValidatingAdmissionPolicy', dir);
    const chain = createAdmissionChain({ snapshot: (p) => (p === 'ValidatingAdmissionPolicy' ? snapshot : undefined), webhooks: undefined });
    const parsed = parseAdmissionReview(Buffer.from(JSON.stringify(review)));
    return answerOf(await chain.validate.handle(parsed, context()));
  }

  /** The MutatingAdmissionPolicy plugin's answer (POST /mutate without webhooks), with the object its patch makes. */
  async mutate(dir: string, review: unknown): Promise<MutateAnswer> {
    const snapshot = this.snapshot('MutatingAdmissionPolicy', dir);
    const chain = createAdmissionChain({ snapshot: (p) => (p === 'MutatingAdmissionPolicy' ? snapshot : undefined), webhooks: undefined });
    const parsed = parseAdmissionReview(Buffer.from(JSON.stringify(review)));
    const response = await chain.mutate.handle(parsed, context());
    const answer: MutateAnswer = answerOf(response);
    if (response.allowed === true) answer.object = patchedObject(parsed.request.object ?? null, response.patch);
    return answer;
  }
}

function context(): { deadline: number; signal: AbortSignal } {
  return { deadline: Date.now() + deadlineMs, signal: new AbortController().signal };
}

function answerOf(response: AdmissionResponse): ValidateAnswer {
  const answer: ValidateAnswer = { allowed: response.allowed === true };
  if (response.status) {
    answer.status = {};
    if (response.status.code !== undefined) answer.status.code = response.status.code;
    if (response.status.reason !== undefined) answer.status.reason = response.status.reason;
    if (response.status.message !== undefined) answer.status.message = response.status.message;
  }
  if (response.warnings && response.warnings.length > 0) answer.warnings = [...response.warnings];
  if (response.auditAnnotations && Object.keys(response.auditAnnotations).length > 0) answer.auditAnnotations = { ...response.auditAnnotations };
  return answer;
}

/**
 * What upstream's namespace lister returns for the request's namespace, under the daemon's namespace rule
 * (DESIGN.md "Namespace labels"): a Namespace request is judged by the namespace itself (the stored one: oldObject,
 * else the object); any other namespaced request knows its namespace by the kubernetes.io/metadata.name label alone.
 */
export function namespaceFor(request: AdmissionRequest): unknown {
  const k = request.kind;
  if (k?.group === '' && k.version === 'v1' && k.kind === 'Namespace') return request.oldObject ?? request.object ?? null;
  const name = request.namespace ?? '';
  if (name === '') return null;
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}
