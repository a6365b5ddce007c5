// POST /validate for parsed reviews (the `review` and `test` commands, and the daemon while static validating
// webhooks are configured: their fan-out runs on the main thread): match on this thread against the current
// snapshot; answer at once when nothing needs evaluating; otherwise one task with the matched policies to the policy
// pool (or, without a pool or while the workers are still compiling a reloaded snapshot, evaluate here), then apply
// the bindings' actions; once the policies allowed, the static validating webhooks are called (lib/webhook, in
// parallel). The timeout answer applies the failure policy of the policies still being evaluated, or of the webhook
// calls still running. Without webhooks the daemon takes the thinner path of dispatch.ts.
//
// The request/context shapes are restated structurally (parsed.ts has the listener's).
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import type { Snapshot } from '../reload/snapshot.js';
import type { PolicyMetrics } from '../metrics/policy.js';
import type { StaticWebhook } from '../manifest/compile.js';
import { isVerdict } from '../admission/webhooks/validating.js';
import type { PendingWebhooks, ValidatingWebhookDispatcher } from '../admission/webhooks/validating.js';
import { finishValidation, startValidation, withWebhookVerdict } from '../admission/validate.js';
import type { PendingValidation } from '../admission/validate.js';
import { evaluatePlan, evaluatePlanAuthorized, failedEvaluations, planUsesAuthorizer } from '../admission/validating/dispatcher.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import type { PolicyPool } from '../admission/pool/pool.js';

export interface ReviewInput {
  readonly request: AdmissionRequest;
  /** the AdmissionReview body as received: what the worker task carries */
  readonly body: Uint8Array;
}

export interface RequestContext {
  readonly deadline: number;
  readonly signal: AbortSignal;
}

export interface ValidateHandlerOptions {
  /** the ValidatingAdmissionPolicy snapshot to match against (read per request) */
  readonly snapshot: () => Snapshot | undefined;
  /** the pool evaluating policies; undefined: evaluate on the main thread (--workers 0, and the benchmark baseline) */
  readonly pool: PolicyPool | undefined;
  readonly policyMetrics?: PolicyMetrics;
  /** answers `authorizer` checks evaluated on this thread (the workers make their own from the same kubeconfig) */
  readonly authorization?: SubjectAccessReviewClient;
  /** the ValidatingAdmissionWebhook plugin: its snapshot's webhooks (read per request) and the dispatcher calling them */
  readonly webhooks?: {
    readonly hooks: () => readonly StaticWebhook[];
    readonly dispatcher: ValidatingWebhookDispatcher;
  };
}

export interface ValidateHandler {
  handle(review: ReviewInput, ctx: RequestContext): Promise<AdmissionResponse>;
  /** the answer when a request misses its deadline (the admission listener's onTimeout) */
  onTimeout(review: ReviewInput, info: { readonly timeoutMs: number }): AdmissionResponse;
}

export function createValidateHandler(options: ValidateHandlerOptions): ValidateHandler {
  const { pool, policyMetrics } = options;
  /** requests whose evaluation is in the pool right now */
  const pendingByReview = new WeakMap<ReviewInput, PendingValidation>();
  /** requests answered by onTimeout: their late result is dropped, metrics included */
  const answered = new WeakSet<ReviewInput>();
  /** requests whose webhook calls are running, with the policies' answer */
  const webhooksByReview = new WeakMap<ReviewInput, { readonly response: AdmissionResponse; readonly pending: PendingWebhooks }>();

  /** the ValidatingAdmissionWebhook plugin after the policies: only when they allowed */
  const withWebhooks = async (review: ReviewInput, response: AdmissionResponse, ctx: RequestContext): Promise<AdmissionResponse> => {
    const webhooks = options.webhooks;
    if (webhooks === undefined || response.allowed !== true) return response;
    const hooks = webhooks.hooks();
    if (hooks.length === 0) return response;
    const dispatch = webhooks.dispatcher.dispatch(hooks, review.request, ctx);
    if (isVerdict(dispatch)) return withWebhookVerdict(response, dispatch);
    webhooksByReview.set(review, { response, pending: dispatch });
    try {
      return withWebhookVerdict(response, await dispatch.done);
    } finally {
      webhooksByReview.delete(review);
    }
  };

  return {
    async handle(review, ctx) {
      const snapshot = options.snapshot();
      const hooks = snapshot?.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
      const start = startValidation({ request: review.request, policies: hooks });
      if ('done' in start) {
        policyMetrics?.recordChecks(start.done.checks);
        return withWebhooks(review, start.done.response, ctx);
      }
      const pending = start.pending;
      // A snapshot the workers are still compiling (just reloaded) is evaluated here rather than waited for.
      if (pool === undefined || !pool.hasCompiled(snapshot!.hash)) {
        const evaluations = planUsesAuthorizer(pending.plan)
          ? await evaluatePlanAuthorized(pending.plan, pending.request, { client: options.authorization, deadline: ctx.deadline, signal: ctx.signal })
          : evaluatePlan(pending.plan, pending.request);
        const outcome = finishValidation(pending, evaluations);
        policyMetrics?.recordChecks(outcome.checks);
        return withWebhooks(review, outcome.response, ctx);
      }
      pendingByReview.set(review, pending);
      let result;
      try {
        // The request's AbortSignal is not handed over (making one costs several µs a request): a deadline is
        // answered by onTimeout, which also has overrunning workers replaced (pool.recordTimeout), and an answer
        // for a client that went away is simply not written.
        result = await pool.evaluate(pending, snapshot!.hash, review.body, { deadline: ctx.deadline });
      } finally {
        pendingByReview.delete(review);
      }
      const outcome = finishValidation(pending, result.evaluations);
      if (!answered.has(review) && !result.abandoned) policyMetrics?.recordChecks(outcome.checks);
      if (answered.has(review) || result.abandoned) return outcome.response;
      return withWebhooks(review, outcome.response, ctx);
    },

    onTimeout(review, info) {
      const calling = webhooksByReview.get(review);
      if (calling !== undefined) {
        answered.add(review);
        return withWebhookVerdict(calling.response, calling.pending.expire());
      }
      const pending = pendingByReview.get(review);
      if (pending === undefined || pool === undefined) {
        // the admission listener's own default
        return { allowed: false, status: { code: 504, reason: 'Timeout', message: `static-admissiond did not finish admission within the ${info.timeoutMs}ms deadline` } };
      }
      answered.add(review);
      pool.recordTimeout();
      const outcome = finishValidation(pending, failedEvaluations(pending.plan, `policy evaluation did not finish within the ${info.timeoutMs}ms request deadline`));
      policyMetrics?.recordChecks(outcome.checks);
      return outcome.response;
    },
  };
}
