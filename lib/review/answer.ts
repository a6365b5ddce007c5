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
  if (response.patch) {
    out.patch = response.patch;
    out.patchType = response.patchType || 'JSONPatch';
  }
  return Buffer.from(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: out }));
}

/** A metav1.Status body for answers other than 200; kube-apiserver shows its message when a webhook call fails. */
export function encodeStatus(code: number, reason: string, message: string): Buffer {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  return Buffer.from(JSON.stringify(status));
}

