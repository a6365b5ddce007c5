// decode → match → evaluate → answer for one request, on the calling thread: the main thread runs it inline (a lone
// request, --workers 0, a snapshot the workers are still compiling), a policy worker runs the very same code for the
// requests handed to it. Only the MutatingAdmissionPolicy and ValidatingAdmissionPolicy plugins run here; an
// endpoint with static webhooks configured goes through the parsed handlers (validate-handler.ts,
// mutate-handler.ts), whose fan-out needs the request on the main thread.
import type { AdmissionRequest } from '../api/admission.js';
import { sameKind } from '../admission/conversion/index.js';
import { mutateRequest } from '../admission/mutate.js';
import { createMutatingPolicyPlugin } from '../admission/mutating/plugin.js';
import type { MutatingPlugin } from '../admission/mutation.js';
import { finishValidation, startValidation } from '../admission/validate.js';
import type { PendingValidation, ValidateOutcome } from '../admission/validate.js';
import { evaluatePlan, evaluatePlanAuthorized, failedEvaluations, planUsesAuthorizer } from '../admission/validating/dispatcher.js';
import type { PolicyHook } from '../manifest/compile.js';
import type { MutatingPolicyMetrics } from '../metrics/mutating-policy.js';
import type { PolicyMetrics } from '../metrics/policy.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import { encodeStatus, ReviewError } from './answer.js';
import { parseAdmissionReview } from './decode.js';
import type { ParsedReview } from './decode.js';
import { answerTo, timeoutResponse } from './parsed.js';
import type { Answer, Review } from './receive.js';

/** What one thread evaluates with: its SubjectAccessReview client and where its observations go. */
export interface ThreadContext {
  /** answers `authorizer` checks (none: each check is an evaluation error) */
  readonly authorization?: SubjectAccessReviewClient | undefined;
  readonly validatingMetrics?: PolicyMetrics | undefined;
  readonly mutatingMetrics?: MutatingPolicyMetrics | undefined;
  /** called with each decoded request before evaluation (a worker's test hooks) */
  readonly onRequest?: ((request: AdmissionRequest) => void) | undefined;
  /**
   * Checks are recorded only before the request's deadline (a worker: past it, the main thread answered by the
   * failure policy and counted that answer). Default: always.
   */
  readonly onlyBeforeDeadline?: boolean;
}

/** Whether the checks of a request due at `deadline` are recorded now. */
function recording(thread: ThreadContext, deadline: number): boolean {
  return thread.onlyBeforeDeadline !== true || deadline <= 0 || Date.now() < deadline;
}

/** The part of a Delivery evaluation reads. */
export interface EvaluationInput {
  readonly body: Buffer;
  readonly deadline: number;
  readonly timeoutMs: number;
  /** read only by the mutating chain, whose CEL runs under it (absent on a worker) */
  readonly signal?: AbortSignal;
}

/** A malformed review's answer: its 400 (or other) Status. */
export function faultAnswer(err: ReviewError): Answer {
  return { status: err.status, body: encodeStatus(err.status, err.reason, err.message), fault: { reason: err.reason, message: err.message } };
}

/** The review decoded, or the answer to a malformed one. */
function decode(body: Buffer): ParsedReview | Answer {
  try {
    return parseAdmissionReview(body);
  } catch (err) {
    if (err instanceof ReviewError) return faultAnswer(err);
    throw err;
  }
}

const decided = (answer: Answer): Review => ({ answer, expire: () => answer });

function validated(review: ParsedReview, outcome: ValidateOutcome, thread: ThreadContext, deadline = 0): Answer {
  if (recording(thread, deadline)) thread.validatingMetrics?.recordChecks(outcome.checks);
  return answerTo(review, outcome.response);
}

/**
 * The ValidatingAdmissionPolicy plugin for one request. Synchronous unless a policy uses `authorizer`; then, at the
 * deadline, the policies still waiting are answered by their failure policy.
 */
export function validateOnThisThread(input: EvaluationInput, hooks: readonly PolicyHook[], thread: ThreadContext): Review {
  const review = decode(input.body);
  if (!('request' in review)) return decided(review);
  thread.onRequest?.(review.request);
  const start = startValidation({ request: review.request, policies: hooks });
  if ('done' in start) return decided(validated(review, start.done, thread, input.deadline));
  const pending = start.pending;
  const { plan, request } = pending;
  if (!planUsesAuthorizer(plan)) {
    // parsed here for this request alone: object and oldObject become CEL values in place, unless a policy is
    // invoked with another kind (matchPolicy Equivalent), whose conversion reads them as JSON
    const own = request.kind;
    let ownsObjects = true;
    if (own !== undefined) for (let e = 0; e < plan.evaluate.length; e++) if (!sameKind(plan.policies[plan.evaluate[e]!]!.target!.kind, own)) ownsObjects = false;
    return decided(validated(review, finishValidation(pending, evaluatePlan(plan, request, { ownsObjects })), thread, input.deadline));
  }
  let expired = false;
  const answer = evaluatePlanAuthorized(plan, request, { client: thread.authorization, deadline: input.deadline })
    .then((evaluations) => {
      const outcome = finishValidation(pending, evaluations);
      return expired ? answerTo(review, outcome.response) : validated(review, outcome, thread, input.deadline);
    });
  return {
    answer,
    expire: () => {
      expired = true;
      return validationFailure(review, pending, `policy evaluation did not finish within the ${input.timeoutMs}ms request deadline`, thread);
    },
  };
}

function validationFailure(review: ParsedReview, pending: PendingValidation, message: string, thread: ThreadContext): Answer {
  return validated(review, finishValidation(pending, failedEvaluations(pending.plan, message)), thread);
}

/**
 * The answer when the policies could not be evaluated (a worker failed, the deadline passed): the request decoded
 * and matched here, every policy that needed an evaluation failing with `message` under its failure policy.
 */
export function validationFailedAnswer(body: Buffer, hooks: readonly PolicyHook[], message: string, thread: ThreadContext): Answer {
  const review = decode(body);
  if (!('request' in review)) return review;
  const start = startValidation({ request: review.request, policies: hooks });
  if ('done' in start) return validated(review, start.done, thread);
  return validationFailure(review, start.pending, message, thread);
}

const mutatingPlugins = new WeakMap<readonly PolicyHook[], WeakMap<ThreadContext, MutatingPlugin>>();

/** One plugin per snapshot and thread context: its hooks are fixed, so nothing is built per request. */
function mutatingPlugin(hooks: readonly PolicyHook[], thread: ThreadContext): MutatingPlugin {
  let byThread = mutatingPlugins.get(hooks);
  if (byThread === undefined) mutatingPlugins.set(hooks, (byThread = new WeakMap()));
  let plugin = byThread.get(thread);
  if (plugin === undefined) {
    const metrics = thread.mutatingMetrics;
    plugin = createMutatingPolicyPlugin({
      hooks: () => hooks,
      ...(metrics === undefined ? {} : { onChecks: (checks, ctx) => { if (recording(thread, ctx.deadline)) metrics.recordChecks(checks); } }),
      ...(thread.authorization === undefined ? {} : { authorization: thread.authorization }),
    });
    byThread.set(thread, plugin);
  }
  return plugin;
}

/** The MutatingAdmissionPolicy plugin for one request, with reinvocation; a missed deadline fails closed. */
export function mutateOnThisThread(input: EvaluationInput, hooks: readonly PolicyHook[], thread: ThreadContext): Review {
  const review = decode(input.body);
  if (!('request' in review)) return decided(review);
  thread.onRequest?.(review.request);
  const ctx = { deadline: input.deadline, signal: input.signal ?? neverAborted };
  return {
    answer: mutateRequest(review.request, [mutatingPlugin(hooks, thread)], ctx).then((outcome) => answerTo(review, outcome.response)),
    expire: () => mutationTimeoutAnswer(review, input.timeoutMs),
  };
}

/** The signal of a request evaluated on a worker: nothing aborts it there (the watchdog bounds the evaluation). */
const neverAborted = new AbortController().signal;

/** A /mutate request that missed its deadline: fail closed, as the listener does (a half-mutated object is never answered). */
function mutationTimeoutAnswer(review: ParsedReview, timeoutMs: number): Answer {
  return answerTo(review, timeoutResponse(timeoutMs));
}

/** /mutate when the mutations could not be evaluated (a worker failed): denied with an internal error, fail closed. */
export function mutationFailedAnswer(body: Buffer, message: string): Answer {
  const review = decode(body);
  if (!('request' in review)) return review;
  return answerTo(review, { allowed: false, status: { metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 } });
}

/** /mutate past its deadline with its evaluation elsewhere. */
export function mutationExpiredAnswer(body: Buffer, timeoutMs: number): Answer {
  const review = decode(body);
  if (!('request' in review)) return review;
  return mutationTimeoutAnswer(review, timeoutMs);
}
