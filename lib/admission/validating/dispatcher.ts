// The ValidatingAdmissionPolicy plugin for one request (upstream's validating dispatcher): match every static
// policy and its bindings, evaluate, apply each binding's validationActions, and answer as the in-tree plugin would.
//
// In three steps, so that evaluation can run on another thread (lib/admission/pool) while matching and the
// answer stay on the main thread:
//   planValidatingPolicies   matching: which policies apply, which bindings, with which kind/resource (cheap)
//   evaluatePlannedPolicy    CEL: one evaluation per applying policy (shared by all its matched bindings)
//   applyValidatingPolicies  each matched binding's validationActions on that evaluation → the verdict and Status
// dispatchValidatingPolicies runs the three in a row on the calling thread.
import type { AdmissionRequest, Status } from '../../api/admission.js';
import type { ValidatingAdmissionPolicyBinding } from '../../api/types.js';
import type { PolicyHook } from '../../manifest/compile.js';
import { CelActivation } from '../../cel/index.js';
import type { AuthorizationChecker, AuthorizerBinding } from '../../cel/index.js';
import { authorizerBinding, evaluateAuthorized, RequestAuthorizer } from '../authorization.js';
import type { RequestAuthorizerOptions } from '../authorization.js';
import { isExcludedFromPolicies, MatchMemo, matchPolicyHook } from '../matching/index.js';
import type { Matched, PolicyHookDecision } from '../matching/index.js';
import { celNamespaceObject, celRequest, PolicyVariables } from '../activation.js';
import { convertObject, sameKind } from '../conversion/index.js';
import type { MatchedTarget } from '../activation.js';
import { OUT_OF_BUDGET } from '../budget.js';
import { forbiddenStatus } from '../status.js';
import { compiledPolicy, validatePolicy } from './validator.js';
import type { CompiledPolicy, PolicyDecision, PolicyScope, ValidateResult } from './validator.js';
import { setOwn } from '../../json/own.js';
import { goJsonMarshal } from '../../validation/go-format.js';

export const validationFailureKey = 'validation.policy.admission.k8s.io/validation_failure';
/** maxAuditAnnotationValueLength */
const maxAuditAnnotationValueLength = 10 * 1024;

/** One policy/binding evaluation, for apiserver_validating_admission_policy_check_* metrics. */
export interface PolicyCheck {
  readonly policy: string;
  readonly binding: string;
  /** `no_error`, `invalid_error` (evaluation error), `out_of_budget` … as upstream's error_type label */
  readonly errorType: 'no_error' | 'invalid_error' | 'out_of_budget';
  /** `allow`, `deny`, `warn`, `audit` as upstream's enforcement_action label */
  readonly enforcementAction: 'allow' | 'deny' | 'warn' | 'audit';
  readonly seconds: number;
}

export interface ValidatingVerdict {
  readonly allowed: boolean;
  /** the in-tree plugin's error on denial */
  readonly status?: Status;
  readonly warnings: readonly string[];
  /** in-tree audit annotation keys: `<policy>/<key>` and validation_failure */
  readonly auditAnnotations: Readonly<Record<string, string>>;
  readonly checks: readonly PolicyCheck[];
}

interface Denial {
  readonly policy: string;
  readonly binding: string | undefined;
  readonly message: string;
  readonly reason: string | undefined;
}

/** One policy the request reached (its constraints matched, or could not be decided). */
export interface PlannedPolicy {
  /** index of the hook in the snapshot's hooks (what crosses to a worker instead of the hook itself) */
  readonly hook: number;
  readonly policy: CompiledPolicy;
  readonly bindings: readonly ValidatingAdmissionPolicyBinding[];
  readonly decision: PolicyHookDecision;
  /** set when at least one binding matched: the policy is evaluated once, invoked with this kind/resource */
  readonly target: Matched | undefined;
}

/** What matching decided for one request; `evaluate` lists the indexes into `policies` that need an evaluation. */
export interface ValidatingPlan {
  readonly policies: readonly PlannedPolicy[];
  readonly evaluate: readonly number[];
}

/** One evaluation of a policy for a request. */
export interface PolicyEvaluation {
  readonly value: ValidateResult;
  readonly seconds: number;
}

const emptyPlan: ValidatingPlan = Object.freeze({ policies: Object.freeze([]), evaluate: Object.freeze([]) });

/** validating/errors.go ErrorType, for an error decision (the budget error is told by its message). */
function checkErrorType(d: Pick<PolicyDecision, 'evaluation' | 'message'>): PolicyCheck['errorType'] {
  if (d.evaluation !== 'error') return 'no_error';
  return d.message.startsWith(OUT_OF_BUDGET) ? 'out_of_budget' : 'invalid_error';
}

function anyBinding(bindings: PolicyHookDecision['bindings'], matches: true | 'undecidable'): boolean {
  for (let i = 0; i < bindings.length; i++) if (bindings[i]!.matches === matches) return true;
  return false;
}

/** Matching on the calling thread: every hook's constraints, then its bindings. Nothing is evaluated here. */
export function planValidatingPolicies(hooks: readonly PolicyHook[], request: AdmissionRequest): ValidatingPlan {
  if (hooks.length === 0 || isExcludedFromPolicies(request)) return emptyPlan;
  const policies: PlannedPolicy[] = [];
  const evaluate: number[] = [];
  const memo = new MatchMemo();
  for (let i = 0; i < hooks.length; i++) {
    const hook = hooks[i]!;
    const decision = matchPolicyHook(hook, request, memo);
    if (decision.policy.matches === false) continue;
    let target: Matched | undefined;
    if (decision.policy.matches === true) {
      if (anyBinding(decision.bindings, true)) target = decision.policy;
      // no binding matched, none undecidable: nothing to do for this policy
      else if (!anyBinding(decision.bindings, 'undecidable')) continue;
    }
    if (target !== undefined) evaluate.push(policies.length);
    policies.push({ hook: i, policy: compiledPolicy(hook), bindings: hook.bindings as readonly ValidatingAdmissionPolicyBinding[], decision, target });
  }
  return policies.length === 0 ? emptyPlan : { policies, evaluate };
}

/**
 * The request as evaluation reads it: the CEL activation (object, oldObject, request, params, namespaceObject)
 * converted from JSON once per request and invocation target, shared by every policy invoked with that target.
 * The conversion costs as much as several expressions; per policy only `variables` is new. A target of another
 * kind than the request's (matchPolicy Equivalent) sees object and oldObject converted to it (NewVersionedAttributes).
 */
export class EvaluationRequest {
  readonly request: AdmissionRequest;
  /** object/oldObject as CEL values, per kind (nearly always only the request's own) */
  #objects: Array<{ readonly kind: MatchedTarget['kind']; readonly activation: CelActivation }> = [];
  #bases: Array<{ readonly target: MatchedTarget; readonly base: CelActivation; readonly scope: PolicyScope }> = [];

  readonly #ownsObjects: boolean;

  /**
   * `ownsObjects`: request.object and oldObject were parsed for this evaluation alone (a policy worker's own
   * copy), so they are converted to CEL values in place instead of copied. Only for requests whose targets are all
   * of the request's own kind: a conversion reads the JSON objects.
   */
  constructor(request: AdmissionRequest, options?: { readonly ownsObjects?: boolean }) {
    this.request = request;
    this.#ownsObjects = options?.ownsObjects === true;
  }

  #objectsFor(kind: MatchedTarget['kind']): CelActivation {
    for (const o of this.#objects) if (sameKind(o.kind, kind)) return o.activation;
    const own = this.request.kind ?? kind;
    const converted = !sameKind(own, kind);
    const values = {
      object: convertObject(this.request.object ?? null, own, kind),
      oldObject: convertObject(this.request.oldObject ?? null, own, kind),
      params: null,
      namespaceObject: celNamespaceObject(this.request),
    };
    // a converted object shares parts with the request's: it is copied, never converted in place
    const activation = (this.#ownsObjects && !converted ? CelActivation.adopt : CelActivation.of)(values);
    this.#objects.push({ kind, activation });
    return activation;
  }

  /** The activation without `variables` for `target` (upstream's matchKind/matchResource in `request`). */
  base(target: MatchedTarget): CelActivation {
    return this.#based(target).base;
  }

  /** base(target) as the scope of a policy without variables or authorizer: one for all of them. */
  scope(target: MatchedTarget): PolicyScope {
    return this.#based(target).scope;
  }

  #based(target: MatchedTarget): { readonly base: CelActivation; readonly scope: PolicyScope } {
    for (const b of this.#bases) if (b.target === target || sameTarget(b.target, target)) return b;
    const base = this.#objectsFor(target.kind).withRequest(celRequest(this.request, target));
    const entry = { target, base, scope: { activation: base } };
    this.#bases.push(entry);
    return entry;
  }

  #authz: { readonly checker: AuthorizationChecker; readonly binding: AuthorizerBinding } | undefined;

  /** `authorizer` and `authorizer.requestResource` for this request, checks going to `checker`. */
  authorizerBinding(checker: AuthorizationChecker): AuthorizerBinding {
    if (this.#authz?.checker !== checker) this.#authz = { checker, binding: authorizerBinding(this.request, checker) };
    return this.#authz.binding;
  }
}

/** Whether two invocation targets are the same kind, resource and subresource. */
export function sameTarget(a: MatchedTarget, b: MatchedTarget): boolean {
  return a.subResource === b.subResource &&
    a.kind.group === b.kind.group && a.kind.version === b.kind.version && a.kind.kind === b.kind.kind &&
    a.resource.group === b.resource.group && a.resource.version === b.resource.version && a.resource.resource === b.resource.resource;
}

/**
 * The activations a policy is evaluated with: matchConditions and validations see `authorizer` (bound to
 * `authorizer` when the policy uses it), messageExpressions and auditAnnotations do not, and then each has its own
 * lazily evaluated variables, as each of upstream's filters does.
 */
function policyActivations(policy: CompiledPolicy, request: EvaluationRequest, target: MatchedTarget, authorizer: AuthorizationChecker | undefined): [PolicyScope, PolicyScope] {
  const base = request.base(target);
  if (!policy.usesAuthorizer || authorizer === undefined) {
    const shared = withVariables(policy, base);
    return [shared, shared];
  }
  return [withVariables(policy, base.withAuthorizer(request.authorizerBinding(authorizer))), withVariables(policy, base)];
}

/** `a` with the policy's own lazily evaluated variables (a fresh set per policy and request, as upstream's filters). */
function withVariables(policy: CompiledPolicy, a: CelActivation): PolicyScope {
  if (policy.variables.length === 0) return { activation: a };
  const variables = new PolicyVariables(policy.variables, a);
  return { activation: a.withVariables(variables.values), variables };
}

/**
 * Evaluates one policy for the request, invoked as `target`, on the calling thread. A policy that uses `authorizer`
 * is evaluated with no way to answer checks: each is the evaluation error NO_AUTHORIZATION_KUBECONFIG (use
 * evaluatePlannedPolicyAuthorized to answer them).
 */
export function evaluatePlannedPolicy(policy: CompiledPolicy, request: EvaluationRequest, target: MatchedTarget, started = performance.now()): PolicyEvaluation {
  let value: ValidateResult;
  if (policy.usesAuthorizer) value = validatePolicy(policy, ...policyActivations(policy, request, target, new RequestAuthorizer({ client: undefined, deadline: 0 })));
  else if (policy.variables.length === 0) value = validatePolicy(policy, request.scope(target)); // nothing of its own to build
  else {
    const scope = withVariables(policy, request.base(target));
    value = validatePolicy(policy, scope, scope);
  }
  return { value, seconds: (performance.now() - started) / 1e3 };
}

/** When an evaluation that started at `started` (performance.now()) ended. */
function endOf(started: number, e: PolicyEvaluation): number {
  return started + e.seconds * 1e3;
}

/** Evaluates a policy that uses `authorizer`, its checks answered by `authorizer` (one per request, shared). */
export async function evaluatePlannedPolicyAuthorized(policy: CompiledPolicy, request: EvaluationRequest, target: MatchedTarget, authorizer: RequestAuthorizer): Promise<PolicyEvaluation> {
  const started = performance.now();
  const value = await evaluateAuthorized(authorizer, () => validatePolicy(policy, ...policyActivations(policy, request, target, authorizer)));
  return { value, seconds: (performance.now() - started) / 1e3 };
}

/**
 * Every evaluation a plan needs, on the calling thread: one per entry of `plan.evaluate`, in that order.
 * `ownsObjects`: as for EvaluationRequest.
 */
export function evaluatePlan(plan: ValidatingPlan, request: AdmissionRequest, options?: { readonly ownsObjects?: boolean }): PolicyEvaluation[] {
  if (plan.evaluate.length === 0) return [];
  const prepared = new EvaluationRequest(request, options);
  const evaluations = new Array<PolicyEvaluation>(plan.evaluate.length);
  // one clock read per policy: each evaluation starts where the one before ended
  let started = performance.now();
  for (let e = 0; e < evaluations.length; e++) {
    const p = plan.policies[plan.evaluate[e]!]!;
    const evaluation = evaluatePlannedPolicy(p.policy, prepared, p.target!, started);
    evaluations[e] = evaluation;
    started = endOf(started, evaluation);
  }
  return evaluations;
}

/** Whether evaluating the plan may send SubjectAccessReviews. */
export function planUsesAuthorizer(plan: ValidatingPlan): boolean {
  return plan.evaluate.some((i) => plan.policies[i]!.policy.usesAuthorizer);
}

/**
 * evaluatePlan with the checks of `authorizer` policies answered (one RequestAuthorizer for the request: a check
 * two policies make is reviewed once, as upstream's dispatcher shares one CachingAuthorizer).
 */
export async function evaluatePlanAuthorized(plan: ValidatingPlan, request: AdmissionRequest, options: RequestAuthorizerOptions): Promise<PolicyEvaluation[]> {
  const prepared = new EvaluationRequest(request);
  const authorizer = new RequestAuthorizer(options);
  const evaluations: PolicyEvaluation[] = [];
  for (const i of plan.evaluate) {
    const p = plan.policies[i]!;
    evaluations.push(p.policy.usesAuthorizer
      ? await evaluatePlannedPolicyAuthorized(p.policy, prepared, p.target!, authorizer)
      : evaluatePlannedPolicy(p.policy, prepared, p.target!));
  }
  return evaluations;
}

/**
 * The evaluation of every policy of `plan` failing with `message` (a worker that died or overran): each policy's
 * failurePolicy decides, as for a CEL evaluation error — Fail denies with the message, Ignore admits.
 */
export function failedEvaluations(plan: ValidatingPlan, message: string, seconds = 0): PolicyEvaluation[] {
  return plan.evaluate.map((i) => {
    const action = plan.policies[i]!.policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
    return { value: { decisions: [{ action, evaluation: 'error', message, index: -1 }], auditAnnotations: [] }, seconds };
  });
}

/** What applying the bindings' actions collects for one request. */
interface Verdicts {
  readonly denials: Denial[];
  readonly warnings: string[];
  readonly annotations: Record<string, string>;
  readonly checks: PolicyCheck[];
}

/** Admission attributes never overwrite an annotation: the first value stays. */
function addAnnotation(out: Verdicts, key: string, value: string): void {
  if (!Object.hasOwn(out.annotations, key)) setOwn(out.annotations, key, value);
}

/**
 * Applies each matched binding's validationActions to its policy's evaluation and answers as the in-tree plugin
 * would. `evaluations` holds one entry per `plan.evaluate` entry, in the same order.
 */
export function applyValidatingPolicies(plan: ValidatingPlan, request: AdmissionRequest, evaluations: readonly PolicyEvaluation[]): ValidatingVerdict {
  const out: Verdicts = { denials: [], warnings: [], annotations: {}, checks: [] };
  let next = 0;
  for (let p = 0; p < plan.policies.length; p++) {
    const { policy, bindings, decision } = plan.policies[p]!;
    if (decision.policy.matches === 'undecidable') {
      if (policy.failurePolicy === 'Fail') out.denials.push({ policy: policy.name, binding: undefined, message: `failed to configure policy: ${decision.policy.error}`, reason: undefined });
      continue;
    }
    let evaluation: PolicyEvaluation | undefined;
    if (plan.evaluate[next] === p) {
      evaluation = evaluations[next];
      next++;
      if (evaluation === undefined) throw new Error(`no evaluation for ValidatingAdmissionPolicy '${policy.name}'`);
    }
    // the published audit annotations of every matched binding, by key (made only when there are some)
    let collected: Map<string, string[]> | undefined;
    for (let i = 0; i < bindings.length; i++) {
      const binding = bindings[i]!;
      const bindingName = binding.metadata?.name ?? '';
      const bindingDecision = decision.bindings[i]!;
      if (bindingDecision.matches === 'undecidable') {
        if (policy.failurePolicy === 'Fail') out.denials.push({ policy: policy.name, binding: bindingName, message: `failed to configure binding: ${bindingDecision.error}`, reason: undefined });
        continue;
      }
      if (!bindingDecision.matches || evaluation === undefined) continue;
      applyBinding(out, policy, binding, bindingName, evaluation);
      const audits = evaluation.value.auditAnnotations;
      for (let k = 0; k < audits.length; k++) {
        const a = audits[k]!;
        if (a.action === 'publish') {
          collected ??= new Map();
          const values = collected.get(a.key) ?? [];
          const v = a.value.length > maxAuditAnnotationValueLength ? a.value.slice(0, maxAuditAnnotationValueLength) : a.value;
          if (!values.includes(v)) values.push(v);
          collected.set(a.key, values);
        }
      }
    }
    if (collected !== undefined) for (const [key, values] of collected) addAnnotation(out, `${policy.name}/${key}`, values.join(', '));
  }

  const { denials, warnings, annotations, checks } = out;
  if (denials.length === 0) return { allowed: true, warnings, auditAnnotations: annotations, checks };
  const first = denials[0]!;
  const message = first.binding === undefined
    ? `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`
    : `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`;
  const status = forbiddenStatus(request, message, first.reason || 'Invalid');
  status.details = { ...status.details, causes: [{ message }] };
  return { allowed: false, status, warnings, auditAnnotations: annotations, checks };
}

function pushCheck(out: Verdicts, policy: CompiledPolicy, binding: string, seconds: number, d: Pick<PolicyDecision, 'evaluation' | 'message'>, enforcementAction: PolicyCheck['enforcementAction']): void {
  out.checks.push({ policy: policy.name, binding, errorType: checkErrorType(d), enforcementAction, seconds });
}

/** One matched binding's validationActions on its policy's decisions, and the audit annotations that failed. */
function applyBinding(out: Verdicts, policy: CompiledPolicy, binding: ValidatingAdmissionPolicyBinding, bindingName: string, evaluation: PolicyEvaluation): void {
  const { value, seconds } = evaluation;
  const actions = binding.spec?.validationActions ?? [];
  const checksBefore = out.checks.length;
  // upstream publishes the decision's position in Decisions as expressionIndex (validating/dispatcher.go
  // `for i, decision := range`): 0 for the one decision of a failed matchCondition or setup
  const decisions = value.decisions;
  for (let position = 0; position < decisions.length; position++) {
    const d = decisions[position]!;
    if (d.action === 'admit') {
      if (d.evaluation === 'error') pushCheck(out, policy, bindingName, seconds, d, 'allow');
      continue;
    }
    for (let a = 0; a < actions.length; a++) {
      const action = actions[a];
      if (action === 'Deny') {
        out.denials.push({ policy: policy.name, binding: bindingName, message: d.message, reason: d.reason });
        pushCheck(out, policy, bindingName, seconds, d, 'deny');
      } else if (action === 'Audit') {
        // utiljson.Marshal (encoding/json): <, >, & and U+2028/9 escaped as \u003c…, as upstream records it
        addAnnotation(out, validationFailureKey, goJsonMarshal([{
          message: d.message, policy: binding.spec?.policyName ?? '', binding: bindingName, expressionIndex: position, validationActions: actions,
        }]));
        pushCheck(out, policy, bindingName, seconds, d, 'audit');
      } else if (action === 'Warn') {
        // warning.AddWarning: the apiserver's recorder keeps one of each text (endpoints/filters/warning.go)
        const warning = `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${d.message}`;
        if (!out.warnings.includes(warning)) out.warnings.push(warning);
        pushCheck(out, policy, bindingName, seconds, d, 'warn');
      }
    }
  }
  for (let i = 0; i < value.auditAnnotations.length; i++) {
    const a = value.auditAnnotations[i]!;
    if (a.action === 'error') {
      out.denials.push({ policy: policy.name, binding: bindingName, message: a.error, reason: undefined });
      pushCheck(out, policy, bindingName, seconds, { evaluation: 'error', message: a.error }, 'deny');
    }
  }
  if (out.checks.length === checksBefore) out.checks.push({ policy: policy.name, binding: bindingName, errorType: 'no_error', enforcementAction: 'allow', seconds });
}

/** The whole plugin for one request on the calling thread: plan, evaluate, apply. */
export function dispatchValidatingPolicies(hooks: readonly PolicyHook[], request: AdmissionRequest): ValidatingVerdict {
  const plan = planValidatingPolicies(hooks, request);
  return applyValidatingPolicies(plan, request, evaluatePlan(plan, request));
}
