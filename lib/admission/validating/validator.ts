// One ValidatingAdmissionPolicy evaluated for one request (upstream's validator.Validate): matchConditions, then
// every validation with its message rules, then audit annotations. Failures follow the policy's failurePolicy.
import type { ValidatingAdmissionPolicy } from '../../api/types.js';
import { AuthorizationPending } from '../../cel/index.js';
import type { CelActivation, CompiledExpression } from '../../cel/index.js';
import type { PolicyHook } from '../../manifest/compile.js';
import type { CompiledVariable } from '../activation.js';

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
}

const compiledPolicies = new WeakMap<PolicyHook, CompiledPolicy>();

/** Groups a hook's compiled expressions by role; cached per hook (snapshots are immutable). */
export function compiledPolicy(hook: PolicyHook): CompiledPolicy {
  const cached = compiledPolicies.get(hook);
  if (cached) return cached;
  const byPath = new Map(hook.expressions.map((e) => [e.path, e]));
  const spec = (hook.policy as ValidatingAdmissionPolicy).spec ?? {};
  const get = (path: string): CompiledExpression | undefined => byPath.get(path)?.compiled;
  const policy: CompiledPolicy = {
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
  compiledPolicies.set(hook, policy);
  return policy;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** cel filter's wording for a failed evaluation. */
function evaluationError(expression: string, err: unknown): string {
  return `expression '${expression}' resulted in error: ${errorMessage(err)}`;
}

function evaluate(compiled: CompiledExpression, activation: Activation): { value: unknown } | { error: string } {
  try {
    return { value: compiled.evaluate(activation) };
  } catch (err) {
    // not an outcome: the whole policy is evaluated again once the check is answered (admission/authorization.ts)
    if (err instanceof AuthorizationPending) throw err;
    return { error: evaluationError(compiled.expression, err) };
  }
}

/**
 * matchConditions (matchconditions.Matcher): any condition false → the policy does not apply, whatever else
 * happened; otherwise evaluation errors, aggregated, are an error under the failure policy; otherwise it applies.
 */
function matchConditions(policy: CompiledPolicy, activation: Activation): { matches: boolean } | { error: string } {
  const errors: string[] = [];
  for (const condition of policy.matchConditions) {
    const result = evaluate(condition.compiled, activation);
    if ('error' in result) errors.push(result.error);
    else if (result.value === false) return { matches: false };
  }
  return errors.length === 0 ? { matches: true } : { error: aggregateErrors(errors) };
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several as `[a, b]` with repeats dropped. */
export function aggregateErrors(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

function denyMessage(validation: CompiledValidation, activation: Activation): string {
  let message = '';
  if (validation.messageExpression) {
    const result = evaluate(validation.messageExpression, activation);
    // a non-string, empty, over-long or multi-line result falls back, as upstream
    if ('value' in result && typeof result.value === 'string') {
      message = result.value.trim();
      if (Buffer.byteLength(message) > maxMessageBytes || message.includes('\n')) message = '';
    }
  }
  if (message === '' && validation.message.length > 0) message = validation.message.trim();
  if (message === '') message = `failed expression: ${validation.expression.trim()}`;
  return message;
}

/**
 * Evaluates the policy. `unbound` is what messageExpressions and auditAnnotations read: upstream evaluates them
 * without the authorizer (validator.go: expressionOptionalVars and the audit annotation bindings carry none), each
 * filter with its own composition variables; by default the same activation.
 */
export function validatePolicy(policy: CompiledPolicy, activation: Activation, unbound: Activation = activation): ValidateResult {
  const onError: DecisionAction = policy.failurePolicy === 'Ignore' ? 'admit' : 'deny';
  if (policy.matchConditions.length > 0) {
    const matched = matchConditions(policy, activation);
    if ('error' in matched) return { decisions: [{ action: onError, evaluation: 'error', message: matched.error, index: -1 }], auditAnnotations: [] };
    if (!matched.matches) return { decisions: [], auditAnnotations: [] };
  }
  const decisions = policy.validations.map((validation, index): PolicyDecision => {
    const result = evaluate(validation.compiled, activation);
    if ('error' in result) return { action: onError, evaluation: 'error', message: result.error, index };
    if (result.value === true) return { action: 'admit', evaluation: 'admit', message: '', index };
    return { action: 'deny', evaluation: 'deny', message: denyMessage(validation, unbound), reason: validation.reason ?? 'Invalid', index };
  });
  const auditAnnotations = policy.auditAnnotations.map((a): AuditAnnotationResult => {
    const result = evaluate(a.compiled, unbound);
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

function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map || (typeof value === 'object' && value !== null)) return 'map';
  return typeof value;
}
