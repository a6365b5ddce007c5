// matchConditions of a policy or webhook (webhook/matchconditions/matcher.go Match): every condition is evaluated, as
// one group within celconfig.RuntimeCELCostBudgetMatchConditions; an overrun is the error; otherwise the first false
// condition decides "no match", whatever the others did; otherwise evaluation errors, aggregated, are the error.
// Under failurePolicy Ignore an error means "no match".
import type { CelActivation, CompiledExpression } from '../cel/index.js';
import { evaluateGroup, MATCH_CONDITIONS_COST_BUDGET, OUT_OF_BUDGET } from './budget.js';
import type { GroupOptions, Outcome } from './budget.js';

export interface MatchResult {
  readonly matches: boolean;
  /** set under failurePolicy Fail: the error the request fails with */
  readonly error?: string;
  /** conditions that failed to evaluate before the deciding one (what upstream counts in its error metric) */
  readonly evaluationErrors: number;
}

/** utilerrors.NewAggregate(...).Error(): one message as is, several as `[a, b]` with repeats dropped. */
export function aggregateErrors(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

export function matchConditions(
  conditions: readonly CompiledExpression[],
  activation: CelActivation | Record<string, unknown>,
  failurePolicy: 'Fail' | 'Ignore',
  options: GroupOptions = {},
): MatchResult {
  return decideMatch(evaluateGroup(conditions, activation, MATCH_CONDITIONS_COST_BUDGET, options)?.outcomes, failurePolicy);
}

/** Match's verdict on the conditions' outcomes, in order; undefined when they ran out of budget. */
export function decideMatch(outcomes: ReadonlyArray<Outcome | undefined> | undefined, failurePolicy: 'Fail' | 'Ignore'): MatchResult {
  // the filter's own error: not an evaluation error, so none is counted
  if (outcomes === undefined) return failurePolicy === 'Ignore' ? { matches: false, evaluationErrors: 0 } : { matches: false, error: OUT_OF_BUDGET, evaluationErrors: 0 };
  const errors: string[] = [];
  for (const outcome of outcomes) {
    if (outcome === undefined) continue;
    if ('error' in outcome) errors.push(outcome.error);
    else if (outcome.value === false) return { matches: false, evaluationErrors: errors.length };
  }
  if (errors.length === 0) return { matches: true, evaluationErrors: 0 };
  if (failurePolicy === 'Ignore') return { matches: false, evaluationErrors: errors.length };
  return { matches: false, error: aggregateErrors(errors), evaluationErrors: errors.length };
}
