// One ValidatingAdmissionPolicy evaluated for one request (upstream's validator.Validate): matchConditions, then
// every validation with its message rules, then audit annotations, each group within its runtime cost budget
// (../budget.ts). Failures follow the policy's failurePolicy.
import type { ValidatingAdmissionPolicy } from '../../api/types.js';
import type { CelActivation, CompiledExpression } from '../../cel/index.js';
import type { PolicyHook } from '../../manifest/compile.js';
import type { CompiledVariable, PolicyVariables } from '../activation.js';
import { evaluateGroup, OUT_OF_BUDGET, RUNTIME_CEL_COST_BUDGET } from '../budget.js';
import type { GroupOptions, Outcome } from '../budget.js';
import { matchConditions } from '../match-conditions.js';

/** What expressions are evaluated with: the hot path's prepared activation, or a plain one (tests, tools). */
type Activation = CelActivation | Record<string, unknown>;

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const maxMessageBytes = 5 * 1024;

export type DecisionAction = 'admit' | 'deny';
export type DecisionEvaluation = 'admit' | 'deny' | 'error';

export interface PolicyDecision {
  readonly action: DecisionAction;
  readonly evaluation: DecisionEvaluation;
  readonly message: string;
  /** status reason of a denial by a validation (Invalid unless the validation names one) */
  readonly reason?: string;
  /** index of the validation it came from; -1 for matchConditions or evaluation setup */
  readonly index: number;
}

export type AuditAnnotationResult =
  | { readonly action: 'publish'; readonly key: string; readonly value: string }
  | { readonly action: 'exclude'; readonly key: string }
  | { readonly action: 'error'; readonly key: string; readonly error: string };

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

interface CompiledValidation {
  readonly expression: string;
  readonly message: string;
  readonly reason: string | undefined;
  readonly compiled: CompiledExpression;
  readonly messageExpression: CompiledExpression | undefined;
}

/** A policy hook's expressions by role, in spec order (built once per hook). */
export interface CompiledPolicy {
  readonly name: string;
  /** some expression reads `authorizer` (its evaluation may wait for SubjectAccessReviews) */
  readonly usesAuthorizer: boolean;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: ReadonlyArray<{ readonly name: string; readonly compiled: CompiledExpression }>;
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: ReadonlyArray<{ readonly key: string; readonly valueExpression: string; readonly compiled: CompiledExpression }>;
  /** each group's expressions in evaluation order (upstream's ConditionEvaluators) */
  readonly matchExpressions: readonly CompiledExpression[];
  readonly validationExpressions: readonly CompiledExpression[];
  /** one entry per validation (undefined where it has none); undefined when no validation has one */
  readonly messageExpressions: ReadonlyArray<CompiledExpression | undefined> | undefined;
  readonly auditExpressions: readonly CompiledExpression[];
  /** the decisions when every validation admits, and the result then without audit annotations: shared by every
   * request, so an admitting policy allocates nothing for its answer */
  readonly admitted: readonly PolicyDecision[];
  readonly admittedResult: ValidateResult;
}

/** What a group of a policy's expressions reads: an activation, and the cost accounting of its variables if any. */
export interface PolicyScope {
  readonly activation: Activation;
  readonly variables?: PolicyVariables | undefined;
}

const compiledPolicies = new WeakMap<PolicyHook, CompiledPolicy>();

/** Groups a hook's compiled expressions by role; cached per hook (snapshots are immutable). */
export function compiledPolicy(hook: PolicyHook): CompiledPolicy {
  const cached = compiledPolicies.get(hook);
  if (cached) return cached;
  const byPath = new Map(hook.expressions.map((e) => [e.path, e]));
  const spec = (hook.policy as ValidatingAdmissionPolicy).spec ?? {};
  const get = (path: string): CompiledExpression | undefined => byPath.get(path)?.compiled;
  const policy: Omit<CompiledPolicy, 'matchExpressions' | 'validationExpressions' | 'messageExpressions' | 'auditExpressions' | 'admitted' | 'admittedResult'> = {
    name: hook.policy.metadata?.name ?? '',
    usesAuthorizer: hook.expressions.some((e) => e.compiled.usesAuthorizer === true),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    variables: (spec.variables ?? []).flatMap((v, i) => {
      const compiled = get(`spec.variables[${i}].expression`);
      return compiled && v.name ? [{ name: v.name, compiled }] : [];
    }),
    matchConditions: (spec.matchConditions ?? []).flatMap((c, i) => {
      const compiled = get(`spec.matchConditions[${i}].expression`);
      return compiled ? [{ name: c.name ?? '', compiled }] : [];
    }),
    validations: (spec.validations ?? []).flatMap((v, i) => {
      const compiled = get(`spec.validations[${i}].expression`);
      return compiled ? [{
        expression: v.expression ?? '',
        message: v.message ?? '',
        reason: v.reason ?? undefined,
        compiled,
        messageExpression: get(`spec.validations[${i}].messageExpression`),
      }] : [];
    }),
    auditAnnotations: (spec.auditAnnotations ?? []).flatMap((a, i) => {
      const compiled = get(`spec.auditAnnotations[${i}].valueExpression`);
      return compiled ? [{ key: a.key ?? '', valueExpression: a.valueExpression ?? '', compiled }] : [];
    }),
  };
  const messageExpressions = policy.validations.map((v) => v.messageExpression);
  const admitted = Object.freeze(policy.validations.map((_, index): PolicyDecision => Object.freeze({ action: 'admit', evaluation: 'admit', message: '', index })));
  const grouped: CompiledPolicy = {
    admitted,
    admittedResult: Object.freeze({ decisions: admitted, auditAnnotations: Object.freeze([]) }),
    ...policy,
    matchExpressions: policy.matchConditions.map((c) => c.compiled),
    validationExpressions: policy.validations.map((v) => v.compiled),
    messageExpressions: messageExpressions.some((m) => m !== undefined) ? messageExpressions : undefined,
    auditExpressions: policy.auditAnnotations.map((a) => a.compiled),
  };
  compiledPolicies.set(hook, grouped);
  return grouped;
}

function denyMessage(validation: CompiledValidation, messageOutcome: Outcome | undefined): string {
  let message = '';
  // a non-string, empty, over-long or multi-line result falls back, as upstream
  if (messageOutcome !== undefined && 'value' in messageOutcome && typeof messageOutcome.value === 'string') {
    message = messageOutcome.value.trim();
    if (Buffer.byteLength(message) > maxMessageBytes || message.includes('\n')) message = '';
  }
  if (message === '' && validation.message.length > 0) message = validation.message.trim();
  if (message === '') message = `failed expression: ${validation.expression.trim()}`;
  return message;
}

const noResult: ValidateResult = Object.freeze({ decisions: Object.freeze([]), auditAnnotations: Object.freeze([]) });

/**
 * upstream's validator.Validate. Its evaluation groups and their budgets: matchConditions (2,500,000), validations
 * (10,000,000), then every validation's messageExpression — a passing validation's too — on what the validations
 * left, then auditAnnotations (a fresh 10,000,000). An overrun in the validations or auditAnnotations leaves one
 * error decision; one in the messageExpressions turns every validation that did not fail itself into the error
 * `failed messageExpression: …`. matchConditions: ../match-conditions.ts. `unbound` is what messageExpressions and
 * auditAnnotations read: upstream evaluates them without the authorizer (validator.go: expressionOptionalVars and
 * the audit annotation bindings carry none), each filter with its own composition variables; by default `scope`.
 * An authorization check not answered yet (AuthorizationPending) ends the evaluation: the caller evaluates again.
 */
export function validatePolicy(policy: CompiledPolicy, scope: PolicyScope, unbound: PolicyScope = scope): ValidateResult {
  const onError: DecisionAction = policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const failed = (message: string): ValidateResult => ({ decisions: [{ action: onError, evaluation: 'error', message, index: -1 }], auditAnnotations: [] });
  if (policy.matchExpressions.length > 0) {
    const matched = matchConditions(policy.matchExpressions, scope.activation, policy.failurePolicy, { variables: scope.variables });
    if (matched.error !== undefined) return failed(matched.error);
    if (!matched.matches) return noResult;
  }
  const validations = evaluateGroup(policy.validationExpressions, scope.activation, RUNTIME_CEL_COST_BUDGET, groupOptions(scope));
  if (validations === undefined) return failed(OUT_OF_BUDGET);
  const messages = policy.messageExpressions === undefined
    ? undefined
    : evaluateGroup(policy.messageExpressions, unbound.activation, validations.remaining, groupOptions(unbound));
  const messagesOutOfBudget = policy.messageExpressions !== undefined && messages === undefined;
  const decisions = !messagesOutOfBudget && allHold(validations.outcomes)
    ? policy.admitted
    : policy.validations.map((validation, index): PolicyDecision => {
      const result = validations.outcomes[index]!;
      if ('error' in result) return { action: onError, evaluation: 'error', message: result.error, index };
      if (messagesOutOfBudget) return { action: onError, evaluation: 'error', message: `failed messageExpression: ${OUT_OF_BUDGET}`, index };
      if (result.value === true) return policy.admitted[index]!;
      return { action: 'deny', evaluation: 'deny', message: denyMessage(validation, messages?.outcomes[index]), reason: validation.reason ?? 'Invalid', index };
    });
  if (policy.auditAnnotations.length === 0) return decisions === policy.admitted ? policy.admittedResult : { decisions, auditAnnotations: [] };
  const audits = evaluateGroup(policy.auditExpressions, unbound.activation, RUNTIME_CEL_COST_BUDGET, groupOptions(unbound));
  if (audits === undefined) return failed(OUT_OF_BUDGET);
  const auditAnnotations = policy.auditAnnotations.map((a, i): AuditAnnotationResult => {
    const result = audits.outcomes[i]!;
    if ('error' in result) {
      return onError === 'admit' ? { action: 'exclude', key: a.key } : { action: 'error', key: a.key, error: result.error };
    }
    if (result.value === null) return { action: 'exclude', key: a.key };
    if (typeof result.value === 'string') {
      const value = result.value.trim();
      return value === '' ? { action: 'exclude', key: a.key } : { action: 'publish', key: a.key, value };
    }
    return {
      action: 'error',
      key: a.key,
      error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${celTypeName(result.value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}

const noVariables: GroupOptions = Object.freeze({});

/** A group's options for a scope: one shared object when it has no variables. */
function groupOptions(scope: PolicyScope): GroupOptions {
  return scope.variables === undefined ? noVariables : { variables: scope.variables };
}

/** Whether every validation evaluated to true (none erred, none denied). */
function allHold(outcomes: ReadonlyArray<Outcome | undefined>): boolean {
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i];
    if (o === undefined || !('value' in o) || o.value !== true) return false;
  }
  return true;
}

function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map || (typeof value === 'object' && value !== null)) return 'map';
  return typeof value;
}
