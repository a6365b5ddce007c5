// `authorizer` for one request: the CEL values bound to it, and the checks they make, answered with
// SubjectAccessReviews to the apiserver (--authorization-kubeconfig) and cached for the request as upstream's
// CachingAuthorizer caches them (k8s.io/apiserver pkg/admission/plugin/authorizer/caching_authorizer.go; the
// validating and mutating policy dispatchers make one per dispatch).
//
// Why evaluation is repeated: CEL evaluates synchronously here, a SubjectAccessReview takes a round trip. A check
// whose decision is not cached yet throws AuthorizationPending (lib/cel/authorization.ts) out of the evaluation;
// evaluateAuthorized sends the review, caches the decision, and runs the evaluation again from the start. CEL is
// pure, so the second run makes the same checks in the same order, the first now answered from the cache. An
// expression making n distinct checks runs n + 1 times and sends n reviews; nothing else is repeated (lazily
// evaluated variables forget a pending check, see activation.ts). Blocking the thread on the review instead would
// stall every other request the thread serves; answering checks before evaluation is impossible (they depend on
// values computed during it). Only expressions that use `authorizer` take this path.
//
// The authorization attributes become a SubjectAccessReviewSpec as the webhook authorizer builds one
// (plugin/pkg/authorizer/webhook/webhook.go Authorize, resourceAttributesFrom): the user, its uid, groups and extra;
// resourceAttributes (group, version `*`, resource, subresource, namespace, name, verb, field and label selector
// requirements) or nonResourceAttributes (path, verb). Its status is the decision: allowed and denied both set is a
// deny with an error, denied a deny, allowed an allow, neither no opinion; a review that fails is no opinion with
// the error (decision.errored()).
import type { AdmissionRequest } from '../api/admission.js';
import { AuthorizationPending, authorizationError, authorizerValue, requestResourceValue } from '../cel/index.js';
import type { AuthorizationAttributes, AuthorizationChecker, AuthorizationDecision, AuthorizationUser, AuthorizerBinding } from '../cel/index.js';
import type { CancelSignal } from '../webhook/client.js';
import { SubjectAccessReviewError } from '../webhook/subject-access-review.js';
import type { SubjectAccessReviewClient, SubjectAccessReviewSpec } from '../webhook/subject-access-review.js';

/** The evaluation error of a check when the daemon has no way to send SubjectAccessReviews. */
export const NO_AUTHORIZATION_KUBECONFIG =
  'authorizer checks are not available: static-admissiond was started without --authorization-kubeconfig';

function sorted(values: readonly string[]): string[] {
  return [...values].sort();
}

/** caching_authorizer.go: the JSON of the attributes, user groups and extra values sorted. */
export function checkKey(a: AuthorizationAttributes): string {
  const u = a.user;
  const extra = Object.keys(u.extra).sort().map((k) => [k, sorted(u.extra[k] ?? [])]);
  const user = [u.name, u.uid, sorted(u.groups), extra];
  if (!a.resourceRequest) return JSON.stringify([a.verb, a.path, user]);
  const fields = a.fieldSelector !== undefined && a.fieldSelector.requirements.length > 0 ? a.fieldSelector.requirements : null;
  const labels = a.labelSelector !== undefined && a.labelSelector.requirements.length > 0 ? a.labelSelector.text : null;
  return JSON.stringify([a.verb, a.namespace, a.apiGroup, a.apiVersion, a.resource, a.subresource, a.name, fields, labels, user]);
}

/** webhook.go Authorize: the spec of the review for `a`. */
export function subjectAccessReviewSpec(a: AuthorizationAttributes): SubjectAccessReviewSpec {
  const u = a.user;
  const spec: Record<string, unknown> = {};
  if (u.name !== '') spec.user = u.name;
  if (u.uid !== '') spec.uid = u.uid;
  if (u.groups.length > 0) spec.groups = [...u.groups];
  if (Object.keys(u.extra).length > 0) spec.extra = u.extra;
  if (!a.resourceRequest) {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb };
    return spec as SubjectAccessReviewSpec;
  }
  const attrs: Record<string, unknown> = {};
  const set = (k: string, v: string): void => {
    if (v !== '') attrs[k] = v;
  };
  set('namespace', a.namespace);
  set('verb', a.verb);
  set('group', a.apiGroup);
  set('version', a.apiVersion);
  set('resource', a.resource);
  set('subresource', a.subresource);
  set('name', a.name);
  // "If we are able to get any requirements while parsing selectors, use them, even if there's an error."
  if (a.fieldSelector !== undefined && a.fieldSelector.requirements.length > 0) attrs.fieldSelector = { requirements: a.fieldSelector.requirements };
  if (a.labelSelector !== undefined && a.labelSelector.requirements.length > 0) attrs.labelSelector = { requirements: a.labelSelector.requirements };
  spec.resourceAttributes = attrs;
  return spec as SubjectAccessReviewSpec;
}

/** The decision a SubjectAccessReview status stands for (webhook.go, end of Authorize). */
function decisionOf(status: { allowed: boolean; denied?: boolean; reason?: string }): AuthorizationDecision {
  const reason = status.reason ?? '';
  if (status.denied === true && status.allowed) return { decision: 'deny', reason, error: 'webhook subject access review returned both allow and deny response' };
  if (status.denied === true) return { decision: 'deny', reason };
  if (status.allowed) return { decision: 'allow', reason };
  return { decision: 'noOpinion', reason };
}

export interface RequestAuthorizerOptions {
  /** undefined: no --authorization-kubeconfig, every check is an evaluation error */
  readonly client: SubjectAccessReviewClient | undefined;
  /** epoch ms: reviews are cut off then */
  readonly deadline: number;
  readonly signal?: CancelSignal;
}

/** One request's checks (for one plugin dispatch), each reviewed at most once. */
export class RequestAuthorizer implements AuthorizationChecker {
  readonly #decisions = new Map<string, AuthorizationDecision>();
  /** the reviews sent, in order (tests and logs) */
  reviews = 0;

  constructor(private readonly options: RequestAuthorizerOptions) {}

  authorize(attributes: AuthorizationAttributes): AuthorizationDecision {
    if (this.options.client === undefined) throw authorizationError(NO_AUTHORIZATION_KUBECONFIG);
    const key = checkKey(attributes);
    const known = this.#decisions.get(key);
    if (known !== undefined) return known;
    throw new AuthorizationPending(attributes, key);
  }

  /** Sends the review a pending check waits for and caches its decision. */
  async answer(pending: AuthorizationPending): Promise<void> {
    const client = this.options.client;
    if (client === undefined || this.#decisions.has(pending.key)) return;
    let decision: AuthorizationDecision;
    this.reviews++;
    try {
      decision = decisionOf(await client.create(subjectAccessReviewSpec(pending.attributes), this.options.deadline, this.options.signal));
    } catch (err) {
      if (!(err instanceof SubjectAccessReviewError)) throw err;
      decision = { decision: 'noOpinion', reason: '', error: err.message };
    }
    this.#decisions.set(pending.key, decision);
  }
}

/** Runs `evaluate` until it needs no check the authorizer has not answered (see the file comment). */
export async function evaluateAuthorized<T>(authorizer: RequestAuthorizer, evaluate: () => T): Promise<T> {
  for (;;) {
    try {
      return evaluate();
    } catch (err) {
      if (!(err instanceof AuthorizationPending)) throw err;
      await authorizer.answer(err);
    }
  }
}

/** The requesting user as the admission attributes carry it (request.userInfo). */
function userOf(request: AdmissionRequest): AuthorizationUser {
  const u = request.userInfo ?? {};
  return { name: u.username ?? '', uid: u.uid ?? '', groups: u.groups ?? [], extra: u.extra ?? {} };
}

/**
 * `authorizer` and `authorizer.requestResource` for `request` (activation.go newActivation: NewAuthorizerVal,
 * NewResourceAuthorizerVal on the admission attributes, i.e. the original request's resource, subresource,
 * namespace and name).
 */
export function authorizerBinding(request: AdmissionRequest, checker: AuthorizationChecker): AuthorizerBinding {
  const authorizer = authorizerValue(userOf(request), checker);
  const original = request.requestResource != null;
  const resource = (original ? request.requestResource : request.resource) ?? {};
  return {
    authorizer,
    requestResource: requestResourceValue(authorizer, {
      group: resource.group ?? '',
      resource: resource.resource ?? '',
      subresource: (original ? request.requestSubResource : request.subResource) ?? '',
      namespace: request.namespace ?? '',
      name: request.name ?? '',
    }),
  };
}
