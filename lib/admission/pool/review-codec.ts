// The thread-boundary encoding of whole requests: one task buffer per request, made on the main thread and
// transferred to a worker; one ReviewAnswers buffer back per batch (proto/admission.proto, protobufjs).
//
// The task is a fixed header and the body's bytes, not a protobuf message: the main thread's only per-request work
// is writing four fields and one copy of the body into a buffer of its own (protobufjs' writer cost ~3 µs per
// request there, bench/profile.ts). Layout, little-endian:
//   0  u8   format (1)
//   1  u8   endpoint: 0 /validate, 1 /mutate
//   2  u16  snapshot hash length in bytes (H)
//   4  u32  body length (B)
//   8  f64  deadline, epoch milliseconds
//  16  H    snapshot hash, UTF-8
//  16+H B   the body as received
import protobuf from 'protobufjs';
import { ownBuffer, protoFile } from './codec.js';

const root = protobuf.loadSync(protoFile);
const ReviewAnswersType = root.lookupType('staticadmissiond.v1.ReviewAnswers');

const taskFormat = 1;
const headerBytes = 16;
const endpoints = ['/validate', '/mutate'] as const;

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

/** The last snapshot hash encoded and its bytes: it changes only with a reload. */
let lastHash = '';
let lastHashBytes: Buffer = Buffer.alloc(0);

/** The task's buffer: a Uint8Array spanning exactly its own ArrayBuffer, ready for a transfer list. */
export function encodeReviewTask(task: ReviewTask): Uint8Array {
  const endpoint = endpoints.indexOf(task.endpoint as (typeof endpoints)[number]);
  if (endpoint < 0) throw new Error(`no review task for endpoint ${JSON.stringify(task.endpoint)}`);
  if (task.snapshotHash !== lastHash) {
    lastHashBytes = Buffer.from(task.snapshotHash, 'utf8');
    lastHash = task.snapshotHash;
  }
  const hash = lastHashBytes;
  // allocUnsafeSlow: an ArrayBuffer of its own, never a slice of Buffer's shared pool (that would be transferred whole)
  const buf = Buffer.allocUnsafeSlow(headerBytes + hash.length + task.body.byteLength);
  buf[0] = taskFormat;
  buf[1] = endpoint;
  buf.writeUInt16LE(hash.length, 2);
  buf.writeUInt32LE(task.body.byteLength, 4);
  buf.writeDoubleLE(task.deadline, 8);
  hash.copy(buf, headerBytes);
  buf.set(task.body, headerBytes + hash.length);
  return buf;
}

export function decodeReviewTask(buf: Uint8Array): ReviewTask {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < headerBytes || b[0] !== taskFormat) throw new Error(`not a review task of format ${taskFormat}`);
  const endpoint = endpoints[b[1]!];
  const hashLength = b.readUInt16LE(2);
  const bodyLength = b.readUInt32LE(4);
  if (endpoint === undefined || headerBytes + hashLength + bodyLength !== b.length) throw new Error('review task header does not match its length');
  const bodyAt = headerBytes + hashLength;
  return { endpoint, deadline: b.readDoubleLE(8), snapshotHash: b.toString('utf8', headerBytes, bodyAt), body: b.subarray(bodyAt) };
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
