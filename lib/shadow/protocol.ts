// What the main thread and the shadow worker (workers/shadow-worker.ts) tell each other on the worker's port.
import type { LoadedManifests } from '../manifest/load.js';
import type { Comparison } from './decisions.js';
import type { ShadowEndpoint } from './evaluate.js';

export type SetSide = 'enforced' | 'shadow';
export type PolicyPlugin = 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';

export interface ShadowWorkerData {
  /** --authorization-kubeconfig ('' when unset): the worker's own SubjectAccessReview client reads it */
  readonly authorizationKubeconfig: string;
}

/** Main → worker: a snapshot of one side's plugin, compiled there once (replacing that slot). */
export interface SnapshotMessage {
  readonly type: 'snapshot';
  readonly side: SetSide;
  readonly plugin: PolicyPlugin;
  readonly hash: string;
  readonly manifests: LoadedManifests;
}

/** Main → worker: one answered request: its body as received and the answer as sent (both copied, transferred). */
export interface RequestMessage {
  readonly type: 'request';
  readonly id: number;
  readonly endpoint: ShadowEndpoint;
  readonly body: Uint8Array;
  readonly answer: Uint8Array;
}

export type ToWorker = SnapshotMessage | RequestMessage;

/** Worker → main: a snapshot compiled (or not: the main thread compiled the same manifests, so this is unexpected). */
export interface CompiledMessage {
  readonly type: 'compiled';
  readonly side: SetSide;
  readonly plugin: PolicyPlugin;
  readonly hash: string;
  readonly error?: string;
}

/** What the main thread logs about a request whose sets disagree. */
export interface RequestSummary {
  readonly uid: string;
  readonly operation: string;
  readonly resource: string;
  readonly subResource: string;
  readonly namespace: string;
  readonly name: string;
  readonly user: string;
  /** the answer that went out */
  readonly answered: 'allowed' | 'denied';
  /** the candidate's policies' own answer: its Status message when it denies */
  readonly shadowMessage: string;
  readonly shadowWarnings: readonly string[];
}

/** Worker → main: one request decided by both sets. */
export interface ResultMessage {
  readonly type: 'result';
  readonly id: number;
  readonly endpoint: ShadowEndpoint;
  readonly comparisons: readonly Comparison[];
  readonly patchDiffers: boolean;
  readonly request: RequestSummary;
  /** the evaluation failed (a body that does not parse, a bug): nothing compared */
  readonly error?: string;
}

export type FromWorker = CompiledMessage | ResultMessage;
