// One pass of the MutatingAdmissionPolicy plugin over a request (upstream: policy/generic/policy_dispatcher.go
// Dispatch for matching and the failure policy, policy/mutating/dispatcher.go dispatchInvocations for the rest):
//   1. match every policy's constraints and bindings against the object as the pass found it;
//   2. for each matched (policy, binding), in order: matchConditions, then — unless this is the second pass and the
//      invocation is not due again — each mutation in spec order on the object as mutated so far;
//   3. errors (configuration, matchConditions, mutations) are dropped under failurePolicy Ignore; the first one
//      left denies with its message and reason, every one listed as a cause. A patched object that does not decode
//      fails the request at once, whatever the failure policy (upstream returns that StatusError directly).
// Reinvocation follows upstream to the letter, including that a pass in which any mutation was applied makes the
// IfNeeded invocations before it due again (the versioned attributes are marked dirty on every applied patch).
import type { AdmissionRequest, GroupVersionKind, Status } from '../../api/admission.js';
import type { PolicyHook } from '../../manifest/compile.js';
import { equalJson } from '../../json/index.js';
import { evaluateAuthorized, RequestAuthorizer } from '../authorization.js';
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';
import { isExcludedFromPolicies, matchPolicyHook } from '../matching/index.js';
import { convertObject, patchedVersionConversionError } from '../conversion/index.js';
import { defaultObject } from '../defaulting/index.js';
import { matchConditions } from '../match-conditions.js';
import { forbiddenStatus } from '../status.js';
import { invocationOf, PassActivations } from './pass-activations.js';
import type { Invocation, Versioned } from './pass-activations.js';
import { applyMutation } from './patchers.js';
import { withoutEmptyMaps } from './typed-object.js';
import type { ObjectKind } from './patchers.js';
import { compiledMutatingPolicy } from './policy.js';
import type { CompiledMutatingPolicy } from './policy.js';
import { invocationKey, PolicyReinvocationState } from './reinvocation.js';

/** One mutation evaluated, for apiserver_mutating_admission_policy_check_* (upstream labels). */
export interface MutationCheck {
  readonly policy: string;
  readonly binding: string;
  /** `no_error`, `compile_error`, `invalid_error`, `out_of_budget` (mutating/errors.go ErrorType) */
  readonly errorType: 'no_error' | 'compile_error' | 'invalid_error' | 'out_of_budget';
  readonly seconds: number;
}

interface PolicyError {
  readonly policy: CompiledMutatingPolicy;
  readonly binding: string | undefined;
  readonly message: string;
  readonly reason: string | undefined;
}

export interface MutatingPass {
  /** the object after this pass (the input object when nothing applied) */
  readonly object: unknown;
  /** set when the request is denied */
  readonly status?: Status;
  readonly checks: readonly MutationCheck[];
}

export interface PassContext {
  readonly isReinvoke: boolean;
  readonly state: PolicyReinvocationState;
  /** the pass changed the object, or an invocation is due again: the chain runs a second pass */
  setShouldReinvoke(): void;
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  /** answers `authorizer` checks (none: each check is an evaluation error) */
  readonly authorization?: SubjectAccessReviewClient;
}

function errorType(message: string): MutationCheck['errorType'] {
  if (message.startsWith('compilation')) return 'compile_error';
  if (message.startsWith('validation failed due to running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

/** The kind of a versioned object: its own apiVersion/kind, else the invocation's. */
function objectKind(kind: Readonly<GroupVersionKind>, object: unknown): ObjectKind {
  const o = object as { apiVersion?: unknown; kind?: unknown } | null;
  if (typeof o?.apiVersion === 'string' && typeof o.kind === 'string') return { apiVersion: o.apiVersion, kind: o.kind };
  const group = kind.group ?? '';
  return { apiVersion: group === '' ? kind.version ?? '' : `${group}/${kind.version ?? ''}`, kind: kind.kind ?? '' };
}

/** upstream's `policy 'p' with binding 'b' denied request: …` (PolicyError.Error). */
function policyErrorMessage(e: PolicyError): string {
  return e.binding === undefined
    ? `policy ${JSON.stringify(e.policy.name)} denied request: ${e.message}`
    : `policy '${e.policy.name}' with binding '${e.binding}' denied request: ${e.message}`;
}

function internalError(message: string): Status {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  } as Status;
}

/** The denial for the errors left after the failure policy (admission.NewForbidden, message and reason replaced). */
function denial(request: AdmissionRequest, errors: readonly PolicyError[]): Status {
  const status = forbiddenStatus(request, 'admission request denied by policy');
  const messages = errors.map(policyErrorMessage);
  status.message = messages[0]!;
  if (errors[0]!.reason) status.reason = errors[0]!.reason;
  status.details = { ...status.details, causes: messages.map((message) => ({ message })) };
  return status;
}

/**
 * The invocations of the policies whose constraints and bindings match the request with `object` (upstream matches
 * the object as the pass found it, before the delegate mutates), and the configuration errors met on the way.
 */
function matchInvocations(hooks: readonly PolicyHook[], request: AdmissionRequest, object: unknown): { invocations: Invocation[]; errors: PolicyError[] } {
  const errors: PolicyError[] = [];
  const invocations: Invocation[] = [];
  const matchRequest: AdmissionRequest = { ...request, object };
  for (const hook of hooks) {
    const decision = matchPolicyHook(hook, matchRequest);
    if (decision.policy.matches === false) continue;
    const policy = compiledMutatingPolicy(hook);
    if (decision.policy.matches === 'undecidable') {
      errors.push({ policy, binding: undefined, message: `failed to configure policy: ${decision.policy.error}`, reason: undefined });
      continue;
    }
    const target = decision.policy;
    hook.bindings.forEach((binding, i) => {
      const bindingName = binding.metadata?.name ?? '';
      const d = decision.bindings[i]!;
      if (d.matches === 'undecidable') errors.push({ policy, binding: bindingName, message: `failed to configure binding: ${d.error}`, reason: undefined });
      else if (d.matches) invocations.push(invocationOf(policy, bindingName, target, invocations[invocations.length - 1]));
    });
  }
  return { invocations, errors };
}

/**
 * Runs one pass of the plugin on `object` (not modified). The checks `authorizer` makes are cached for the pass, as
 * upstream's dispatcher caches them for each Dispatch; a policy that uses it is evaluated again once its checks are
 * answered (admission/authorization.ts).
 */
export async function dispatchMutatingPolicies(hooks: readonly PolicyHook[], request: AdmissionRequest, object: unknown, ctx: PassContext): Promise<MutatingPass> {
  const checks: MutationCheck[] = [];
  // the plugin handles CREATE, UPDATE and CONNECT only: a DELETE has no body to mutate (plugin.go NewHandler)
  if (hooks.length === 0 || request.operation === 'DELETE' || isExcludedFromPolicies(request)) return { object, checks };

  const state = ctx.state;
  const { invocations, errors } = matchInvocations(hooks, request, object);

  if (invocations.length > 0) {
    if (ctx.isReinvoke && state.outputChangedSinceLastInvocation(object)) {
      // a later plugin changed the object: every eligible policy runs again
      state.requireReinvokingPreviouslyInvoked();
    }
    const ownKind = request.kind ?? { group: '', version: '', kind: '' };
    // the kind the request was made to, which upstream's attributes carry (kind is the one this daemon was sent)
    const attributesKind = request.requestKind ?? ownKind;
    const authorizer = new RequestAuthorizer({ client: ctx.authorization, deadline: ctx.deadline ?? Date.now() + 10_000, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) });
    // Upstream's versioned attributes: one per kind invoked, each mutated on its own. Only the last one a mutation
    // ran on goes back into the request's object, and only if it changed (dispatcher.go dispatchInvocations): a pass
    // mixing kinds keeps the last kind's mutations, as upstream does.
    const activations = new PassActivations(request, object, state, ctx, authorizer);
    for (const invocation of invocations) activations.versionedFor(invocation);
    let last: Versioned | undefined;
    /**
     * `evaluate` as it is, or until its authorizer checks are answered. Only a policy that uses the authorizer waits:
     * the others are evaluated at once, without a promise and a turn of the event loop per expression.
     */
    const authorized = <T>(policy: CompiledMutatingPolicy, evaluate: () => T): T | Promise<T> => (policy.usesAuthorizer ? evaluateAuthorized(authorizer, evaluate) : evaluate());
    for (const invocation of invocations) {
      const { policy, binding } = invocation;
      const v = activations.versionedFor(invocation);
      if (policy.matchConditions.length > 0) {
        const pending = authorized(policy, () => {
          const scoped = activations.activationFor(invocation, v);
          return matchConditions(policy.matchExpressions, scoped.activation, policy.failurePolicy, scoped.options);
        });
        const matched = pending instanceof Promise ? await pending : pending;
        if (matched.error !== undefined) {
          errors.push({ policy, binding, message: matched.error, reason: 'Invalid' });
          continue;
        }
        if (!matched.matches) continue;
      }
      const key = invocationKey(policy.name, binding);
      if (ctx.isReinvoke && !state.shouldReinvoke(key)) continue;

      const before = v.object;
      for (const mutation of policy.mutations) {
        last = v;
        // no object (a CONNECT without options): nothing to patch
        if (v.object === null || v.object === undefined) continue;
        const started = performance.now();
        const kind = objectKind(v.kind, v.object);
        const current = v.object;
        const kindKey = `${kind.apiVersion} ${kind.kind}`;
        const decoded = { known: state.lastDecoded.get(kindKey) };
        const evaluated = authorized(policy, () => {
          const scoped = activations.activationFor(invocation, v);
          return applyMutation(mutation, scoped.activation, current, kind, scoped.options, decoded);
        });
        const outcome = evaluated instanceof Promise ? await evaluated : evaluated;
        const seconds = (performance.now() - started) / 1e3;
        if (!outcome.ok) {
          checks.push({ policy: policy.name, binding, errorType: errorType(outcome.error), seconds });
          if (outcome.internal) {
            state.setLastInvocationOutput(object);
            return { object, status: internalError(outcome.error), checks };
          }
          errors.push({ policy, binding, message: outcome.error, reason: 'Invalid' });
          continue;
        }
        const unconvertible = patchedVersionConversionError(v.kind, attributesKind);
        if (unconvertible !== undefined) {
          checks.push({ policy: policy.name, binding, errorType: errorType(unconvertible), seconds });
          errors.push({ policy, binding, message: unconvertible, reason: 'Invalid' });
          continue;
        }
        checks.push({ policy: policy.name, binding, errorType: 'no_error', seconds });
        // a JSON Patch that changed the object had it decoded strictly (one that changed nothing did not)
        if (mutation.patchType === 'JSONPatch' && outcome.object !== current) state.lastDecoded.set(kindKey, outcome.object);
        // held as its Go type (typed-object.ts), then the scheme's defaulting, after every mutation
        // (dispatcher.go dispatchOne)
        v.object = defaultObject(withoutEmptyMaps(outcome.object, kind.apiVersion, kind.kind, state.prunedSubtrees), kind, state.defaultedParts);
        v.dirty = true;
      }
      if (before !== v.object && !equalJson(before, v.object)) {
        // the object changed: the IfNeeded invocations before this one run again
        state.requireReinvokingPreviouslyInvoked();
        ctx.setShouldReinvoke();
      }
      if (policy.reinvocationPolicy === 'IfNeeded') state.addReinvocable(key);
    }
    if (last !== undefined && last.object !== null && last.object !== undefined && last.dirty) {
      state.requireReinvokingPreviouslyInvoked();
      ctx.setShouldReinvoke();
      object = convertObject(last.object, last.kind, ownKind);
    }
    state.setLastInvocationOutput(object);
  }

  const failing = errors.filter((e) => e.policy.failurePolicy !== 'Ignore');
  if (failing.length > 0) return { object, status: denial(request, failing), checks };
  return { object, checks };
}
