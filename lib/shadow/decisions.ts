// What one policy binding decided for one request, in the words the shadow metric uses, and the comparison of the
// enforced set's decisions with the candidate's.
//
// A decision is the binding's effect on the answer: `deny` (it would reject the request: a failed validation with
// the Deny action, or an error that failurePolicy Fail turns into a rejection), `warn`, `audit` (the same without
// Deny), `allow` (it matched and passed), `error` (it failed to evaluate and failurePolicy Ignore admitted the
// request: the candidate is broken there though the answer would not change). Beside those, a binding of the set that
// did not match is `nomatch`, and a policy or binding the set does not hold is `absent`. A policy that could not be
// matched at all (an undecidable selector) decides under binding "".
import type { PolicyHook } from '../manifest/compile.js';
import type { MutationCheck } from '../admission/mutating/dispatcher.js';
import type { ValidatingPlan, ValidatingVerdict } from '../admission/validating/dispatcher.js';

export type Decision = 'allow' | 'deny' | 'warn' | 'audit' | 'error' | 'nomatch' | 'absent';

/** Every label value a decision can take: the metric's cardinality is bindings × these, squared at most. */
export const decisionValues: readonly Decision[] = ['allow', 'deny', 'warn', 'audit', 'error', 'nomatch', 'absent'];

/** One (policy, binding) of a request as both sets decided it; at least one side matched. */
export interface Comparison {
  readonly policy: string;
  readonly binding: string;
  readonly enforced: Decision;
  readonly shadow: Decision;
}

/** (policy, binding) → decision, for the bindings that matched the request. */
export type Decisions = Map<string, Decision>;

const key = (policy: string, binding: string): string => `${policy}\u0000${binding}`;

/** Stronger effects win when one binding has several outcomes (one per failed validation and action). */
const strength: Readonly<Record<Decision, number>> = { absent: 0, nomatch: 1, allow: 2, error: 3, audit: 4, warn: 5, deny: 6 };

function record(into: Decisions, policy: string, binding: string, decision: Decision): void {
  const k = key(policy, binding);
  const was = into.get(k);
  if (was === undefined || strength[decision] > strength[was]) into.set(k, decision);
}

const onFailure = (failurePolicy: string | null | undefined): Decision => (failurePolicy === 'Ignore' ? 'error' : 'deny');

/** The ValidatingAdmissionPolicy plugin's decisions: its checks, and the policies and bindings it could not match. */
export function validatingDecisions(plan: ValidatingPlan, verdict: ValidatingVerdict): Decisions {
  const decisions: Decisions = new Map();
  for (const p of plan.policies) {
    const name = p.policy.name;
    if (p.decision.policy.matches === 'undecidable') record(decisions, name, '', onFailure(p.policy.failurePolicy));
    p.bindings.forEach((b, i) => {
      if (p.decision.bindings[i]?.matches === 'undecidable') record(decisions, name, b.metadata?.name ?? '', onFailure(p.policy.failurePolicy));
    });
  }
  for (const c of verdict.checks) {
    const ignoredError = c.enforcementAction === 'allow' && c.errorType !== 'no_error';
    record(decisions, c.policy, c.binding, ignoredError ? 'error' : c.enforcementAction);
  }
  return decisions;
}

/**
 * The MutatingAdmissionPolicy plugin's decisions: every binding whose mutations ran is `allow`, or `error` / `deny`
 * when one failed (by the policy's failurePolicy); a denial's causes name the bindings that made it (upstream's
 * `policy 'p' with binding 'b' denied request: …`), so matchCondition and configuration failures count as well.
 */
export function mutatingDecisions(hooks: readonly PolicyHook[], checks: readonly MutationCheck[], denialCauses: readonly string[]): Decisions {
  const decisions: Decisions = new Map();
  const failurePolicy = new Map(hooks.map((h) => [h.policy.metadata?.name ?? '', h.policy.spec?.failurePolicy]));
  for (const c of checks) record(decisions, c.policy, c.binding, c.errorType === 'no_error' ? 'allow' : onFailure(failurePolicy.get(c.policy)));
  if (denialCauses.length === 0) return decisions;
  for (const h of hooks) {
    const policy = h.policy.metadata?.name ?? '';
    if (denialCauses.some((m) => m.startsWith(`policy ${JSON.stringify(policy)} denied request: `))) record(decisions, policy, '', 'deny');
    for (const b of h.bindings) {
      const binding = b.metadata?.name ?? '';
      if (denialCauses.some((m) => m.startsWith(`policy '${policy}' with binding '${binding}' denied request: `))) record(decisions, policy, binding, 'deny');
    }
  }
  return decisions;
}

/** The (policy, binding) pairs a set holds, "" standing for the policy itself; cached per snapshot's hooks. */
const heldCache = new WeakMap<readonly PolicyHook[], ReadonlySet<string>>();

export function heldBindings(hooks: readonly PolicyHook[]): ReadonlySet<string> {
  let held = heldCache.get(hooks);
  if (held === undefined) {
    const set = new Set<string>();
    for (const h of hooks) {
      const policy = h.policy.metadata?.name ?? '';
      set.add(key(policy, ''));
      for (const b of h.bindings) set.add(key(policy, b.metadata?.name ?? ''));
    }
    held = set;
    heldCache.set(hooks, held);
  }
  return held;
}

/**
 * Both sides of every (policy, binding) that matched the request in either set; a binding neither matched is left
 * out, so a request counts only against the policies it concerns.
 */
export function compareDecisions(enforced: { readonly decisions: Decisions; readonly held: ReadonlySet<string> }, shadow: { readonly decisions: Decisions; readonly held: ReadonlySet<string> }): Comparison[] {
  const out: Comparison[] = [];
  const side = (s: typeof enforced, k: string): Decision => s.decisions.get(k) ?? (s.held.has(k) ? 'nomatch' : 'absent');
  for (const k of new Set([...enforced.decisions.keys(), ...shadow.decisions.keys()])) {
    const sep = k.indexOf('\u0000');
    out.push({ policy: k.slice(0, sep), binding: k.slice(sep + 1), enforced: side(enforced, k), shadow: side(shadow, k) });
  }
  return out;
}
