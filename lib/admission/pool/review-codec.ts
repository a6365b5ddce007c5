// The thread-boundary encoding of whole requests (proto/admission.proto ReviewTask / ReviewAnswers): one ReviewTask
// buffer per request, made on the main thread and transferred to a worker; one ReviewAnswers buffer back per batch.
import protobuf from 'protobufjs';
import { ownBuffer, protoFile } from './codec.js';

const root = protobuf.loadSync(protoFile);
const ReviewTaskType = root.lookupType('staticadmissiond.v1.ReviewTask');
const ReviewAnswersType = root.lookupType('staticadmissiond.v1.ReviewAnswers');

export interface ReviewTask {
  /** "/validate" or "/mutate" */
  readonly endpoint: string;
  readonly body: Uint8Array;
  /** epoch milliseconds */
  readonly deadline: number;
  readonly snapshotHash: string;
}

/** A worker's answer to one request: the bytes to write, or why there are none. */
export type WorkerAnswer =
  | { readonly status: number; readonly body: Uint8Array; readonly reason: string; readonly message: string }
  | { readonly error: string };

/** The task's buffer: a Uint8Array spanning exactly its own ArrayBuffer, ready for a transfer list. */
export function encodeReviewTask(task: ReviewTask): Uint8Array {
  return ownBuffer(ReviewTaskType.encode(task).finish());
}

export function decodeReviewTask(buf: Uint8Array): ReviewTask {
  const m = ReviewTaskType.decode(buf) as unknown as ReviewTask;
  return { endpoint: m.endpoint, body: m.body, deadline: m.deadline, snapshotHash: m.snapshotHash };
}

export function encodeReviewAnswers(answers: readonly WorkerAnswer[]): Uint8Array {
  return ownBuffer(ReviewAnswersType.encode({
    answers: answers.map((a) => ('error' in a ? { error: a.error } : a)),
  }).finish());
}

export function decodeReviewAnswers(buf: Uint8Array): WorkerAnswer[] {
  const m = ReviewAnswersType.decode(buf) as unknown as { answers: Array<{ status: number; body: Uint8Array; reason: string; message: string; error: string }> };
  return m.answers.map((a) => (a.error !== '' ? { error: a.error } : { status: a.status, body: a.body, reason: a.reason, message: a.message }));
}
