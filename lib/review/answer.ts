// The answer's bytes: an AdmissionReview response in the version asked, or a metav1.Status for every other HTTP
// status, and the fault (ReviewError) that carries such a status from wherever the request path finds it.
import type { AdmissionResponse, Status } from '../api/admission.js';
import type { ParsedReview } from './decode.js';

/** A fault in the request; `status` is the HTTP status to answer with. */
export class ReviewError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.name = 'ReviewError';
    this.status = status;
    this.reason = reason;
  }
}

export const badRequest = (message: string): ReviewError => new ReviewError(400, 'BadRequest', message);

/**
 * Encodes the answer to `review`: `{"apiVersion":<as asked>,"kind":"AdmissionReview","response":{"uid":…,
 * "allowed":…,"status":…,"warnings":…,"auditAnnotations":…,"patch":…,"patchType":…}}`. `uid` is always the
 * request's; optional fields are left out when empty (as Go's omitempty does); a patch without a patchType gets
 * "JSONPatch", the only type kube accepts.
 */
export function encodeAdmissionReviewResponse(review: Pick<ParsedReview, 'apiVersion' | 'request'>, response: AdmissionResponse): Buffer {
  const out: AdmissionResponse = { uid: review.request.uid, allowed: response.allowed === true };
  if (response.status) out.status = response.status;
  if (response.warnings && response.warnings.length > 0) out.warnings = response.warnings;
  if (response.auditAnnotations && Object.keys(response.auditAnnotations).length > 0) out.auditAnnotations = response.auditAnnotations;
  const patch = response.patch;
  const patchType = response.patchType || 'JSONPatch';
  // a base64 patch (what the plugins send) is written around the envelope; anything else goes through JSON.stringify
  const written = patch !== undefined && patch !== '' && base64Text.test(patch);
  if (patch && !written) {
    out.patch = patch;
    out.patchType = patchType;
  }
  const envelope = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: out });
  return written ? withPatch(envelope, patch, patchType) : Buffer.from(envelope);
}

/** Text JSON.stringify writes as is between quotes: the base64 alphabet (no escapes, one byte a character). */
const base64Text = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The envelope `head` (ending `}}`: the response, an object, is its last key) with `"patch":…,"patchType":…` as the
 * response's last keys, written straight into the answer's bytes: the patch (most of a /mutate answer) is neither
 * scanned by JSON.stringify nor copied into a joined string first. The same bytes as JSON.stringify of the whole.
 */
function withPatch(head: string, patch: string, patchType: string): Buffer {
  const tail = `","patchType":${JSON.stringify(patchType)}}}`;
  const headLength = Buffer.byteLength(head) - 2;
  const tailLength = Buffer.byteLength(tail);
  const bytes = Buffer.allocUnsafe(headLength + patchKey.length + patch.length + tailLength);
  let at = bytes.write(head, 0, 'utf8') - 2;
  at += bytes.write(patchKey, at, 'latin1');
  at += bytes.write(patch, at, 'latin1');
  bytes.write(tail, at, 'utf8');
  return bytes;
}

const patchKey = ',"patch":"';

/** A metav1.Status body for answers other than 200; kube-apiserver shows its message when a webhook call fails. */
export function encodeStatus(code: number, reason: string, message: string): Buffer {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  return Buffer.from(JSON.stringify(status));
}

