// Where a request enters the request path: what the transport (lib/server) hands over once it has a request's body —
// the bytes as received and what the transport knows (endpoint, deadline) — and what it gets back: the answer's
// bytes, ready to write.
//
//   receive (this file) → decode (decode.ts) → match → evaluate (evaluate.ts: on this thread, or on a policy worker
//   through the pool, as dispatch.ts decides) → answer (answer.ts)
//
// The transport never parses a review: a malformed one comes back as a 400 answer like any other. chain.ts assembles
// the endpoints' chains (policies, then webhooks) that `serve`, `review`, `test` and `replay` share.

/** A request as the transport hands it to the request path. */
export interface Delivery {
  /** the route, e.g. "/validate" */
  readonly endpoint: string;
  /** the body as received (gunzipped when it came compressed) */
  readonly body: Buffer;
  /** when the answer is due, epoch milliseconds */
  readonly deadline: number;
  /** the time the request was given (its ?timeout=, capped) */
  readonly timeoutMs: number;
  /** aborted at the deadline, when the client goes away, or when the server is force-closed (made when first read) */
  readonly signal: AbortSignal;
}

/** What the -v=4 log line says about an answered request. */
export interface AnswerSummary {
  readonly uid: string;
  readonly operation: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly allowed: boolean;
}

/** An answer, encoded. */
export interface Answer {
  /** HTTP status: 200 with an AdmissionReview, otherwise a metav1.Status body */
  readonly status: number;
  readonly body: Uint8Array;
  /** a non-200 answer's Status reason and message, for the listener's log */
  readonly fault?: { readonly reason: string; readonly message: string };
  /** the log fields of a 200 answer, made only when the log asks */
  readonly summary?: () => AnswerSummary;
}

/** One request on its way: its answer, and the answer to give instead when the deadline comes first. */
export interface Review {
  /** a plain Answer when it was decided at once (then `expire` is never called) */
  readonly answer: Answer | Promise<Answer>;
  /** the answer at the deadline (the failure policy of what is still running); synchronous and cheap */
  expire(): Answer;
}

/** An endpoint's request path. May throw a ReviewError (answered with its status). */
export type Reviewer = (delivery: Delivery) => Review;
