// What the expressions of one pass of the MutatingAdmissionPolicy plugin evaluate with: upstream's versioned
// attributes (one per kind invoked, each converted from the object as the pass found it and mutated on its own:
// policy/generic/policy_dispatcher.go versionedAttributeAccessor) and, per invocation, the CEL activation of the
// object as mutated so far. What is the same for the whole request (oldObject, namespaceObject, `request`, the CEL
// values of each version met) is kept in the request's PolicyReinvocationState, so the second pass converts nothing
// the first already did.
import type { AdmissionRequest, GroupVersionKind } from '../../api/admission.js';
import { CelActivation, jsonToCelValueAfter, toCelValue } from '../../cel/index.js';
import { celNamespaceObject, celRequest, PolicyVariables } from '../activation.js';
import { authorizerBinding } from '../authorization.js';
import type { RequestAuthorizer } from '../authorization.js';
import type { GroupOptions } from '../budget.js';
import { convertObject } from '../conversion/index.js';
import type { Matched } from '../matching/index.js';
import type { CompiledMutatingPolicy } from './policy.js';
import type { PolicyReinvocationState } from './reinvocation.js';

/** A matched (policy, binding) of the pass. */
export interface Invocation {
  readonly policy: CompiledMutatingPolicy;
  readonly binding: string;
  readonly target: Matched;
  /** the target's `request` variable, as a key: "group/version/kind group/version/resource" */
  readonly requestKey: string;
  /** the target's kind, as a key: "group/version/kind" */
  readonly kindKey: string;
}

/** One kind's view of the object in a pass (upstream's VersionedAttributes). */
export interface Versioned {
  readonly kind: Readonly<GroupVersionKind>;
  /** kindKeyOf(kind) */
  readonly kindKey: string;
  object: unknown;
  /** oldObject, params and namespaceObject in this kind */
  readonly fixed: CelActivation;
  /** a mutation was applied */
  dirty: boolean;
}

/** An invocation's activation, and the options its expressions are evaluated with. */
export interface ScopedActivation {
  readonly activation: CelActivation;
  /** deadline, signal and the policy's variables with their cost accounting */
  readonly options: GroupOptions;
}

/** A kind as a map key: "group/version/kind". */
function kindKeyOf(kind: Readonly<GroupVersionKind>): string {
  return `${kind.group ?? ''}/${kind.version ?? ''}/${kind.kind ?? ''}`;
}

/**
 * The invocation of `policy` through `binding` for a matched target. `previous`: the pass's invocation before it,
 * whose keys are taken when it has the same target (a pass's policies mostly match the one request target).
 */
export function invocationOf(policy: CompiledMutatingPolicy, binding: string, target: Matched, previous?: Invocation): Invocation {
  if (previous?.target === target) return { policy, binding, target, requestKey: previous.requestKey, kindKey: previous.kindKey };
  const r = target.resource;
  const kindKey = kindKeyOf(target.kind);
  return { policy, binding, target, requestKey: `${kindKey} ${r.group ?? ''}/${r.version ?? ''}/${r.resource ?? ''}`, kindKey };
}

export class PassActivations {
  readonly #versioned = new Map<string, Versioned>();
  /** the evaluation options of a policy without variables, shared by its evaluations */
  readonly #options: GroupOptions;
  readonly #ownKind: Readonly<GroupVersionKind>;

  /** `object`: as the pass found it; `ctx`: the request's deadline and signal. */
  constructor(
    private readonly request: AdmissionRequest,
    private readonly object: unknown,
    private readonly state: PolicyReinvocationState,
    private readonly ctx: { readonly deadline?: number | undefined; readonly signal?: AbortSignal | undefined },
    private readonly authorizer: RequestAuthorizer,
  ) {
    this.#options = { deadline: ctx.deadline, signal: ctx.signal };
    this.#ownKind = request.kind ?? { group: '', version: '', kind: '' };
  }

  /** The invoked kind's versioned attributes, converted from the object as the pass found it on first use. */
  versionedFor({ target, kindKey: key }: Invocation): Versioned {
    let v = this.#versioned.get(key);
    if (v === undefined) {
      // oldObject, params and namespaceObject are the same in both passes: converted once per request and kind
      let fixed = this.state.fixedActivations.get(key);
      if (fixed === undefined) {
        const oldObject = convertObject(this.request.oldObject ?? null, this.#ownKind, target.kind);
        fixed = CelActivation.of({ oldObject, params: null, namespaceObject: celNamespaceObject(this.request) });
        this.state.fixedActivations.set(key, fixed);
      }
      v = { kind: target.kind, kindKey: key, object: convertObject(this.object, this.#ownKind, target.kind), fixed, dirty: false };
      this.#versioned.set(key, v);
    }
    return v;
  }

  /**
   * The activation of `invocation` on `v`'s object as mutated so far. Each object the request sees (the input, then
   * one per applied mutation) is converted to CEL values once per kind, and each target's `request` once: objects
   * are never changed in place, so identity is enough.
   */
  activationFor(invocation: Invocation, v: Versioned): ScopedActivation {
    const { state, request } = this;
    const current = v.object;
    let withObject = state.objectActivations.get(v.kindKey);
    if (withObject === undefined) state.objectActivations.set(v.kindKey, (withObject = new WeakMap()));
    let base = typeof current === 'object' && current !== null ? withObject.get(current) : undefined;
    if (base === undefined) {
      const cel = jsonToCelValueAfter(current ?? null, state.lastConverted.get(v.kindKey));
      state.lastConverted.set(v.kindKey, { json: current ?? null, cel });
      base = v.fixed.withCelObject(cel);
      if (typeof current === 'object' && current !== null) withObject.set(current, base);
    }
    let celRequest_ = state.celRequests.get(invocation.requestKey);
    if (celRequest_ === undefined) state.celRequests.set(invocation.requestKey, (celRequest_ = toCelValue(celRequest(request, invocation.target))));
    let invoked = base.withRequest(celRequest_);
    if (invocation.policy.usesAuthorizer) invoked = invoked.withAuthorizer(authorizerBinding(request, this.authorizer));
    // a fresh variables map per evaluation, as upstream builds one per activation (composition.go Variables)
    if (invocation.policy.variables.length === 0) return { activation: invoked, options: this.#options };
    const variables = new PolicyVariables(invocation.policy.variables, invoked);
    return { activation: invoked.withVariables(variables.values), options: { deadline: this.ctx.deadline, signal: this.ctx.signal, variables } };
  }
}
