// A MutatingAdmissionPolicy hook's compiled expressions by role, in spec order (built once per hook of a snapshot):
// variables, matchConditions and one patcher per mutation, with the policy's failure and reinvocation policies.
import type { MutatingAdmissionPolicy } from '../../api/types.js';
import type { CompiledExpression } from '../../cel/index.js';
import type { PolicyHook } from '../../manifest/compile.js';
import type { CompiledVariable } from '../activation.js';

export interface CompiledMutation {
  readonly patchType: 'JSONPatch' | 'ApplyConfiguration';
  /** undefined only for a mutation whose expression did not compile (the load would have failed) */
  readonly compiled: CompiledExpression | undefined;
}

export interface CompiledMutatingPolicy {
  readonly name: string;
  /** some expression reads `authorizer` (its evaluation may wait for SubjectAccessReviews) */
  readonly usesAuthorizer: boolean;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: ReadonlyArray<{ readonly name: string; readonly compiled: CompiledExpression }>;
  /** the matchConditions' expressions, evaluated as one group */
  readonly matchExpressions: readonly CompiledExpression[];
  readonly mutations: readonly CompiledMutation[];
}

const compiledPolicies = new WeakMap<PolicyHook, CompiledMutatingPolicy>();

export function compiledMutatingPolicy(hook: PolicyHook): CompiledMutatingPolicy {
  const cached = compiledPolicies.get(hook);
  if (cached) return cached;
  const byPath = new Map(hook.expressions.map((e) => [e.path, e.compiled]));
  const spec = (hook.policy as MutatingAdmissionPolicy).spec ?? {};
  const policy: Omit<CompiledMutatingPolicy, 'matchExpressions'> = {
    name: hook.policy.metadata?.name ?? '',
    usesAuthorizer: hook.expressions.some((e) => e.compiled.usesAuthorizer === true),
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    variables: (spec.variables ?? []).flatMap((v, i) => {
      const compiled = byPath.get(`spec.variables[${i}].expression`);
      return compiled && v.name ? [{ name: v.name, compiled }] : [];
    }),
    matchConditions: (spec.matchConditions ?? []).flatMap((c, i) => {
      const compiled = byPath.get(`spec.matchConditions[${i}].expression`);
      return compiled ? [{ name: c.name ?? '', compiled }] : [];
    }),
    mutations: (spec.mutations ?? []).map((m, i): CompiledMutation => m.patchType === 'ApplyConfiguration'
      ? { patchType: 'ApplyConfiguration', compiled: byPath.get(`spec.mutations[${i}].applyConfiguration.expression`) }
      : { patchType: 'JSONPatch', compiled: byPath.get(`spec.mutations[${i}].jsonPatch.expression`) }),
  };
  const grouped: CompiledMutatingPolicy = { ...policy, matchExpressions: policy.matchConditions.map((c) => c.compiled) };
  compiledPolicies.set(hook, grouped);
  return grouped;
}
