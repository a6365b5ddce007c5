// What the main thread and the shadow worker (workers/shadow-worker.ts) tell each other on the worker's port. Both
// directions are batched: the requests answered in one turn of the main thread's event loop travel as one packed
// buffer, and the worker sends what it decided as one report of counts every reportIntervalMs; how many requests
// it has finished is a shared counter the main thread reads when it needs it (the in-flight bound). So the main
// thread's share of a request is a copy and a fraction of a message (bench/shadow.ts).
import type { LoadedManifests } from '../manifest/load.js';
import type { Comparison } from './decisions.js';
import type { AnswerChange, ShadowEndpoint } from './evaluate.js';

export type SetSide = 'enforced' | 'shadow';
export type PolicyPlugin = 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';

export const shadowEndpoints: readonly ShadowEndpoint[] = ['validate', 'mutate'];

export interface ShadowWorkerData {
  /** --authorization-kubeconfig ('' when unset): the worker's own SubjectAccessReview client reads it */
  readonly authorizationKubeconfig: string;
  /** requests whose answer would change described per second at most; the rest only counted (`suppressed`) */
  readonly differencesPerSecond: number;
  /** Int32 per endpoint (shadowEndpoints order): requests finished, wrapping; the main thread counts those sent */
  readonly finished: SharedArrayBuffer;
  /** how often the worker reports what it decided, ms */
  readonly reportIntervalMs: number;
}

/** Main → worker: a snapshot of one side's plugin, compiled there once (replacing that slot). */
export interface SnapshotMessage {
  readonly type: 'snapshot';
  readonly side: SetSide;
  readonly plugin: PolicyPlugin;
  readonly hash: string;
  readonly manifests: LoadedManifests;
}

/** Main → worker: answered requests, packed by packRequests. */
export interface RequestsMessage {
  readonly type: 'requests';
  readonly packed: Uint8Array;
}

export type ToWorker = SnapshotMessage | RequestsMessage;

/** Worker → main: a snapshot compiled (or not: the main thread compiled the same manifests, so this is unexpected). */
export interface CompiledMessage {
  readonly type: 'compiled';
  readonly side: SetSide;
  readonly plugin: PolicyPlugin;
  readonly hash: string;
  readonly error?: string;
}

/** A request whose answer the candidate would change, as the main thread logs it. */
export interface Difference {
  readonly endpoint: ShadowEndpoint;
  readonly uid: string;
  readonly operation: string;
  readonly resource: string;
  readonly subResource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
  /** the answer that went out */
  readonly answered: 'allowed' | 'denied';
  /** what of it the candidate would change */
  readonly changes: readonly AnswerChange[];
  /** the bindings whose decisions differ */
  readonly comparisons: readonly Comparison[];
  readonly patchDiffers: boolean;
  /** the candidate's policies' own answer: its Status message when it denies, its warnings */
  readonly shadowMessage: string;
  readonly shadowWarnings: readonly string[];
}

/** Worker → main: what was decided since the last report. Arrays indexed like shadowEndpoints. */
export interface ReportMessage {
  readonly type: 'report';
  readonly failed: readonly number[];
  readonly compared: readonly number[];
  readonly patchDiffers: readonly number[];
  /** [plugin, policy, binding, enforced, shadow, count] */
  readonly decisions: ReadonlyArray<readonly [string, string, string, string, string, number]>;
  readonly differences: readonly Difference[];
  /** requests whose answer would change, not described (over differencesPerSecond) */
  readonly suppressed: number;
  /** the first failure's message, for the log */
  readonly error?: string;
}

export type FromWorker = CompiledMessage | ReportMessage;

export interface AnsweredRequest {
  readonly endpoint: ShadowEndpoint;
  readonly body: Uint8Array;
  readonly answer: Uint8Array;
}

/** [u8 endpoint index][u32 body length][u32 answer length][body][answer], repeated: one buffer, one transfer. */
export function packRequests(requests: readonly AnsweredRequest[]): Uint8Array {
  let size = 0;
  for (const r of requests) size += 9 + r.body.byteLength + r.answer.byteLength;
  const packed = new Uint8Array(size);
  const view = new DataView(packed.buffer);
  let at = 0;
  for (const r of requests) {
    view.setUint8(at, shadowEndpoints.indexOf(r.endpoint));
    view.setUint32(at + 1, r.body.byteLength);
    view.setUint32(at + 5, r.answer.byteLength);
    packed.set(r.body, at + 9);
    packed.set(r.answer, at + 9 + r.body.byteLength);
    at += 9 + r.body.byteLength + r.answer.byteLength;
  }
  return packed;
}

/** The requests of a packed buffer, as views into it. */
export function unpackRequests(packed: Uint8Array): AnsweredRequest[] {
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const out: AnsweredRequest[] = [];
  for (let at = 0; at + 9 <= packed.byteLength;) {
    const endpoint = shadowEndpoints[view.getUint8(at)] ?? 'validate';
    const bodyLength = view.getUint32(at + 1);
    const answerLength = view.getUint32(at + 5);
    const body = packed.subarray(at + 9, at + 9 + bodyLength);
    out.push({ endpoint, body, answer: packed.subarray(at + 9 + bodyLength, at + 9 + bodyLength + answerLength) });
    at += 9 + bodyLength + answerLength;
  }
  return out;
}
