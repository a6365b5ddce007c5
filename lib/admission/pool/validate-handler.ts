// POST /validate as the daemon serves it (the hot path): match on the main thread against the current snapshot;
// answer at once when nothing needs evaluating; otherwise one task to the policy pool (or, without a pool, evaluate
// here), then apply the bindings' actions and answer. The timeout answer applies the failure policy of the
// policies still being evaluated.
//
// The request/context shapes are the admission listener's (lib/server), restated structurally so that this layer
// does not import the one above it.
import type { AdmissionRequest, AdmissionResponse } from '../../api/admission.js';
import type { Snapshot } from '../../reload/snapshot.js';
import type { PolicyMetrics } from '../../metrics/policy.js';
import { finishValidation, startValidation } from '../validate.js';
import type { PendingValidation } from '../validate.js';
import { evaluatePlan, failedEvaluations } from '../validating/dispatcher.js';
import type { PolicyPool } from './pool.js';

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
  readonly manifestGateEnabled: boolean;
  readonly policyMetrics?: PolicyMetrics;
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

  return {
    async handle(review, ctx) {
      const snapshot = options.snapshot();
      const hooks = snapshot?.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
      const start = startValidation({ request: review.request, policies: hooks, manifestGateEnabled: options.manifestGateEnabled });
      if ('done' in start) {
        policyMetrics?.recordChecks(start.done.checks);
        return start.done.response;
      }
      const pending = start.pending;
      if (pool === undefined) {
        const outcome = finishValidation(pending, evaluatePlan(pending.plan, pending.request));
        policyMetrics?.recordChecks(outcome.checks);
        return outcome.response;
      }
      pendingByReview.set(review, pending);
      let result;
      try {
        result = await pool.evaluate(pending, snapshot!.hash, review.body, ctx);
      } finally {
        pendingByReview.delete(review);
      }
      const outcome = finishValidation(pending, result.evaluations);
      if (!answered.has(review) && !result.abandoned) policyMetrics?.recordChecks(outcome.checks);
      return outcome.response;
    },

    onTimeout(review, info) {
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
