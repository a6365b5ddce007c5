// The /validate chain for one request: the ValidatingAdmissionPolicy plugin, then (lib/webhook, called by the
// handler once the policies allowed) the ValidatingAdmissionWebhook plugin, merged by withWebhookVerdict. One
// AdmissionResponse comes out. (KEP-5793's ".static.k8s.io" name guard is not here: kube-apiserver never sends
// admission-configuration objects to webhooks, so `registration --format api` prints it as a REST policy.)
//
// Split for the worker pool (lib/admission/pool): startValidation runs the matching on the calling
// thread and either answers at once (nothing to evaluate) or returns the plan; finishValidation turns the plan's
// evaluations — computed here or on a worker — into the answer. validateRequest does both on the calling thread.
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import type { PolicyHook } from '../manifest/compile.js';
import { webhookAnnotationKey } from './audit-keys.js';
import type { RequestAuthorizerOptions } from './authorization.js';
import { applyValidatingPolicies, evaluatePlan, evaluatePlanAuthorized, planUsesAuthorizer, planValidatingPolicies } from './validating/dispatcher.js';
import type { PolicyCheck, PolicyEvaluation, ValidatingPlan, ValidatingVerdict } from './validating/dispatcher.js';
import type { WebhookVerdict } from './webhooks/validating.js';

export interface ValidateInput {
  readonly request: AdmissionRequest;
  /** the ValidatingAdmissionPolicy snapshot's hooks (empty when the plugin is not configured) */
  readonly policies: readonly PolicyHook[];
}

export interface ValidateOutcome {
  readonly response: AdmissionResponse;
  readonly checks: readonly PolicyCheck[];
}

/** A request that still needs its policies evaluated: `plan.evaluate` is not empty. */
export interface PendingValidation {
  readonly request: AdmissionRequest;
  readonly plan: ValidatingPlan;
}

export type ValidationStart = { readonly done: ValidateOutcome } | { readonly pending: PendingValidation };

function outcome(uid: string, verdict: ValidatingVerdict): ValidateOutcome {
  const response: AdmissionResponse = { uid, allowed: verdict.allowed };
  if (verdict.status) response.status = verdict.status;
  if (verdict.warnings.length > 0) response.warnings = [...verdict.warnings];
  const keys = Object.keys(verdict.auditAnnotations);
  if (keys.length > 0) {
    response.auditAnnotations = Object.fromEntries(keys.map((k) => [webhookAnnotationKey(k), verdict.auditAnnotations[k]!]));
  }
  return { response, checks: verdict.checks };
}

/** The matching, on the calling thread: the answer when nothing needs evaluating, else the plan. */
export function startValidation(input: ValidateInput): ValidationStart {
  const plan = planValidatingPolicies(input.policies, input.request);
  if (plan.evaluate.length === 0) return { done: outcome(input.request.uid ?? '', applyValidatingPolicies(plan, input.request, [])) };
  return { pending: { request: input.request, plan } };
}

/** The answer from the plan's evaluations (one per `plan.evaluate` entry, in order). */
export function finishValidation(pending: PendingValidation, evaluations: readonly PolicyEvaluation[]): ValidateOutcome {
  const verdict = applyValidatingPolicies(pending.plan, pending.request, evaluations);
  return outcome(pending.request.uid ?? '', verdict);
}

/**
 * The answer once the ValidatingAdmissionWebhook plugin has run (only after the policies allowed): its denial
 * replaces the admission; warnings follow the policies' ones; audit annotations are added under the same key rule.
 */
export function withWebhookVerdict(response: AdmissionResponse, verdict: WebhookVerdict): AdmissionResponse {
  const merged: AdmissionResponse = { ...response, allowed: verdict.allowed };
  if (verdict.status) merged.status = verdict.status;
  if (verdict.warnings.length > 0) merged.warnings = [...(response.warnings ?? []), ...verdict.warnings];
  const keys = Object.keys(verdict.auditAnnotations);
  if (keys.length > 0) {
    const annotations = { ...response.auditAnnotations };
    for (const k of keys) annotations[webhookAnnotationKey(k)] ??= verdict.auditAnnotations[k]!;
    merged.auditAnnotations = annotations;
  }
  return merged;
}

/**
 * The whole chain on the calling thread. `authorization` answers the `authorizer` checks of the policies (none: each
 * check is an evaluation error).
 */
export async function validateRequest(input: ValidateInput, authorization?: RequestAuthorizerOptions): Promise<ValidateOutcome> {
  const start = startValidation(input);
  if ('done' in start) return start.done;
  const { plan, request } = start.pending;
  const evaluations = planUsesAuthorizer(plan) && authorization !== undefined ? await evaluatePlanAuthorized(plan, request, authorization) : evaluatePlan(plan, request);
  return finishValidation(start.pending, evaluations);
}
