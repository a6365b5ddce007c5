// The MutatingAdmissionPolicy plugin's state across the two passes of one request (upstream's policyReinvokeContext,
// S/admission/plugin/policy/mutating/reinvocationcontext.go): which IfNeeded invocations ran since the object last
// changed, which must run again in the second pass, and the object the plugin last handed on, so a change made by a
// later plugin (the webhooks) is noticed.
import { equalJson } from '../../json/index.js';
import type { PrunedSubtrees } from './typed-object.js';
import type { CelActivation, ConvertedVersion } from '../../cel/index.js';
import { defaultedParts } from '../defaulting/index.js';
import type { DefaultedParts } from '../defaulting/index.js';

/** An invocation: policy and binding names (params are not supported, so they add nothing). */
export type InvocationKey = string;

export function invocationKey(policy: string, binding: string): InvocationKey {
  return `${policy}\u0000${binding}`;
}

export class PolicyReinvocationState {
  #lastOutput: unknown = undefined;
  #hasOutput = false;
  #previouslyInvoked = new Set<InvocationKey>();
  #reinvoke = new Set<InvocationKey>();
  /** per kind invoked: the version of the object last converted to CEL values, with them (the next shares most) */
  readonly lastConverted = new Map<string, ConvertedVersion>();
  /** per kind invoked ("group/version/kind"): each version of the object met, with its activation */
  readonly objectActivations = new Map<string, WeakMap<object, CelActivation>>();
  /** per kind invoked: oldObject, params and namespaceObject as CEL values (the same in both passes) */
  readonly fixedActivations = new Map<string, CelActivation>();
  /** `request` as CEL values, per invocation target ("group/version/kind group/version/resource") */
  readonly celRequests = new Map<string, unknown>();
  /** the subtrees of this request's objects already pruned as their Go type (typed-object.ts) */
  readonly prunedSubtrees: PrunedSubtrees = new WeakMap();
  /** the parts of this request's objects proved to need no defaults (defaulting/object.ts) */
  readonly defaultedParts: DefaultedParts = defaultedParts();
  /** per object kind ("apiVersion kind"): the last version that decoded strictly after a JSON Patch */
  readonly lastDecoded = new Map<string, unknown>();

  shouldReinvoke(key: InvocationKey): boolean {
    return this.#reinvoke.has(key);
  }

  /** Whether the object differs from what this plugin handed on last time. */
  outputChangedSinceLastInvocation(object: unknown): boolean {
    return !this.#hasOutput || (this.#lastOutput !== object && !equalJson(this.#lastOutput, object));
  }

  /** Keeps the object itself: the chain never changes an object in place (lib/admission/mutation.ts). */
  setLastInvocationOutput(object: unknown): void {
    this.#hasOutput = true;
    this.#lastOutput = object ?? null;
  }

  addReinvocable(key: InvocationKey): void {
    this.#previouslyInvoked.add(key);
  }

  /** The object changed: every IfNeeded invocation that ran before the change runs again in the second pass. */
  requireReinvokingPreviouslyInvoked(): void {
    if (this.#previouslyInvoked.size === 0) return;
    for (const key of this.#previouslyInvoked) this.#reinvoke.add(key);
    this.#previouslyInvoked = new Set();
  }
}
