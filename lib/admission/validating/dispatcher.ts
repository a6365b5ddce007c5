// The ValidatingAdmissionPolicy plugin for one request (upstream's validating dispatcher): match every static
// policy and its bindings, evaluate, apply each binding's validationActions, and answer as the in-tree plugin would.
import type { AdmissionRequest, Status } from '../../api/admission.js';
import type { ValidatingAdmissionPolicyBinding } from '../../api/types.js';
import type { PolicyHook } from '../../manifest/compile.js';
import { isExcludedFromPolicies, matchPolicyHook } from '../matching/index.js';
import type { Matched } from '../matching/index.js';
import { policyActivation } from '../activation.js';
import { forbiddenStatus } from '../status.js';
import { compiledPolicy, validatePolicy } from './validator.js';
import type { PolicyDecision, ValidateResult } from './validator.js';

export const validationFailureKey = 'validation.policy.admission.k8s.io/validation_failure';
/** maxAuditAnnotationValueLength */
const maxAuditAnnotationValueLength = 10 * 1024;

/** One policy/binding evaluation, for apiserver_validating_admission_policy_check_* metrics. */
export interface PolicyCheck {
  readonly policy: string;
  readonly binding: string;
  /** `no_error`, `invalid_error` (evaluation error) … as upstream's error_type label */
  readonly errorType: 'no_error' | 'invalid_error';
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

export function dispatchValidatingPolicies(hooks: readonly PolicyHook[], request: AdmissionRequest): ValidatingVerdict {
  const denials: Denial[] = [];
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  const checks: PolicyCheck[] = [];
  if (isExcludedFromPolicies(request)) return { allowed: true, warnings, auditAnnotations: annotations, checks };

  const addAnnotation = (key: string, value: string): void => {
    // admission attributes never overwrite an annotation: the first value stays
    if (!(key in annotations)) annotations[key] = value;
  };

  for (const hook of hooks) {
    const policy = compiledPolicy(hook);
    const decision = matchPolicyHook(hook, request);
    if (decision.policy.matches === 'undecidable') {
      if (policy.failurePolicy === 'Fail') denials.push({ policy: policy.name, binding: undefined, message: `failed to configure policy: ${decision.policy.error}`, reason: undefined });
      continue;
    }
    if (decision.policy.matches !== true) continue;
    const target: Matched = decision.policy;

    // Without params every binding sees the same evaluation: compute it once, on the first matching binding.
    let result: { value: ValidateResult; seconds: number } | undefined;
    const evaluateOnce = (): { value: ValidateResult; seconds: number } => {
      if (!result) {
        const started = process.hrtime.bigint();
        const value = validatePolicy(policy, policyActivation(request, target, policy.variables));
        result = { value, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
      }
      return result;
    };

    const collected = new Map<string, string[]>();
    hook.bindings.forEach((b, i) => {
      const binding = b as ValidatingAdmissionPolicyBinding;
      const bindingName = binding.metadata?.name ?? '';
      const bindingDecision = decision.bindings[i]!;
      if (bindingDecision.matches === 'undecidable') {
        if (policy.failurePolicy === 'Fail') denials.push({ policy: policy.name, binding: bindingName, message: `failed to configure binding: ${bindingDecision.error}`, reason: undefined });
        return;
      }
      if (!bindingDecision.matches) return;
      const { value, seconds } = evaluateOnce();
      const actions = binding.spec?.validationActions ?? [];
      let checked = false;
      const check = (d: Pick<PolicyDecision, 'evaluation'>, enforcementAction: PolicyCheck['enforcementAction']): void => {
        checked = true;
        checks.push({ policy: policy.name, binding: bindingName, errorType: d.evaluation === 'error' ? 'invalid_error' : 'no_error', enforcementAction, seconds });
      };
      for (const d of value.decisions) {
        if (d.action === 'admit') {
          if (d.evaluation === 'error') check(d, 'allow');
          continue;
        }
        for (const action of actions) {
          if (action === 'Deny') {
            denials.push({ policy: policy.name, binding: bindingName, message: d.message, reason: d.reason });
            check(d, 'deny');
          } else if (action === 'Audit') {
            addAnnotation(validationFailureKey, JSON.stringify([{
              message: d.message, policy: binding.spec?.policyName ?? '', binding: bindingName, expressionIndex: d.index, validationActions: actions,
            }]));
            check(d, 'audit');
          } else if (action === 'Warn') {
            warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${d.message}`);
            check(d, 'warn');
          }
        }
      }
      for (const a of value.auditAnnotations) {
        if (a.action === 'publish') {
          const values = collected.get(a.key) ?? [];
          const v = a.value.length > maxAuditAnnotationValueLength ? a.value.slice(0, maxAuditAnnotationValueLength) : a.value;
          if (!values.includes(v)) values.push(v);
          collected.set(a.key, values);
        } else if (a.action === 'error') {
          denials.push({ policy: policy.name, binding: bindingName, message: a.error, reason: undefined });
          check({ evaluation: 'error' }, 'deny');
        }
      }
      if (!checked) checks.push({ policy: policy.name, binding: bindingName, errorType: 'no_error', enforcementAction: 'allow', seconds });
    });
    for (const [key, values] of collected) addAnnotation(`${policy.name}/${key}`, values.join(', '));
  }

  if (denials.length === 0) return { allowed: true, warnings, auditAnnotations: annotations, checks };
  const first = denials[0]!;
  const message = first.binding === undefined
    ? `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`
    : `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`;
  const status = forbiddenStatus(request, message, first.reason || 'Invalid');
  status.details = { ...status.details, causes: [{ message }] };
  return { allowed: false, status, warnings, auditAnnotations: annotations, checks };
}
