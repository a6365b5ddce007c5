// The ValidatingAdmissionWebhook plugin's dispatch (S/admission/plugin/webhook/validating/dispatcher.go): every
// matching webhook is called in parallel with the same serialized review; the first denial decides and the calls
// still running are cancelled. A failed call follows the webhook's failurePolicy: Fail denies with
// `Internal error occurred: failed calling webhook "<name>": …`, Ignore admits, counts the fail-open and adds the
// `failed-open.validating.webhook.admission.k8s.io/round_0_index_<i>` audit annotation. Metrics and rejection error
// types are upstream's.
//
// Unlike upstream (which waits for every call and returns the first error to arrive), the calls left running after
// a denial are cancelled: they are not recorded in the metrics. When the request deadline passes first, `expire()`
// answers at once as if every call still running had timed out.
import type { AdmissionRequest, Status } from '../../api/admission.js';
import type { Logger } from '../../log/logger.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import { asValidatingCallError, callDeadline, callHook, deadlineExceeded, failurePolicyOf, reviewVersionFor, shouldCallHook, versionedRequest } from './call.js';
import type { Invocation, ShouldCall } from './call.js';
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';
import { CallCancellation } from '../../webhook/client.js';
import type { WebhookClients } from '../../webhook/client.js';
import { AdmissionStatusError, CallingWebhookError, failClosedStatus, requestTimeoutError, toStatusErr } from '../../webhook/errors.js';
import type { WebhookMetrics } from '../../webhook/metrics.js';
import { newReviewUID, serializeReview } from '../../webhook/review.js';
import type { ReviewVersion, VerifiedResponse } from '../../webhook/review.js';
import { setOwn } from '../../json/own.js';

export const validatingFailedOpenKeyPrefix = 'failed-open.validating.webhook.admission.k8s.io/';

/** What the webhooks decided for one request. */
export interface WebhookVerdict {
  readonly allowed: boolean;
  readonly status?: Status;
  readonly warnings: readonly string[];
  /** upstream's keys: `<webhook name>/<key>` and the failed-open keys; the first value of a key stays */
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** Calls in flight for one request. */
export interface PendingWebhooks {
  readonly done: Promise<WebhookVerdict>;
  /** the verdict now, every call still running counted as timed out; their late answers are dropped */
  expire(): WebhookVerdict;
}

export interface WebhookContext {
  /** epoch ms: when the answer is due */
  readonly deadline: number;
  readonly signal: AbortSignal;
}

export interface ValidatingWebhooksOptions {
  readonly clients: WebhookClients;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  /** the ExcludeAdmissionWebhookVirtualResources feature gate */
  readonly excludeWebhookVirtualResources: boolean;
  /** answers `authorizer` checks in matchConditions */
  readonly authorization?: SubjectAccessReviewClient;
}

export const allowedVerdict: WebhookVerdict = Object.freeze({ allowed: true, warnings: Object.freeze([]) as readonly string[], auditAnnotations: Object.freeze({}) });

type Outcome =
  | { readonly ok: VerifiedResponse }
  | { readonly error: CallingWebhookError | AdmissionStatusError };

interface Call {
  readonly index: number;
  readonly invocation: Invocation;
  readonly name: string;
  readonly startedAt: number;
  /** the time the call was given (its `?timeout=`) */
  readonly timeoutMs: number;
  settled: boolean;
}

export class ValidatingWebhookDispatcher {
  constructor(private readonly options: ValidatingWebhooksOptions) {}

  /**
   * Matches and starts the calls: a verdict at once when nothing is to be called (or matching already denies),
   * else the calls in flight.
   */
  dispatch(hooks: readonly StaticWebhook[], request: AdmissionRequest, ctx: WebhookContext): WebhookVerdict | PendingWebhooks {
    const invocations: Invocation[] = [];
    for (let i = 0; i < hooks.length; i++) {
      const should = this.shouldCall(hooks[i]!, request, ctx);
      // a matchCondition waits for SubjectAccessReviews: the rest of the matching continues once they are answered
      if (should instanceof Promise) return this.dispatchLater(hooks, i, should, invocations, request, ctx);
      if ('deny' in should) return { allowed: false, status: should.deny, warnings: [], auditAnnotations: {} };
      if ('call' in should) invocations.push(should.call);
    }
    return this.afterMatching(invocations, request, ctx);
  }

  private shouldCall(hook: StaticWebhook, request: AdmissionRequest, ctx: WebhookContext): ShouldCall | Promise<ShouldCall> {
    const { authorization } = this.options;
    return shouldCallHook(hook, request, {
      excludeWebhookVirtualResources: this.options.excludeWebhookVirtualResources, deadline: ctx.deadline, signal: ctx.signal,
      metrics: { recorder: this.options.metrics, type: 'validating' }, ...(authorization === undefined ? {} : { authorization }),
    });
  }

  private afterMatching(invocations: readonly Invocation[], request: AdmissionRequest, ctx: WebhookContext): WebhookVerdict | PendingWebhooks {
    if (invocations.length === 0) return allowedVerdict;
    if (ctx.signal.aborted || Date.now() >= ctx.deadline) return { allowed: false, status: requestTimeoutError(), warnings: [], auditAnnotations: {} };
    return this.start(invocations, request, ctx);
  }

  /** dispatch from hook `i` on, whose matching is `first`: expiring while matching answers the request timeout. */
  private dispatchLater(hooks: readonly StaticWebhook[], i: number, first: Promise<ShouldCall>, invocations: Invocation[], request: AdmissionRequest, ctx: WebhookContext): PendingWebhooks {
    let started: PendingWebhooks | undefined;
    let expired: WebhookVerdict | undefined;
    const done = (async (): Promise<WebhookVerdict> => {
      let pending: ShouldCall | Promise<ShouldCall> = first;
      for (let j = i; j < hooks.length; j++) {
        if (j > i) pending = this.shouldCall(hooks[j]!, request, ctx);
        const should = pending instanceof Promise ? await pending : pending;
        if (expired !== undefined) return expired;
        if ('deny' in should) return { allowed: false, status: should.deny, warnings: [], auditAnnotations: {} };
        if ('call' in should) invocations.push(should.call);
      }
      const next = this.afterMatching(invocations, request, ctx);
      if (isVerdict(next)) return next;
      started = next;
      return next.done;
    })();
    return {
      done,
      expire(): WebhookVerdict {
        if (started !== undefined) return started.expire();
        expired ??= { allowed: false, status: requestTimeoutError(), warnings: [], auditAnnotations: {} };
        return expired;
      },
    };
  }

  private start(invocations: readonly Invocation[], request: AdmissionRequest, ctx: WebhookContext): PendingWebhooks {
    const { clients, metrics, logger } = this.options;
    const operation = request.operation ?? '';
    const warnings: string[] = [];
    const auditAnnotations: Record<string, string> = {};
    const cancel = new CallCancellation();
    // the apiserver went away or the server is closing: nothing will read the answer
    const onParentAbort = (): void => void finish({ allowed: false, status: requestTimeoutError(), warnings, auditAnnotations });
    ctx.signal.addEventListener('abort', onParentAbort, { once: true });
    let decided: WebhookVerdict | undefined;
    let resolveDone!: (v: WebhookVerdict) => void;
    const done = new Promise<WebhookVerdict>((r) => { resolveDone = r; });
    let pending = invocations.length;

    const finish = (verdict: WebhookVerdict): WebhookVerdict => {
      if (decided !== undefined) return decided;
      decided = verdict;
      // cancel the calls still running (none when every call answered)
      if (pending > 0) cancel.abort();
      ctx.signal.removeEventListener('abort', onParentAbort);
      resolveDone(verdict);
      return verdict;
    };
    const deny = (status: Status): void => {
      finish({ allowed: false, status, warnings, auditAnnotations });
    };
    const annotate = (key: string, value: string): void => {
      if (!Object.hasOwn(auditAnnotations, key)) setOwn(auditAnnotations, key, value);
    };

    /** upstream's per-call bookkeeping; returns the denial, if this outcome denies */
    const record = (call: Call, outcome: Outcome): Status | undefined => {
      const { name } = call;
      const seconds = (performance.now() - call.startedAt) / 1000;
      const ignore = failurePolicyOf(call.invocation.hook) === 'Ignore';
      if ('ok' in outcome) {
        const r = outcome.ok;
        for (const [k, v] of Object.entries(r.auditAnnotations)) annotate(`${name}/${k}`, v);
        warnings.push(...r.warnings);
        if (r.allowed) {
          metrics.observeWebhook(name, 'validating', operation, false, 200, seconds);
          return undefined;
        }
        const status = toStatusErr(name, r.result);
        metrics.observeRejection(name, 'validating', operation, 'no_error', status.code ?? 0);
        metrics.observeWebhook(name, 'validating', operation, true, status.code ?? 0, seconds);
        logger.v(2).info('Rejected by webhook', { webhook: name, configuration: call.invocation.hook.configurationName, code: status.code ?? 0 });
        return status;
      }
      const err = outcome.error;
      if (err instanceof AdmissionStatusError) {
        metrics.observeRejection(name, 'validating', operation, 'apiserver_internal_error', 0);
        metrics.observeWebhook(name, 'validating', operation, true, 0, seconds);
        return err.status;
      }
      const code = err.status.code ?? 0;
      if (ignore) {
        metrics.observeWebhook(name, 'validating', operation, false, code, seconds);
        metrics.observeFailOpen(name, 'validating');
        annotate(`${validatingFailedOpenKeyPrefix}round_0_index_${call.index}`, name);
        logger.info('Failed calling webhook, failing open', { webhook: name, failureKind: err.kind, err: err.message });
        return undefined;
      }
      metrics.observeRejection(name, 'validating', operation, 'calling_webhook_error', code);
      metrics.observeWebhook(name, 'validating', operation, true, code, seconds);
      logger.info('Failed calling webhook, failing closed', { webhook: name, failureKind: err.kind, err: err.message });
      return failClosedStatus(err);
    };

    // one serialization (and one uid) per review version and matched kind: the same bytes go to every webhook
    const bodies = new Map<string, { uid: string; body: Buffer; version: ReviewVersion }>();
    const calls: Call[] = invocations.map((invocation, index) => ({
      index, invocation, name: invocation.hook.webhook.name ?? '', startedAt: performance.now(), timeoutMs: callDeadline(invocation.hook, ctx.deadline) - Date.now(), settled: false,
    }));
    for (const call of calls) {
      const settle = (outcome: Outcome): void => {
        if (call.settled || decided !== undefined) return;
        if ('error' in outcome && outcome.error instanceof CallingWebhookError && outcome.error.kind === 'canceled') return;
        call.settled = true;
        pending--;
        const denial = record(call, outcome);
        if (denial !== undefined) deny(denial);
        else if (pending === 0) finish({ allowed: true, warnings, auditAnnotations });
      };
      const version = reviewVersionFor(call.invocation.hook);
      if (version instanceof CallingWebhookError) {
        settle({ error: version });
        continue;
      }
      const t = call.invocation.target;
      const key = `${version}\u0000${t.kind.group}/${t.kind.version}/${t.kind.kind}\u0000${t.resource.group}/${t.resource.version}/${t.resource.resource}/${t.subResource}`;
      let review = bodies.get(key);
      if (review === undefined) {
        const uid = newReviewUID();
        const versioned = versionedRequest(request, request.object, t);
        review = { uid, version, body: serializeReview(versioned, t, versioned.object, version, uid) };
        bodies.set(key, review);
      }
      callHook(clients, call.invocation.hook, {
        body: review.body, uid: review.uid, version, mutating: false, deadline: ctx.deadline, signal: cancel, dryRun: request.dryRun === true,
      }).then(
        (ok) => settle({ ok }),
        (error: unknown) => {
          if (error instanceof CallingWebhookError || error instanceof AdmissionStatusError) settle({ error });
          else settle({ error: new AdmissionStatusError({ metadata: {}, status: 'Failure', message: `Internal error occurred: ${String(error)}`, reason: 'InternalError', code: 500 }) });
        },
      );
      if (decided !== undefined) break;
    }

    return {
      done,
      expire(): WebhookVerdict {
        if (decided !== undefined) return decided;
        let denial: Status | undefined;
        for (const call of calls) {
          if (call.settled) continue;
          // still in flight: `pending` keeps counting it, so finish() cancels it
          call.settled = true;
          const status = record(call, { error: asValidatingCallError(deadlineExceeded(call.invocation.hook, call.timeoutMs)) });
          denial ??= status;
        }
        return finish(denial === undefined ? { allowed: true, warnings, auditAnnotations } : { allowed: false, status: denial, warnings, auditAnnotations });
      },
    };
  }
}

/** Whether a dispatch answered at once. */
export function isVerdict(v: WebhookVerdict | PendingWebhooks): v is WebhookVerdict {
  return 'allowed' in v;
}
