// What can go wrong calling a webhook, and the Status kube-apiserver answers for each outcome, worded as upstream:
//   S/util/webhook/error.go                       ErrCallingWebhook (`failed calling webhook %q: %v`), ErrWebhookRejection
//   S/admission/plugin/webhook/errors/statuserror.go  ToStatusErr (`admission webhook %q denied the request: …`),
//                                                 NewDryRunUnsupportedErr
//   apimachinery api/errors                       NewInternalError, NewTimeoutError, NewBadRequest, NewServiceUnavailable
// A failure kind is this daemon's own label for logs and tests; the Status and message are upstream's.
import type { Status } from '../api/admission.js';

/** Every way a call can fail before the webhook's answer is accepted. */
export type FailureKind =
  | 'connection_refused' // nothing listens at the URL
  | 'connection_error' // another network failure (reset, DNS, …)
  | 'tls' // the handshake failed: unknown CA, wrong host name, expired, client certificate refused
  | 'timeout' // timeoutSeconds (or the request's own deadline) passed before the answer was complete
  | 'http_status' // an HTTP status outside 200–206
  | 'malformed' // not a decodable AdmissionReview
  | 'invalid_response' // decodable, but upstream's VerifyAdmissionResponse refuses it (absent response, wrong kind)
  | 'wrong_uid' // response.uid is not the uid sent
  | 'forbidden_patch' // a validating webhook returned a patch, or a mutating one a malformed / unsupported patch
  | 'client_config' // no client could be built (kubeconfig credentials)
  | 'canceled'; // the call was cancelled because the request was already decided

/** upstream's ErrCallingWebhook: the webhook could not be talked to, as opposed to it rejecting the request */
export class CallingWebhookError extends Error {
  readonly webhookName: string;
  readonly kind: FailureKind;
  /** the error text after `failed calling webhook "<name>": ` */
  readonly reason: string;
  /** the Status the error carries (its code is the metrics `code` / `rejection_code`) */
  readonly status: Status;
  constructor(webhookName: string, kind: FailureKind, reason: string, status: Status) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = 'CallingWebhookError';
    this.webhookName = webhookName;
    this.kind = kind;
    this.reason = reason;
    this.status = status;
  }
}

/** upstream's ErrWebhookRejection: the webhook answered and said no */
export class WebhookRejection extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? '');
    this.name = 'WebhookRejection';
    this.status = status;
  }
}

/** Any other error with a Status of its own (upstream's plain *StatusError from a dispatcher): counted as
 * apiserver_internal_error and always denies, whatever the failure policy. */
export class AdmissionStatusError extends Error {
  readonly status: Status;
  constructor(status: Status) {
    super(status.message ?? '');
    this.name = 'AdmissionStatusError';
    this.status = status;
  }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): Status {
  const status: Status = { metadata: {}, status: 'Failure', message, reason };
  if (details) status.details = details;
  status.code = code;
  return status;
}

/** apierrors.NewInternalError(err) */
export function internalError(message: string): Status {
  return failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** apierrors.NewServiceUnavailable(reason) */
export function serviceUnavailable(message: string): Status {
  return failure(503, 'ServiceUnavailable', message);
}

/** apierrors.NewBadRequest(reason) */
export function badRequest(message: string): Status {
  return failure(400, 'BadRequest', message);
}

/** apierrors.NewTimeoutError("request did not complete within requested timeout", 0) */
export function requestTimeoutError(): Status {
  return failure(504, 'Timeout', 'Timeout: request did not complete within requested timeout', {});
}

/** NewDryRunUnsupportedErr */
export function dryRunUnsupported(webhookName: string): AdmissionStatusError {
  return new AdmissionStatusError(badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`));
}

/** ToStatusErr: the webhook's own Status, sanitised, its message prefixed with who denied. */
export function toStatusErr(webhookName: string, result: Status | null | undefined): Status {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const status: Status = result ? structuredClone(result) : { status: 'Failure' };
  // never a < 400 code, nor a "Success" status, with a rejection
  if (status.code === undefined || status.code < 400) status.code = 400;
  if (!status.status || status.status === 'Success') status.status = 'Failure';
  if (status.message) status.message = `${deniedBy}: ${status.message}`;
  else if (status.reason) status.message = `${deniedBy}: ${status.reason}`;
  else status.message = `${deniedBy} without explanation`;
  return status;
}

/** The Status a failed call denies with under failurePolicy Fail: apierrors.NewInternalError(callErr). */
export function failClosedStatus(err: CallingWebhookError): Status {
  return internalError(err.message);
}
