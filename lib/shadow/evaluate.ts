// One request through both policy sets, the enforced one and the candidate: the same plugins `/validate` and
// `/mutate` run (ValidatingAdmissionPolicy; MutatingAdmissionPolicy with reinvocation), each binding's decision
// compared. Webhooks are left out on both sides: calling them again per request would double their load and their
// side effects, and a candidate's webhook configuration is checked with `validate`.
//
// The enforced side is decided again here rather than taken from the answer: an AdmissionResponse says only the
// first denial, never which bindings allowed, warned or audited. Both sides run on the shadow worker, off the
// request's path. A candidate is mostly the enforced set with a change: on /validate both sides share the request's
// CEL activation, and a candidate policy identical to the enforced one of the same name, invoked as the same target,
// takes its evaluation instead of running again (bindings are applied per side, so a changed binding still shows).
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import type { PolicyHook } from '../manifest/compile.js';
import { createMutatingPolicyPlugin } from '../admission/mutating/plugin.js';
import type { MutationCheck } from '../admission/mutating/dispatcher.js';
import { mutateRequest } from '../admission/mutate.js';
import { RequestAuthorizer } from '../admission/authorization.js';
import { applyValidatingPolicies, EvaluationRequest, evaluatePlannedPolicy, evaluatePlannedPolicyAuthorized, planValidatingPolicies, sameTarget } from '../admission/validating/dispatcher.js';
import type { PlannedPolicy, PolicyEvaluation } from '../admission/validating/dispatcher.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import { compareDecisions, heldBindings, mutatingDecisions, validatingDecisions } from './decisions.js';
import type { Comparison, Decisions } from './decisions.js';

export type ShadowEndpoint = 'validate' | 'mutate';

/** One set's compiled policies: the hooks of its ValidatingAdmissionPolicy and MutatingAdmissionPolicy snapshots. */
export interface PolicySet {
  readonly validating: readonly PolicyHook[];
  readonly mutating: readonly PolicyHook[];
}

export interface SideOutcome {
  readonly decisions: Decisions;
  /** what this set's policies alone would answer */
  readonly response: AdmissionResponse;
}

export interface ShadowComparison {
  readonly comparisons: readonly Comparison[];
  readonly enforced: AdmissionResponse;
  readonly shadow: AdmissionResponse;
  /** /mutate: the two sets' policies would patch the object differently */
  readonly patchDiffers: boolean;
  /** what of the answer the candidate would change; empty when only bindings that change nothing differ */
  readonly answerChanges: readonly AnswerChange[];
}

/** A part of the AdmissionResponse the apiserver acts on. */
export type AnswerChange = 'allowed' | 'status' | 'warnings' | 'patch';

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((x, i) => x === b![i]);

/**
 * How the candidate's answer differs from the enforced one: allowed or denied, a denial's code or message, the
 * warnings, the patch. A binding that only the candidate holds and that allows changes none of them.
 */
export function answerChanges(enforced: AdmissionResponse, shadow: AdmissionResponse, patchDiffers: boolean): AnswerChange[] {
  const changes: AnswerChange[] = [];
  if (enforced.allowed !== shadow.allowed) changes.push('allowed');
  else if (!enforced.allowed && (enforced.status?.code !== shadow.status?.code || enforced.status?.message !== shadow.status?.message)) changes.push('status');
  if (!sameList(enforced.warnings, shadow.warnings)) changes.push('warnings');
  if (patchDiffers) changes.push('patch');
  return changes;
}

export interface ShadowEvaluationOptions {
  /** answers `authorizer` checks (--authorization-kubeconfig); without it a check is an evaluation error on both sides */
  readonly authorization?: SubjectAccessReviewClient;
  /** how long one side may take, SubjectAccessReviews included; default 10 s */
  readonly timeoutMs?: number;
}

const neverAborted = new AbortController().signal;

/** A policy's manifest as text: two policies alike in it evaluate alike (cached per immutable snapshot object). */
const contents = new WeakMap<object, string>();
function contentOf(hook: PolicyHook): string {
  let text = contents.get(hook.policy);
  if (text === undefined) contents.set(hook.policy, (text = JSON.stringify(hook.policy)));
  return text;
}

/** Evaluations one side made, for the other side's identical policies: name → what was evaluated, as which target. */
type Evaluated = Map<string, Array<{ readonly content: string; readonly planned: PlannedPolicy; readonly evaluation: PolicyEvaluation }>>;

async function validateWith(hooks: readonly PolicyHook[], request: AdmissionRequest, prepared: EvaluationRequest, evaluated: Evaluated, options: ShadowEvaluationOptions): Promise<SideOutcome> {
  const plan = planValidatingPolicies(hooks, request);
  let authorizer: RequestAuthorizer | undefined;
  const evaluations: PolicyEvaluation[] = [];
  for (const i of plan.evaluate) {
    const planned = plan.policies[i]!;
    const content = contentOf(hooks[planned.hook]!);
    const same = evaluated.get(planned.policy.name)?.find((e) => e.content === content && sameTarget(e.planned.target!, planned.target!));
    let evaluation = same?.evaluation;
    if (evaluation === undefined) {
      if (planned.policy.usesAuthorizer) {
        authorizer ??= new RequestAuthorizer({ client: options.authorization, deadline: Date.now() + (options.timeoutMs ?? 10_000) });
        evaluation = await evaluatePlannedPolicyAuthorized(planned.policy, prepared, planned.target!, authorizer);
      } else {
        evaluation = evaluatePlannedPolicy(planned.policy, prepared, planned.target!);
      }
      const list = evaluated.get(planned.policy.name) ?? [];
      list.push({ content, planned, evaluation });
      evaluated.set(planned.policy.name, list);
    }
    evaluations.push(evaluation);
  }
  const verdict = applyValidatingPolicies(plan, request, evaluations);
  const response: AdmissionResponse = { uid: request.uid ?? '', allowed: verdict.allowed };
  if (verdict.status) response.status = verdict.status;
  if (verdict.warnings.length > 0) response.warnings = [...verdict.warnings];
  return { decisions: validatingDecisions(plan, verdict), response };
}

async function mutateWith(hooks: readonly PolicyHook[], request: AdmissionRequest, options: ShadowEvaluationOptions): Promise<SideOutcome> {
  const checks: MutationCheck[] = [];
  const plugin = createMutatingPolicyPlugin({
    hooks: () => hooks,
    onChecks: (c) => checks.push(...c),
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
  });
  const { response } = await mutateRequest(request, [plugin], { deadline: Date.now() + (options.timeoutMs ?? 10_000), signal: neverAborted });
  const causes = response.allowed ? [] : (response.status?.details?.causes ?? []).map((c) => c.message ?? '');
  return { decisions: mutatingDecisions(hooks, checks, causes), response };
}

/** Decides `request` with both sets and compares them binding by binding. */
export async function compareSets(endpoint: ShadowEndpoint, request: AdmissionRequest, enforced: PolicySet, shadow: PolicySet, options: ShadowEvaluationOptions = {}): Promise<ShadowComparison> {
  const hooksOf = (set: PolicySet): readonly PolicyHook[] => (endpoint === 'validate' ? set.validating : set.mutating);
  let e: SideOutcome;
  let s: SideOutcome;
  if (endpoint === 'validate') {
    const prepared = new EvaluationRequest(request);
    const evaluated: Evaluated = new Map();
    e = await validateWith(enforced.validating, request, prepared, evaluated, options);
    s = await validateWith(shadow.validating, request, prepared, evaluated, options);
  } else {
    e = await mutateWith(enforced.mutating, request, options);
    s = await mutateWith(shadow.mutating, request, options);
  }
  const patchDiffers = endpoint === 'mutate' && (e.response.patch ?? '') !== (s.response.patch ?? '');
  return {
    comparisons: compareDecisions({ decisions: e.decisions, held: heldBindings(hooksOf(enforced)) }, { decisions: s.decisions, held: heldBindings(hooksOf(shadow)) }),
    enforced: e.response,
    shadow: s.response,
    patchDiffers,
    answerChanges: answerChanges(e.response, s.response, patchDiffers),
  };
}
