// The MutatingAdmissionPolicy plugin of the /mutate chain: each pass runs the dispatcher on the current snapshot's
// policies and the object as mutated so far, keeping its reinvocation state in the request's reinvocation context.
import type { MutatingPlugin, MutationContext } from '../mutation.js';
import type { PolicyHook } from '../../manifest/compile.js';
import { dispatchMutatingPolicies } from './dispatcher.js';
import type { MutationCheck } from './dispatcher.js';
import { PolicyReinvocationState } from './reinvocation.js';
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';

export interface MutatingPolicyPluginOptions {
  /** the MutatingAdmissionPolicy snapshot's hooks, read per request */
  readonly hooks: () => readonly PolicyHook[];
  /** called with the mutations evaluated in each pass (metrics), and the request's context */
  readonly onChecks?: (checks: readonly MutationCheck[], ctx: MutationContext) => void;
  /** answers `authorizer` checks */
  readonly authorization?: SubjectAccessReviewClient;
}

export function createMutatingPolicyPlugin(options: MutatingPolicyPluginOptions): MutatingPlugin {
  return {
    name: 'MutatingAdmissionPolicy',
    async admit(attributes, ctx) {
      const reinvocation = attributes.reinvocation;
      const state = reinvocation.value('MutatingAdmissionPolicy', () => new PolicyReinvocationState());
      const pass = await dispatchMutatingPolicies(options.hooks(), attributes.request, attributes.object, {
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
        isReinvoke: reinvocation.isReinvoke,
        state,
        setShouldReinvoke: () => reinvocation.setShouldReinvoke(),
        deadline: ctx.deadline,
        signal: ctx.signal,
      });
      if (pass.checks.length > 0) options.onChecks?.(pass.checks, ctx);
      attributes.object = pass.object;
      return pass.status === undefined ? { allowed: true } : { allowed: false, status: pass.status };
    },
  };
}
