// A request path for handlers of parsed reviews: decode on this thread, hand the ParsedReview to the handler, encode
// its AdmissionResponse. The offline commands' chains, the paths that call static webhooks (their fan-out needs the
// request on the main thread) and the listener's tests are written this way.
import type { AdmissionResponse } from '../api/admission.js';
import { encodeAdmissionReviewResponse } from './answer.js';
import { parseAdmissionReview } from './decode.js';
import type { ParsedReview } from './decode.js';
import type { Answer, AnswerSummary, Reviewer } from './receive.js';

export interface AdmissionContext {
  /** when the answer is due, epoch milliseconds (compare with Date.now()) */
  readonly deadline: number;
  /** aborted at the deadline, when the client goes away, or when the server is force-closed */
  readonly signal: AbortSignal;
}

export type AdmissionHandler = (review: ParsedReview, ctx: AdmissionContext) => Promise<AdmissionResponse>;

export interface TimeoutInfo {
  /** the route, e.g. "/validate" */
  readonly endpoint: string;
  /** the time the request was given (its ?timeout=, capped) */
  readonly timeoutMs: number;
}

/** Answers a request whose handler missed the deadline. Must be synchronous and cheap. */
export type TimeoutHandler = (review: ParsedReview, info: TimeoutInfo) => AdmissionResponse;

/** The listener's own answer at a missed deadline: a denial with reason Timeout (fail closed, as kube's default failurePolicy Fail). */
export function timeoutResponse(timeoutMs: number): AdmissionResponse {
  return { allowed: false, status: { code: 504, reason: 'Timeout', message: `static-admissiond did not finish admission within the ${timeoutMs}ms deadline` } };
}

/** The log fields of an answer made elsewhere (a worker's), from the request's and the answer's bytes: -v=4 only. */
export function summaryOfBytes(body: Buffer, answer: Uint8Array): AnswerSummary {
  const request = (JSON.parse(body.toString('utf8')) as { request?: Partial<ParsedReview['request']> }).request ?? {};
  const response = (JSON.parse(Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength).toString('utf8')) as { response?: AdmissionResponse }).response;
  return {
    uid: request.uid ?? '', operation: request.operation ?? '', resource: request.resource?.resource ?? '',
    namespace: request.namespace ?? '', name: request.name ?? '', allowed: response?.allowed === true,
  };
}

/** The 200 answer carrying `response` to `review`. */
export function answerTo(review: Pick<ParsedReview, 'apiVersion' | 'request'>, response: AdmissionResponse): Answer {
  return {
    status: 200,
    body: encodeAdmissionReviewResponse(review, response),
    summary: () => ({
      uid: review.request.uid, operation: review.request.operation, resource: review.request.resource.resource,
      namespace: review.request.namespace ?? '', name: review.request.name ?? '', allowed: response.allowed === true,
    }),
  };
}

/** `handler` as a request path; `onTimeout` answers a missed deadline (default: timeoutResponse). */
export function parsedReviewer(handler: AdmissionHandler, onTimeout?: TimeoutHandler): Reviewer {
  return (delivery) => {
    const review = parseAdmissionReview(delivery.body);
    return {
      answer: handler(review, delivery).then((response) => answerTo(review, response)),
      expire: () => answerTo(review, onTimeout
        ? onTimeout(review, { endpoint: delivery.endpoint, timeoutMs: delivery.timeoutMs })
        : timeoutResponse(delivery.timeoutMs)),
    };
  };
}
