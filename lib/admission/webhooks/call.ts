// Deciding whether to call one webhook and calling it: upstream's ShouldCallHook (S/admission/plugin/webhook/
// generic/webhook.go: rules, selectors, then matchConditions under the webhook's failurePolicy) and callHook of
// the two dispatchers (dry-run check, POST, response verification), shared by the validating and mutating sides.
import type { AdmissionRequest, Status } from '../../api/admission.js';
import { celRequest } from '../activation.js';
import { convertObject, sameKind } from '../conversion/index.js';
import type { MatchedTarget } from '../activation.js';
import { matchWebhook } from '../matching/webhook.js';
import { decideMatch, matchConditions } from '../match-conditions.js';
import type { MatchResult } from '../match-conditions.js';
import { evaluateGroup, MATCH_CONDITIONS_COST_BUDGET } from '../budget.js';
import type { Outcome } from '../budget.js';
import { forbiddenStatus } from '../status.js';
import { CelActivation } from '../../cel/index.js';
import { authorizerBinding, evaluateAuthorized, RequestAuthorizer } from '../authorization.js';
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import { httpStatusError, postURLFor } from '../../webhook/client.js';
import type { CancelSignal, WebhookClients } from '../../webhook/client.js';
import type { WebhookMetrics, WebhookType } from '../../webhook/metrics.js';
import type { FailureKind } from '../../webhook/errors.js';
import { badRequest, CallingWebhookError, dryRunUnsupported, internalError, serviceUnavailable } from '../../webhook/errors.js';
import { negotiateVersion, noKnownVersionMessage, verifyResponse } from '../../webhook/review.js';
import type { ReviewVersion, VerifiedResponse } from '../../webhook/review.js';

/** A webhook to call for this request, and with what. */
export interface Invocation {
  readonly hook: StaticWebhook;
  readonly target: MatchedTarget;
}

export type ShouldCall =
  | { readonly call: Invocation }
  | { readonly skip: true }
  /** the request is denied before any call (upstream returns a StatusError from ShouldCallHook) */
  | { readonly deny: Status };

export interface ShouldCallOptions {
  readonly excludeWebhookVirtualResources: boolean;
  readonly deadline: number;
  readonly signal: AbortSignal;
  /** the match-condition metrics are recorded under this type ('validating' or 'admit') */
  readonly metrics?: { readonly recorder: WebhookMetrics; readonly type: WebhookType };
  /** answers the `authorizer` checks of matchConditions (none: each check is an evaluation error) */
  readonly authorization?: SubjectAccessReviewClient;
}

/**
 * The request with object and oldObject in the invocation's kind (upstream's VersionedAttributes: a webhook matched
 * through matchPolicy Equivalent gets the object converted, kind/resource the matched version, requestKind/
 * requestResource what was sent). `object` is the object as it stands, in the request's kind.
 */
export function versionedRequest(request: AdmissionRequest, object: unknown, target: MatchedTarget): AdmissionRequest {
  const own = request.kind ?? target.kind;
  if (sameKind(own, target.kind)) return object === request.object ? request : { ...request, object };
  return { ...request, object: convertObject(object ?? null, own, target.kind), oldObject: convertObject(request.oldObject ?? null, own, target.kind) };
}

export function failurePolicyOf(hook: StaticWebhook): 'Fail' | 'Ignore' {
  return hook.webhook.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
}

const usesAuthorizer = new WeakMap<StaticWebhook, boolean>();
function hookUsesAuthorizer(hook: StaticWebhook): boolean {
  let uses = usesAuthorizer.get(hook);
  if (uses === undefined) usesAuthorizer.set(hook, (uses = hook.matchConditions.some((c) => c.compiled.usesAuthorizer === true)));
  return uses;
}

/**
 * ShouldCallHook. `request.object` is the object as it stands (for a mutating chain, as modified so far). A
 * namespaceSelector this daemon cannot decide (namespace labels it cannot see) follows the webhook's failurePolicy:
 * Fail denies with the error, Ignore skips the webhook. A promise only when a matchCondition uses `authorizer`.
 */
export function shouldCallHook(hook: StaticWebhook, request: AdmissionRequest, options: ShouldCallOptions): ShouldCall | Promise<ShouldCall> {
  const decision = matchWebhook(hook, request, { excludeWebhookVirtualResources: options.excludeWebhookVirtualResources });
  if (decision.matches === false) return { skip: true };
  if (decision.matches === 'undecidable') {
    return failurePolicyOf(hook) === 'Ignore' ? { skip: true } : { deny: internalError(decision.error) };
  }
  const target: MatchedTarget = { kind: decision.kind, resource: decision.resource, subResource: decision.subResource };
  if (hook.matchConditions.length === 0) return { call: { hook, target } };
  const versioned = versionedRequest(request, request.object, target);
  const activation = CelActivation.of({
    object: versioned.object ?? null,
    oldObject: versioned.oldObject ?? null,
    // matchconditions/matcher.go: CreateAdmissionRequest(attr, attr.GetResource(), VersionedKind): the matched
    // kind but the original request's resource
    request: celRequest(request, { ...target, resource: request.requestResource ?? request.resource ?? target.resource }),
    params: null,
    // declared for webhook matchConditions (compile.go createEnvForOpts) but never bound by the webhook matcher
    namespaceObject: null,
  });
  const limits = { deadline: options.deadline, signal: options.signal };
  if (!hookUsesAuthorizer(hook)) {
    return conditionsDecide(hook, request, target, matchConditions(hook.matchConditions.map((c) => c.compiled), activation, failurePolicyOf(hook), limits), options);
  }
  // webhook.go passes the apiserver's authorizer itself, not a caching one: each condition's checks are its own;
  // the conditions still share one cost budget (one ForInput)
  return (async () => {
    const outcomes: Outcome[] = [];
    let remaining = MATCH_CONDITIONS_COST_BUDGET;
    for (const c of hook.matchConditions) {
      const authorizer = new RequestAuthorizer({ client: options.authorization, deadline: options.deadline, signal: options.signal });
      const bound = activation.withAuthorizer(authorizerBinding(request, authorizer));
      const group = await evaluateAuthorized(authorizer, () => evaluateGroup([c.compiled], bound, remaining, limits));
      if (group === undefined) return conditionsDecide(hook, request, target, decideMatch(undefined, failurePolicyOf(hook)), options);
      outcomes.push(group.outcomes[0]!);
      remaining = group.remaining;
    }
    return conditionsDecide(hook, request, target, decideMatch(outcomes, failurePolicyOf(hook)), options);
  })();
}

/** ShouldCallHook on the matcher's verdict (the conditions were all evaluated, as ForInput does). */
function conditionsDecide(hook: StaticWebhook, request: AdmissionRequest, target: MatchedTarget, matched: MatchResult, options: ShouldCallOptions): ShouldCall {
  for (let i = 0; i < matched.evaluationErrors; i++) {
    options.metrics?.recorder.observeMatchConditionEvalError(hook.webhook.name ?? '', options.metrics.type, request.operation ?? '');
  }
  // apierrors.NewForbidden(resource, attr.GetName(), err): the request's name, not the object's
  if (matched.error !== undefined) return { deny: forbiddenStatus(request, matched.error, 'Forbidden', { name: 'request' }) };
  // no match (a false condition, or an error under Ignore) counts as an exclusion
  if (!matched.matches) return excluded(hook, request, options);
  return { call: { hook, target } };
}

function excluded(hook: StaticWebhook, request: AdmissionRequest, options: ShouldCallOptions): ShouldCall {
  options.metrics?.recorder.observeMatchConditionExclusion(hook.webhook.name ?? '', options.metrics.type, request.operation ?? '');
  return { skip: true };
}

/** The version a webhook is sent, or the error upstream gives when it accepts none this side knows. */
export function reviewVersionFor(hook: StaticWebhook): ReviewVersion | CallingWebhookError {
  const version = negotiateVersion(hook.webhook.admissionReviewVersions);
  if (version !== undefined) return version;
  return new CallingWebhookError(hook.webhook.name ?? '', 'client_config', `could not create admission objects: ${noKnownVersionMessage}`, badRequest('error creating admission objects'));
}

/** caBundle (base64 in the manifest) as PEM text, decoded once per webhook. */
const caPEMs = new WeakMap<StaticWebhook, string>();
function caPEMOf(hook: StaticWebhook): string {
  let pem = caPEMs.get(hook);
  if (pem === undefined) {
    const b = hook.webhook.clientConfig?.caBundle;
    pem = typeof b === 'string' && b !== '' ? Buffer.from(b, 'base64').toString('utf8') : '';
    caPEMs.set(hook, pem);
  }
  return pem;
}

const urls = new WeakMap<StaticWebhook, URL>();
/** clientConfig.url, parsed once (throws for an unparsable one) */
export function urlOf(hook: StaticWebhook): URL {
  let url = urls.get(hook);
  if (url === undefined) {
    url = new URL(hook.webhook.clientConfig?.url ?? '');
    urls.set(hook, url);
  }
  return url;
}

/** When a call started now is cut off: its timeoutSeconds (default 10) or the request deadline, whichever is first. */
export function callDeadline(hook: StaticWebhook, requestDeadline: number): number {
  return Math.min(requestDeadline, Date.now() + (hook.webhook.timeoutSeconds ?? 10) * 1000);
}

/** The error of a call cut off at its deadline (what a call still running when the request deadline passes gets). */
export function deadlineExceeded(hook: StaticWebhook, remainingMs: number): CallingWebhookError {
  let postURL = hook.webhook.clientConfig?.url ?? '';
  try {
    postURL = postURLFor(urlOf(hook), remainingMs);
  } catch {
    // an unparsable URL never gets this far
  }
  return new CallingWebhookError(hook.webhook.name ?? '', 'timeout', `failed to call webhook: Post ${JSON.stringify(postURL)}: context deadline exceeded`, serviceUnavailable('error calling webhook'));
}

export interface CallOptions {
  readonly body: Uint8Array;
  readonly uid: string;
  readonly version: ReviewVersion;
  readonly mutating: boolean;
  /** the request's own deadline (epoch ms); the webhook's timeoutSeconds may cut the call earlier */
  readonly deadline: number;
  readonly signal: CancelSignal;
  readonly dryRun: boolean;
}

/** The failures the rest client reports without a Status of its own (transport, timeout, an undecodable answer). */
const callFailureKinds: ReadonlySet<FailureKind> = new Set(['connection_refused', 'connection_error', 'tls', 'timeout', 'canceled', 'malformed']);

/**
 * The validating dispatcher's Status for a failed call: where the mutating one uses NewServiceUnavailable("error
 * calling webhook") and NewInternalError(err) for the REST client, it uses NewBadRequest("error calling webhook") and
 * NewBadRequest("error getting REST client"). Only the metrics' code changes: failing closed is NewInternalError.
 */
export function asValidatingCallError<T>(err: T): T {
  if (!(err instanceof CallingWebhookError)) return err;
  let status: Status | undefined;
  if (callFailureKinds.has(err.kind) && err.status.reason === 'ServiceUnavailable' && err.status.message === 'error calling webhook') status = badRequest('error calling webhook');
  else if (err.kind === 'client_config' && err.reason.startsWith('could not get REST client: ')) status = badRequest('error getting REST client');
  return status === undefined ? err : (new CallingWebhookError(err.webhookName, err.kind, err.reason, status) as T);
}

/** callHook: throws CallingWebhookError, or AdmissionStatusError (dry run refused). */
export async function callHook(clients: WebhookClients, hook: StaticWebhook, options: CallOptions): Promise<VerifiedResponse> {
  if (options.mutating) return callHookAs(clients, hook, options);
  try {
    return await callHookAs(clients, hook, options);
  } catch (err) {
    throw asValidatingCallError(err);
  }
}

async function callHookAs(clients: WebhookClients, hook: StaticWebhook, options: CallOptions): Promise<VerifiedResponse> {
  const name = hook.webhook.name ?? '';
  if (options.dryRun) {
    const sideEffects = hook.webhook.sideEffects;
    if (sideEffects == null) throw new CallingWebhookError(name, 'client_config', 'Webhook SideEffects is nil', badRequest('Webhook SideEffects is nil'));
    if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(name);
  }
  let url: URL;
  try {
    url = urlOf(hook);
  } catch (err) {
    throw new CallingWebhookError(name, 'client_config', `could not get REST client: Unparsable URL: ${(err as Error).message}`, internalError(`Unparsable URL: ${(err as Error).message}`));
  }
  const deadline = callDeadline(hook, options.deadline);
  const raw = await clients.post({ webhookName: name, url, caPEM: caPEMOf(hook) }, { body: options.body, deadline, signal: options.signal });
  if (raw.statusCode < 200 || raw.statusCode > 206) throw httpStatusError(name, raw);
  return verifyResponse(name, options.uid, options.mutating, options.version, raw);
}

