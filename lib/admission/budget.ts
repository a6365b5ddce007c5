// The runtime CEL cost budget of a policy (k8s.io/apiserver pkg/apis/cel/config.go), charged as upstream's
// plugin/cel does: each evaluation group (one ConditionEvaluator.ForInput, condition.go) evaluates all of its
// expressions in order, and after each one charges its actual cost plus that of the composition variables it read
// first in the group (activation.go Evaluate); a group that overdraws its budget returns no results, only an error
// with OUT_OF_BUDGET. Each expression keeps its own per-call limit besides (celconfig.PerCallLimit, lib/cel).
import { AuthorizationPending } from '../cel/index.js';
import type { CelActivation, CompiledExpression, CostMeter, EvaluationOptions } from '../cel/index.js';
import type { PolicyVariables } from './activation.js';

/** celconfig.RuntimeCELCostBudget: validations (then messageExpressions), auditAnnotations, each mutation. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** celconfig.RuntimeCELCostBudgetMatchConditions: all matchConditions of a policy or webhook together. */
export const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
/** activation.go Evaluate's cel.Error Detail when the budget runs out (wrapping cel.ErrOutOfBudget). */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

export type Outcome = { readonly value: unknown } | { readonly error: string };

export interface GroupOptions {
  /** the policy's composition variables, charged once per group that reads them */
  readonly variables?: PolicyVariables | undefined;
  readonly deadline?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** A group that stayed within its budget: one outcome per expression (undefined where there was none). */
export interface GroupResult {
  readonly outcomes: ReadonlyArray<Outcome | undefined>;
  /** the budget left, which the messageExpressions of a policy's validations go on with */
  readonly remaining: number;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** activation.go Evaluate's wording for an expression that failed. */
export function evaluationError(expression: string, err: unknown): string {
  return `expression '${expression}' resulted in error: ${errorMessage(err)}`;
}

/** The outcome of every expression that evaluated to true (outcomes are read, never written). */
const holds: Outcome = Object.freeze({ value: true });

/**
 * Evaluates `expressions` in order against one budget (an undefined entry is a placeholder, as upstream's nil
 * accessor: skipped at no cost). Undefined when the budget ran out: upstream's ForInput then returns only its error,
 * whatever the expressions before had found.
 */
export function evaluateGroup(
  expressions: ReadonlyArray<CompiledExpression | undefined>,
  activation: CelActivation | Record<string, unknown>,
  budget: number,
  options: GroupOptions = {},
): GroupResult | undefined {
  const variables = options.variables;
  variables?.startGroup();
  const meter: CostMeter = { cost: 0 };
  // one shape whatever is set (no spread of optional parts): an absent deadline or signal reads as undefined
  const evaluation: EvaluationOptions = { meter, deadline: options.deadline, signal: options.signal };
  const outcomes = new Array<Outcome | undefined>(expressions.length);
  let remaining = budget;
  for (let i = 0; i < expressions.length; i++) {
    const compiled = expressions[i];
    if (compiled === undefined) continue;
    meter.cost = 0;
    let outcome: Outcome;
    try {
      const value = compiled.evaluate(activation, evaluation);
      // a validation or condition that holds (nearly every one) shares one outcome: nothing allocated for it
      outcome = value === true ? holds : { value };
    } catch (err) {
      // not an outcome: the whole policy is evaluated again once the check is answered (admission/authorization.ts)
      if (err instanceof AuthorizationPending) throw err;
      outcome = { error: evaluationError(compiled.expression, err) };
    }
    // the variables' cost first, then the expression's: either overdrawing ends the group the same way
    remaining -= (variables?.takeCost() ?? 0) + meter.cost;
    if (remaining < 0) return undefined;
    outcomes[i] = outcome;
  }
  return { outcomes, remaining };
}
