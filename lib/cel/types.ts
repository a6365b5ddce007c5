// The public shapes of the CEL compile layer: what callers ask to compile and what they get back.
// Nothing here runs; see compile.ts for the behaviour.
import type { CelActivation } from './activation.js';

/** Limits of one evaluation. */
export interface EvaluationOptions {
  /** runtime cost budget; defaults to Kubernetes' per-call limit, 1,000,000 */
  readonly costLimit?: number;
  /** epoch milliseconds (Date.now() clock) after which evaluation stops with an error */
  readonly deadline?: number;
  /** evaluation stops with an error once this is aborted */
  readonly signal?: AbortSignal;
  /** checked periodically during evaluation; returning true stops it with an error */
  readonly interrupted?: () => boolean;
  /**
   * receives the evaluation's actual runtime cost (added to `cost`), whether it returned or threw: what upstream
   * charges against a policy's cost budget (cel-go EvalDetails.ActualCost)
   */
  readonly meter?: CostMeter;
}

/** Where evaluate() adds the runtime cost it spent. */
export interface CostMeter {
  cost: number;
}

/** Which upstream compiler environment an expression belongs to. */
export type CelEnvironment =
  /** VAP validations[].expression, auditAnnotations valueExpression, variables, matchConditions (with `authorizer`) */
  | 'validatingPolicy'
  /** VAP validations[].messageExpression: the same without `authorizer` (HasAuthorizer false upstream) */
  | 'validatingPolicyMessage'
  /** MAP mutations, variables, matchConditions */
  | 'mutatingPolicy'
  /** Validating/MutatingWebhook matchConditions[].expression (no params, no namespaceObject, no variables; `authorizer`) */
  | 'webhookMatchCondition';

/**
 * The result type a field requires: `bool` (validations, matchConditions), `string` (messageExpression),
 * `stringOrNull` (auditAnnotations valueExpression), `any` (variables), `jsonPatch` (MAP mutations[].jsonPatch:
 * list(JSONPatch) upstream) and `applyConfiguration` (MAP mutations[].applyConfiguration: Object upstream).
 */
export type ExpectedResult = 'bool' | 'string' | 'stringOrNull' | 'any' | 'jsonPatch' | 'applyConfiguration';

/** A message construction (`JSONPatch{…}`, `Object.spec{…}`) in a compiled expression. */
export interface Construction {
  /** the type name, without a leading dot */
  readonly type: string;
  /** UTF-16 offset of the type name in the expression */
  readonly offset: number;
}

export interface CompileRequest {
  expression: string;
  environment: CelEnvironment;
  /** names of the policy's spec.variables declared so far, usable as `variables.<name>` */
  variableNames?: readonly string[];
  /**
   * The output types of those variables, spelled as CompiledExpression.outputType (cel-go `Type.String()`): each
   * `variables.<name>` is declared with its type as composition.go declares it. A name left out (a variable that
   * did not compile) is dyn.
   */
  variableTypes?: Readonly<Record<string, string>>;
  /** false where the environment has no `variables` (a policy's matchConditions); default true */
  composition?: boolean;
  /** whether `params` is declared (the policy has a paramKind); default true in the policy environments */
  params?: boolean;
  /** result type the field requires, compared exactly as compile.go does (a dyn result does not pass) */
  expect?: ExpectedResult;
}

export interface CompiledExpression {
  readonly expression: string;
  /**
   * The statically inferred result type, spelled as cel-go's `Type.String()` (`bool`, `list(dyn)`, `null_type`, …);
   * `dyn` when it is only known at run time. Always set by compileExpression (optional only so that test doubles
   * need not invent one).
   */
  readonly outputType?: string;
  /**
   * The message constructions in the expression, in source order. They evaluate to plain objects (maps) of their
   * fields, e.g. `JSONPatch{op: "add", path: p}` to `{op: 'add', path: p}`; constructionTypeOf() tells the type.
   */
  readonly constructions?: readonly Construction[];
  /**
   * Whether the expression reads `authorizer` or `authorizer.requestResource`: only then can its evaluation throw
   * AuthorizationPending (see authorization.ts).
   */
  readonly usesAuthorizer?: boolean;
  /**
   * The declared variables the expression reads (`object`, `oldObject`, `namespaceObject`, `variables`, …), built-in
   * type names included; absent when not known (read as: it may read any). `replay` uses it to tell whether a policy
   * needs what an audit log lacks.
   */
  readonly variables?: ReadonlySet<string>;
  /**
   * Evaluates with the given activation (object, oldObject, request, params, namespaceObject, variables). Throws
   * CelEvaluationError on an evaluation error, including when the runtime cost exceeds the per-call budget
   * (`operation cancelled: actual cost limit exceeded`) or the deadline passes / the signal aborts
   * (`operation interrupted`).
   */
  evaluate(activation: Record<string, unknown> | CelActivation, options?: EvaluationOptions): unknown;
}

/** Upstream's `apiservercel.ErrorType` of a failed compilation: how a caller reports it as a field error. */
export type CompileErrorType = 'Required' | 'Invalid' | 'InternalError';

export type CompileResult =
  | { ok: true; compiled: CompiledExpression }
  | {
      ok: false;
      /** upstream-style text, e.g. `compilation failed: ERROR: <input>:1:1: …` or `must evaluate to bool but got string` */
      message: string;
      /** `Required` for an empty expression, `Invalid` for compile and type errors, `InternalError` for engine faults */
      errorType?: CompileErrorType;
    };
