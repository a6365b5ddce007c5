// What the CEL `authorizer` library (runtime/k8s/authz.ts) asks of whoever evaluates: authorization checks, as
// upstream's authorizer.Attributes (k8s.io/apiserver pkg/authorization/authorizer/interfaces.go) built by
// pkg/cel/library/authz.go. Answering them is not lib/cel's business: the caller binds an AuthorizationChecker.
//
// CEL evaluation here is synchronous, a SubjectAccessReview is not. A checker that has no answer yet throws
// AuthorizationPending; evaluation stops (the error is never absorbed by `||`, `&&` or the quantifier macros, and
// lazily evaluated variables do not remember it), the caller obtains the decision, and evaluates again from the
// start. CEL is deterministic, so the second evaluation reaches the same check with the same attributes and gets
// the decision at once; a third check suspends it again, and so on (lib/admission/authorization.ts).

/** user.Info of the check: the requesting user, or a service account (`authorizer.serviceAccount(ns, name)`). */
export interface AuthorizationUser {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[] | null>>;
}

/** fields.Requirement and labels.Requirement as the webhook authorizer sends them (In, NotIn, Exists, DoesNotExist). */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

/** A parsed selector: its requirements (what can be used even when parsing failed part-way), and the error. */
export interface ParsedSelector {
  readonly requirements: readonly SelectorRequirement[];
  readonly error?: string;
  /** labels.Requirements.String() of what parsed (the caching authorizer's key for label selectors) */
  readonly text: string;
}

/** authorizer.AttributesRecord of a resource check (`resourceRequest`) or a non-resource check (`path`). */
export type AuthorizationAttributes =
  | {
      readonly resourceRequest: true;
      readonly user: AuthorizationUser;
      readonly verb: string;
      readonly apiGroup: string;
      /** always `*` for CEL checks (authz.go resourceCheckVal.Authorize) */
      readonly apiVersion: string;
      readonly resource: string;
      readonly subresource: string;
      readonly namespace: string;
      readonly name: string;
      readonly fieldSelector?: ParsedSelector;
      readonly labelSelector?: ParsedSelector;
    }
  | {
      readonly resourceRequest: false;
      readonly user: AuthorizationUser;
      readonly verb: string;
      readonly path: string;
    };

/** An authorizer.Decision with its reason and error, as `check()` returns it. */
export interface AuthorizationDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
  /** set when the authorizer failed (decision.errored() is true, decision.error() returns it) */
  readonly error?: string;
}

/** Answers checks synchronously, or throws AuthorizationPending (or a CEL error) when it cannot. */
export interface AuthorizationChecker {
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision;
}

/** Thrown out of an evaluation that reached a check nobody has answered yet. Not a CEL error. */
export class AuthorizationPending extends Error {
  override readonly name = 'AuthorizationPending';
  constructor(
    readonly attributes: AuthorizationAttributes,
    /** the checker's key for the check (so that whoever answers it need not compute it again) */
    readonly key: string,
  ) {
    super('an authorization check is pending');
  }
}

/** library/cost.go CallCost: "An authorization check has a fixed cost", both estimated and actual. */
export const AUTHORIZATION_CHECK_COST = 350_000;

/** A CEL evaluation error raised by a checker (absorbed by `||` and friends like any other CEL error). */
export { celError as authorizationError } from './runtime/values.js';
