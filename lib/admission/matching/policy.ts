// ValidatingAdmissionPolicy / MutatingAdmissionPolicy matching: the policy's spec.matchConstraints, then each
// binding's spec.matchResources.
//
// Upstream: S/admission/plugin/policy/generic/policy_dispatcher.go (Dispatch: DefinitionMatches once per policy,
// then BindingMatches per binding; the matched kind/resource is the definition's), policy_matcher.go (a binding
// without matchResources matches; nil constraints or selectors are configuration errors), S/admission/plugin/policy/
// matching/matching.go (Matches: namespace selector, object selector, excludeResourceRules, resourceRules — an empty
// resourceRules matches — with selector errors reported only when everything else matches) and S/admission/plugin/
// policy/generic/plugin.go (the review resources are excluded before any matching).
//
// Every MatchResources is compiled once, on first use or by prepareMatching, and cached by its owner object (the
// policy or binding of a snapshot, which is immutable).
import type { AdmissionRequest } from '../../api/admission.js';
import type { MatchResources } from '../../api/types.js';
import type { PolicyHook } from '../../manifest/compile.js';
import type { AdmissionPolicy, AdmissionPolicyBinding } from '../../manifest/load.js';
import { SelectorError } from '../../manifest/selector.js';
import { match, noMatch, undecidable } from './decision.js';
import type { Decision, MatchDecision, Undecidable } from './decision.js';
import { compileNamespaceSelector, evaluateNamespaceSelector } from './namespace-selector.js';
import type { CompiledNamespaceSelector } from './namespace-selector.js';
import { compileObjectSelector, matchObjectSelector } from './object-selector.js';
import type { CompiledObjectSelector } from './object-selector.js';
import { requestView } from './request-view.js';
import type { RequestTarget, RequestView } from './request-view.js';
import { compileRules, matchRuleTarget } from './rules.js';
import type { CompiledRules } from './rules.js';

/** One MatchResources (policy matchConstraints or binding matchResources), compiled; one shape for all. */
interface CompiledMatchResources {
  /** a configuration error: the answer whatever the request (the other fields are unused) */
  readonly error: Undecidable | null;
  /** a binding without matchResources: matches every request */
  readonly any: boolean;
  /** null: no resourceRules, which matches any resource */
  readonly rules: CompiledRules | null;
  /** null: no excludeResourceRules */
  readonly exclude: CompiledRules | null;
  readonly objectSelector: CompiledObjectSelector;
  readonly namespaceSelector: CompiledNamespaceSelector;
  /** equal for structurally equal MatchResources (see MatchMemo); -1: not shared */
  readonly shape: number;
}

const emptySelectors = {
  objectSelector: compileObjectSelector({}),
  namespaceSelector: compileNamespaceSelector({}, ''),
};

function configurationError(message: string): CompiledMatchResources {
  return Object.freeze({ error: undecidable(message), any: false, rules: null, exclude: null, ...emptySelectors, shape: -1 });
}

const anyRequest: CompiledMatchResources = Object.freeze({ error: null, any: true, rules: null, exclude: null, ...emptySelectors, shape: -1 });

/** Shape ids by canonical MatchResources text; ids are never reused, so clearing the table only stops sharing. */
const shapes = new Map<string, number>();
const SHAPES_KEPT = 10_000;
let nextShape = 0;

/** The shape of `m`: its JSON with every object's keys sorted (all that evaluate() depends on but the subject). */
function shapeOf(m: MatchResources): number {
  const text = JSON.stringify(m, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value);
  let shape = shapes.get(text);
  if (shape === undefined) {
    if (shapes.size >= SHAPES_KEPT) shapes.clear();
    shapes.set(text, (shape = nextShape++));
  }
  return shape;
}

const nilSelector = (which: string): string => `a nil ${which} selector was passed, please ensure selectors are initialized properly`;

function compileMatchResources(m: MatchResources, subject: string): CompiledMatchResources {
  if (m.namespaceSelector == null) return configurationError(nilSelector('namespace'));
  if (m.objectSelector == null) return configurationError(nilSelector('object'));
  try {
    const resourceRules = m.resourceRules ?? [];
    const excludeRules = m.excludeResourceRules ?? [];
    return Object.freeze({
      error: null,
      any: false,
      rules: resourceRules.length === 0 ? null : compileRules(resourceRules, m.matchPolicy),
      exclude: excludeRules.length === 0 ? null : compileRules(excludeRules, m.matchPolicy),
      objectSelector: compileObjectSelector(m.objectSelector),
      namespaceSelector: compileNamespaceSelector(m.namespaceSelector, subject),
      shape: shapeOf(m),
    });
  } catch (err) {
    if (err instanceof SelectorError) return configurationError(err.message);
    throw err;
  }
}

const compiledPolicies = new WeakMap<AdmissionPolicy, CompiledMatchResources>();
const compiledBindings = new WeakMap<AdmissionPolicyBinding, CompiledMatchResources>();

function subject(owner: AdmissionPolicy | AdmissionPolicyBinding, fallbackKind: string): string {
  return `${owner.kind ?? fallbackKind} "${owner.metadata?.name ?? ''}"`;
}

function compiledPolicy(policy: AdmissionPolicy): CompiledMatchResources {
  let c = compiledPolicies.get(policy);
  if (c === undefined) {
    const constraints = policy.spec?.matchConstraints;
    c = constraints == null
      ? configurationError('policy contained no match constraints, a required field')
      : compileMatchResources(constraints, subject(policy, 'policy'));
    compiledPolicies.set(policy, c);
  }
  return c;
}

function compiledBinding(binding: AdmissionPolicyBinding): CompiledMatchResources {
  let c = compiledBindings.get(binding);
  if (c === undefined) {
    const m = binding.spec?.matchResources;
    c = m == null ? anyRequest : compileMatchResources(m, subject(binding, 'binding'));
    compiledBindings.set(binding, c);
  }
  return c;
}

/**
 * matching.go Matches on one MatchResources: the target (version) matched, an error, or undefined for no match. A
 * policy's constraints decide the version it is invoked with (an unconvertible one is then an error); a binding
 * only says yes or no.
 */
function evaluate(c: CompiledMatchResources, view: RequestView, request: AdmissionRequest): RequestTarget | Undecidable | undefined {
  if (c.error !== null) return c.error;
  const target = c.rules === null ? view.original : matchRuleTarget(c.rules, view);
  if (target === undefined || c.any) return target;
  if (c.exclude !== null) {
    // an exclusion needs no conversion: any version excludes
    const excluded = matchRuleTarget(c.exclude, view);
    if (excluded !== undefined) return 'matches' in excluded ? excluded : undefined;
  }
  if (!matchObjectSelector(c.objectSelector, request)) return undefined;
  const ns = evaluateNamespaceSelector(c.namespaceSelector, view, request);
  if (ns === true) return target;
  return ns === false ? undefined : ns;
}

/**
 * The answers of structurally equal MatchResources in one pass over a snapshot's hooks for one request (its object
 * unchanged): a snapshot's policies and bindings often repeat the same constraints (the bench's 20 policies ask 2
 * questions, not 40), and each is answered once. Undecidable answers name their owner and are not shared.
 */
export class MatchMemo {
  readonly #answers = new Map<number, RequestTarget | undefined>();

  answer(c: CompiledMatchResources, view: RequestView, request: AdmissionRequest): RequestTarget | Undecidable | undefined {
    if (c.shape < 0) return evaluate(c, view, request);
    const answers = this.#answers;
    if (answers.has(c.shape)) return answers.get(c.shape);
    const t = evaluate(c, view, request);
    if (t === undefined || !('matches' in t)) answers.set(c.shape, t);
    return t;
  }
}

function evaluateWith(memo: MatchMemo | undefined, c: CompiledMatchResources, view: RequestView, request: AdmissionRequest): RequestTarget | Undecidable | undefined {
  return memo === undefined ? evaluate(c, view, request) : memo.answer(c, view, request);
}

function definitionDecision(policy: AdmissionPolicy, view: RequestView, request: AdmissionRequest, memo?: MatchMemo): MatchDecision {
  if (view.virtualResource) return noMatch;
  const t = evaluateWith(memo, compiledPolicy(policy), view, request);
  if (t === undefined) return noMatch;
  return 'matches' in t ? t : t.decision;
}

function bindingDecision(binding: AdmissionPolicyBinding, view: RequestView, request: AdmissionRequest, memo?: MatchMemo): Decision {
  const t = evaluateWith(memo, compiledBinding(binding), view, request);
  if (t === undefined) return noMatch;
  return 'matches' in t ? t : match;
}

/**
 * Whether `policy` bound by `binding` applies to the request: the policy's matchConstraints and the binding's
 * matchResources (when set) both match, and the request is not one of the excluded review resources. A match
 * carries the kind/resource the policy's constraints matched. An undecidable policy wins over its bindings (upstream
 * reports a policy configuration error and does not look at them).
 */
export function matchPolicy(policy: AdmissionPolicy, binding: AdmissionPolicyBinding, request: AdmissionRequest): MatchDecision {
  const view = requestView(request);
  const definition = definitionDecision(policy, view, request);
  if (definition.matches !== true) return definition;
  const b = bindingDecision(binding, view, request);
  if (b.matches === 'undecidable') return b;
  return b.matches ? definition : noMatch;
}

export interface PolicyHookDecision {
  /** the policy's matchConstraints (exclusions included) */
  readonly policy: MatchDecision;
  /** one per hook.bindings entry, in order; empty unless `policy` matched */
  readonly bindings: readonly Decision[];
}

const policyNoMatch: PolicyHookDecision = Object.freeze({ policy: noMatch, bindings: Object.freeze([]) });

/**
 * The dispatcher's view of one policy: its constraints once, then every binding's matchResources. `memo`: shared by
 * the calls of one pass over the hooks for this request, while its object stays the same.
 */
export function matchPolicyHook(hook: Pick<PolicyHook, 'policy' | 'bindings'>, request: AdmissionRequest, memo?: MatchMemo): PolicyHookDecision {
  const view = requestView(request);
  const policy = definitionDecision(hook.policy, view, request, memo);
  if (policy === noMatch) return policyNoMatch;
  if (policy.matches !== true) return { policy, bindings: policyNoMatch.bindings };
  const bindings: Decision[] = new Array<Decision>(hook.bindings.length);
  for (let i = 0; i < hook.bindings.length; i++) bindings[i] = bindingDecision(hook.bindings[i]!, view, request, memo);
  return { policy, bindings };
}

/** Compiles a policy's and its bindings' match resources ahead of the first request (idempotent). */
export function preparePolicyHook(hook: Pick<PolicyHook, 'policy' | 'bindings'>): void {
  compiledPolicy(hook.policy);
  for (const b of hook.bindings) compiledBinding(b);
}
