// The thread-boundary encoding of whole requests: one buffer per batch each way, no protobuf. The main thread writes
// a batch's review tasks into one buffer of its own when the batch goes (one allocation and one transfer per batch,
// not per request); the worker answers the batch with one buffer, which the main thread reads as views (the answer
// bytes it writes are not copied again, and nothing is decoded field by field).
//
// A review task, little-endian (the tasks of a batch follow one another):
//   0  u8   format (1)
//   1  u8   endpoint: 0 /validate, 1 /mutate
//   2  u16  snapshot hash length in bytes (H)
//   4  u32  body length (B)
//   8  f64  deadline, epoch milliseconds
//  16  H    snapshot hash, UTF-8
//  16+H B   the body as received
//
// An answer, little-endian (the answers of a batch follow one another, in the tasks' order):
//   0  u32  HTTP status: 200 (an AdmissionReview) or 400 (a malformed review's metav1.Status); 0: the worker could
//           not answer, the bytes are the error (the main thread answers by the failure policy)
//   4  u32  bytes length (N): the answer's body as written, or the error's message (UTF-8)
//   8  u32  reason length (R), UTF-8: a non-200 answer's Status reason, for the listener's log
//  12  u32  message length (M), UTF-8: its Status message
//  16  N, R, M bytes

const taskFormat = 1;
const taskHeaderBytes = 16;
const answerHeaderBytes = 16;
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

function hashBytes(hash: string): Buffer {
  if (hash !== lastHash) {
    lastHashBytes = Buffer.from(hash, 'utf8');
    lastHash = hash;
  }
  return lastHashBytes;
}

/** The endpoint's code in a task; throws for an endpoint that has none (checked when a request is handed over). */
export function endpointCode(endpoint: string): number {
  const code = endpoints.indexOf(endpoint as (typeof endpoints)[number]);
  if (code < 0) throw new Error(`no review task for endpoint ${JSON.stringify(endpoint)}`);
  return code;
}

/** The batch's buffer: a Uint8Array spanning exactly its own ArrayBuffer, ready for a transfer list. */
export function encodeReviewTasks(tasks: readonly ReviewTask[]): Uint8Array {
  let size = 0;
  for (const task of tasks) size += taskHeaderBytes + hashBytes(task.snapshotHash).length + task.body.byteLength;
  // allocUnsafeSlow: an ArrayBuffer of its own, never a slice of Buffer's shared pool (that would be transferred whole)
  const buf = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const task of tasks) {
    const hash = hashBytes(task.snapshotHash);
    buf[at] = taskFormat;
    buf[at + 1] = endpointCode(task.endpoint);
    buf.writeUInt16LE(hash.length, at + 2);
    buf.writeUInt32LE(task.body.byteLength, at + 4);
    buf.writeDoubleLE(task.deadline, at + 8);
    hash.copy(buf, at + taskHeaderBytes);
    at += taskHeaderBytes + hash.length;
    buf.set(task.body, at);
    at += task.body.byteLength;
  }
  return buf;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The last snapshot hash decoded: every task of a batch, and every batch until a reload, names the same one. */
let lastDecoded = '';
let lastDecodedBytes: Buffer = Buffer.alloc(0);

function decodeHash(b: Buffer, start: number, end: number): string {
  if (end - start === lastDecodedBytes.length && lastDecodedBytes.compare(b, start, end) === 0) return lastDecoded;
  lastDecoded = b.toString('utf8', start, end);
  lastDecodedBytes = Buffer.from(lastDecoded, 'utf8');
  return lastDecoded;
}

/** The tasks of a batch; each body is a view into `buf`. */
export function decodeReviewTasks(buf: Uint8Array): ReviewTask[] {
  const b = asBuffer(buf);
  const tasks: ReviewTask[] = [];
  let at = 0;
  while (at < b.length) {
    if (b.length - at < taskHeaderBytes || b[at] !== taskFormat) throw new Error(`not a review task of format ${taskFormat}`);
    const endpoint = endpoints[b[at + 1]!];
    const hashLength = b.readUInt16LE(at + 2);
    const bodyLength = b.readUInt32LE(at + 4);
    const bodyAt = at + taskHeaderBytes + hashLength;
    if (endpoint === undefined || bodyAt + bodyLength > b.length) throw new Error('review task header does not match its length');
    tasks.push({ endpoint, deadline: b.readDoubleLE(at + 8), snapshotHash: decodeHash(b, at + taskHeaderBytes, bodyAt), body: b.subarray(bodyAt, bodyAt + bodyLength) });
    at = bodyAt + bodyLength;
  }
  return tasks;
}

/** One buffer answering a batch, in its tasks' order. */
export function encodeReviewAnswers(answers: readonly WorkerAnswer[]): Uint8Array {
  let size = 0;
  for (const a of answers) {
    size += answerHeaderBytes + ('error' in a ? Buffer.byteLength(a.error) : a.body.byteLength + Buffer.byteLength(a.reason) + Buffer.byteLength(a.message));
  }
  const buf = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const a of answers) {
    let end = at + answerHeaderBytes;
    let reasonLength = 0;
    let messageLength = 0;
    if ('error' in a) {
      buf.writeUInt32LE(0, at);
      end += buf.write(a.error, end, 'utf8');
    } else {
      buf.writeUInt32LE(a.status, at);
      buf.set(a.body, end);
      end += a.body.byteLength;
      reasonLength = a.reason === '' ? 0 : buf.write(a.reason, end, 'utf8');
      end += reasonLength;
      messageLength = a.message === '' ? 0 : buf.write(a.message, end, 'utf8');
      end += messageLength;
    }
    buf.writeUInt32LE(end - at - answerHeaderBytes - reasonLength - messageLength, at + 4);
    buf.writeUInt32LE(reasonLength, at + 8);
    buf.writeUInt32LE(messageLength, at + 12);
    at = end;
  }
  return buf;
}

/** The answers of a batch; each body is a view into `buf`. */
export function decodeReviewAnswers(buf: Uint8Array): WorkerAnswer[] {
  const b = asBuffer(buf);
  const answers: WorkerAnswer[] = [];
  let at = 0;
  while (at < b.length) {
    if (b.length - at < answerHeaderBytes) throw new Error('review answer header truncated');
    const status = b.readUInt32LE(at);
    const bytesAt = at + answerHeaderBytes;
    const reasonAt = bytesAt + b.readUInt32LE(at + 4);
    const messageAt = reasonAt + b.readUInt32LE(at + 8);
    const end = messageAt + b.readUInt32LE(at + 12);
    if (end > b.length) throw new Error('review answer header does not match its length');
    if (status === 0) answers.push({ error: b.toString('utf8', bytesAt, reasonAt) });
    else {
      answers.push({
        status,
        body: b.subarray(bytesAt, reasonAt),
        reason: reasonAt === messageAt ? '' : b.toString('utf8', reasonAt, messageAt),
        message: messageAt === end ? '' : b.toString('utf8', messageAt, end),
      });
    }
    at = end;
  }
  return answers;
}
