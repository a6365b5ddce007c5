// POST /mutate for parsed reviews (the `review` and `test` commands, and the daemon while static mutating webhooks
// are configured): the /mutate chain (lib/admission/mutate.ts) on this thread — the MutatingAdmissionPolicy plugin's
// CEL runs under the request deadline and signal, so a runaway expression ends as an evaluation error under the
// policy's failurePolicy rather than holding the answer. Without webhooks the daemon takes dispatch.ts's path.
//
// The request/context shapes are restated structurally (parsed.ts has the listener's).
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import { mutateRequest } from '../admission/mutate.js';
import type { MutatingPlugin } from '../admission/mutation.js';

export interface MutateReviewInput {
  readonly request: AdmissionRequest;
}

export interface MutateRequestContext {
  readonly deadline: number;
  readonly signal: AbortSignal;
}

export interface MutateHandler {
  handle(review: MutateReviewInput, ctx: MutateRequestContext): Promise<AdmissionResponse>;
  /** the answer when a request misses its deadline (the admission listener's onTimeout for /mutate) */
  onTimeout(review: MutateReviewInput, info: { readonly timeoutMs: number }): AdmissionResponse;
}

/** `plugins` in chain order: MutatingAdmissionPolicy, then MutatingAdmissionWebhook when configured. */
export function createMutateHandler(plugins: readonly MutatingPlugin[]): MutateHandler {
  return {
    async handle(review, ctx) {
      return (await mutateRequest(review.request, plugins, ctx)).response;
    },
    onTimeout(_review, info) {
      // fail closed, as the listener does by default: a half-mutated object is never answered
      return { allowed: false, status: { code: 504, reason: 'Timeout', message: `static-admissiond did not finish admission within the ${info.timeoutMs}ms deadline` } };
    },
  };
}
