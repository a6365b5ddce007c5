// The thread-boundary encoding (proto/admission.proto, loaded once per thread with protobufjs reflection): one
// PolicyTask per request from the main thread to a policy worker, one PolicyResults back. Both directions produce a
// Uint8Array spanning exactly its own ArrayBuffer: posting a view copies the whole ArrayBuffer behind it, so a view
// into a pooled slab (Buffer.allocUnsafe, protobufjs' small-buffer pool) would copy the slab.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { GroupVersionKind, GroupVersionResource } from '../../api/admission.js';
import type { MatchedTarget } from '../activation.js';
import type { PolicyEvaluation } from '../validating/dispatcher.js';
import type { AuditAnnotationResult, PolicyDecision } from '../validating/validator.js';

/** proto/admission.proto, found upwards from this file (dist/lib/admission/pool or lib/admission/pool). */
export const protoFile: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'proto', 'admission.proto');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('proto/admission.proto not found above ' + dirname(fileURLToPath(import.meta.url)));
    dir = parent;
  }
})();

const root = protobuf.loadSync(protoFile);
const PolicyTaskType = root.lookupType('staticadmissiond.v1.PolicyTask');
const PolicyBatchResultsType = root.lookupType('staticadmissiond.v1.PolicyBatchResults');

export interface PolicyTaskMatch extends MatchedTarget {
  /** index into the snapshot's policy hooks */
  readonly hook: number;
}

export interface PolicyTask {
  readonly snapshotHash: string;
  /** the AdmissionReview body as received */
  readonly review: Uint8Array;
  /** epoch milliseconds */
  readonly deadline: number;
  readonly matches: readonly PolicyTaskMatch[];
}

/** `buf` if it spans its whole (non-shared) ArrayBuffer, else an exact-size copy. */
export function ownBuffer(buf: Uint8Array): Uint8Array {
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength && !(buf.buffer instanceof SharedArrayBuffer)) return buf;
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return copy;
}

const sameTarget = (a: MatchedTarget, b: MatchedTarget): boolean =>
  a.subResource === b.subResource &&
  a.kind.group === b.kind.group && a.kind.version === b.kind.version && a.kind.kind === b.kind.kind &&
  a.resource.group === b.resource.group && a.resource.version === b.resource.version && a.resource.resource === b.resource.resource;

export function encodeTask(task: PolicyTask): Uint8Array {
  // distinct invocation targets, encoded once (nearly always one)
  const invocations: MatchedTarget[] = [];
  const hookInvocations = task.matches.map((m) => {
    let i = invocations.findIndex((t) => t === m || sameTarget(t, m));
    if (i < 0) i = invocations.push({ kind: m.kind, resource: m.resource, subResource: m.subResource }) - 1;
    return i;
  });
  return ownBuffer(PolicyTaskType.encode({
    snapshotHash: task.snapshotHash,
    review: task.review,
    deadline: task.deadline,
    hooks: task.matches.map((m) => m.hook),
    hookInvocations,
    invocations,
  }).finish());
}

interface WireInvocation {
  kind: GroupVersionKind | null;
  resource: GroupVersionResource | null;
  subResource: string;
}

const gvk = (k: GroupVersionKind | null): GroupVersionKind => ({ group: k?.group ?? '', version: k?.version ?? '', kind: k?.kind ?? '' });
const gvr = (r: GroupVersionResource | null): GroupVersionResource => ({ group: r?.group ?? '', version: r?.version ?? '', resource: r?.resource ?? '' });

export function decodeTask(buf: Uint8Array): PolicyTask {
  const m = PolicyTaskType.decode(buf) as unknown as {
    snapshotHash: string; review: Uint8Array; deadline: number; hooks: number[]; hookInvocations: number[]; invocations: WireInvocation[];
  };
  const targets: MatchedTarget[] = m.invocations.map((x) => ({ kind: gvk(x.kind), resource: gvr(x.resource), subResource: x.subResource }));
  return {
    snapshotHash: m.snapshotHash,
    review: m.review,
    deadline: m.deadline,
    matches: m.hooks.map((hook, i) => {
      const target = targets[m.hookInvocations[i] ?? -1];
      if (target === undefined) throw new Error(`malformed policy task: policy #${hook} has no invocation`);
      return { hook, ...target };
    }),
  };
}

const actionCode = { admit: 0, deny: 1 } as const;
const actionName = ['admit', 'deny'] as const;
const evaluationCode = { admit: 0, deny: 1, error: 2 } as const;
const evaluationName = ['admit', 'deny', 'error'] as const;
const annotationCode = { publish: 0, exclude: 1, error: 2 } as const;

interface WireDecision { action: number; evaluation: number; message: string; reason: string; index: number }
interface WireAnnotation { action: number; key: string; value: string; error: string }
interface WireResult { seconds: number; decisions: WireDecision[]; auditAnnotations: WireAnnotation[] }
interface WireResults { results: WireResult[]; error: string }

/** A worker's outcome for one request: its evaluations, or why there are none. */
export type TaskOutcome = { readonly evaluations: readonly PolicyEvaluation[] } | { readonly error: string };

function wireResults(outcome: TaskOutcome): WireResults {
  if ('error' in outcome) return { results: [], error: outcome.error };
  return {
    error: '',
    results: outcome.evaluations.map((e) => ({
      seconds: e.seconds,
      // A validation that admitted without error is left out: applying a binding's actions ignores those, so an
      // allowed request's answer is a few bytes per policy.
      decisions: e.value.decisions
        .filter((d) => d.action !== 'admit' || d.evaluation === 'error')
        .map((d) => ({ action: actionCode[d.action], evaluation: evaluationCode[d.evaluation], message: d.message, reason: d.reason ?? '', index: d.index })),
      auditAnnotations: e.value.auditAnnotations.map((a) => ({
        action: annotationCode[a.action], key: a.key, value: a.action === 'publish' ? a.value : '', error: a.action === 'error' ? a.error : '',
      })),
    })),
  };
}

function outcomeOf(r: WireResults): TaskOutcome {
  if (r.error !== '') return { error: r.error };
  return {
    evaluations: r.results.map((x) => ({
      seconds: x.seconds,
      value: {
        decisions: x.decisions.map((d): PolicyDecision => {
          const decision = { action: actionName[d.action] ?? 'deny', evaluation: evaluationName[d.evaluation] ?? 'error', message: d.message, index: d.index };
          return d.reason === '' ? decision : { ...decision, reason: d.reason };
        }),
        auditAnnotations: x.auditAnnotations.map((a): AuditAnnotationResult => {
          if (a.action === annotationCode.publish) return { action: 'publish', key: a.key, value: a.value };
          if (a.action === annotationCode.exclude) return { action: 'exclude', key: a.key };
          return { action: 'error', key: a.key, error: a.error };
        }),
      },
    })),
  };
}

/** Encodes a worker's outcomes for a batch of tasks, in task order. */
export function encodeBatchResults(outcomes: readonly TaskOutcome[]): Uint8Array {
  return ownBuffer(PolicyBatchResultsType.encode({ tasks: outcomes.map(wireResults) }).finish());
}

export function decodeBatchResults(buf: Uint8Array): TaskOutcome[] {
  const m = PolicyBatchResultsType.decode(buf) as unknown as { tasks: WireResults[] };
  return m.tasks.map(outcomeOf);
}
