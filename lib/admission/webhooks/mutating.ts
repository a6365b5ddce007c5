// The MutatingAdmissionWebhook plugin of the /mutate chain (S/admission/plugin/webhook/mutating/dispatcher.go and
// reinvocationcontext.go): webhooks are called one after the other in snapshot order (configurations by name,
// webhooks in their order), each sent the object as modified so far, each JSONPatch applied before the next call.
// Reinvocation: a webhook with reinvocationPolicy IfNeeded that was called is called again in the second pass if a
// later webhook (or, between the passes, another plugin) changed the object; a webhook is never called for the first
// time in the second pass. Audit annotations as upstream: `mutation.webhook.admission.k8s.io/round_<r>_index_<i>`
// for every call, `patch.webhook.admission.k8s.io/round_<r>_index_<i>` for every patch applied, and
// `failed-open.mutation.webhook.admission.k8s.io/round_<r>_index_<i>` for a call that failed open.
import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { Status } from '../../api/admission.js';
import type { MutatingPlugin, MutationAttributes, MutationContext, MutationResult } from '../mutation.js';
import type { Logger } from '../../log/logger.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import { callHook, failurePolicyOf, reviewVersionFor, shouldCallHook } from './call.js';
import type { WebhookClients } from '../../webhook/client.js';
import { AdmissionStatusError, CallingWebhookError, failClosedStatus, internalError, requestTimeoutError, serviceUnavailable, toStatusErr } from '../../webhook/errors.js';
import type { WebhookMetrics } from '../../webhook/metrics.js';
import { newReviewUID, serializeReview } from '../../webhook/review.js';

export const patchAuditAnnotationPrefix = 'patch.webhook.admission.k8s.io/';
export const mutationAuditAnnotationPrefix = 'mutation.webhook.admission.k8s.io/';
export const mutationFailedOpenKeyPrefix = 'failed-open.mutation.webhook.admission.k8s.io/';

export interface MutatingWebhooksOptions {
  /** the MutatingAdmissionWebhook snapshot's webhooks, read once per admit call */
  readonly hooks: () => readonly StaticWebhook[];
  readonly clients: WebhookClients;
  readonly metrics: WebhookMetrics;
  readonly logger: Logger;
  readonly excludeWebhookVirtualResources: boolean;
}

/** upstream's webhookReinvokeContext, kept by the chain between the two passes */
interface WebhookReinvokeState {
  lastOutput: unknown;
  /** webhooks (by uid) called with IfNeeded since the object last changed */
  previouslyInvoked: Set<string>;
  /** webhooks to call in the second pass */
  reinvoke: Set<string>;
}

function requireReinvoking(state: WebhookReinvokeState): void {
  for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
  state.previouslyInvoked = new Set();
}

/** apiequality.Semantic.DeepEqual on JSON values */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return (a ?? null) === (b ?? null);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** Go's encoding/json output: HTML-significant characters and line separators escaped. */
function goJSON(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A decoded jsonpatch.Patch marshals each operation as a Go map: keys sorted. */
function sortedOperation(op: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(op).sort().map((k) => [k, op[k]]));
}

export class MutatingWebhookPlugin implements MutatingPlugin {
  readonly name = 'MutatingAdmissionWebhook' as const;
  constructor(private readonly options: MutatingWebhooksOptions) {}

  async admit(attributes: MutationAttributes, ctx: MutationContext): Promise<MutationResult> {
    const { reinvocation } = attributes;
    const state = reinvocation.value<WebhookReinvokeState>('MutatingAdmissionWebhook', () => ({ lastOutput: undefined, previouslyInvoked: new Set(), reinvoke: new Set() }));
    // in-tree plugins (here: MutatingAdmissionPolicy) changed the object since our last pass: reinvoke every eligible webhook
    if (reinvocation.isReinvoke && !jsonEqual(state.lastOutput, attributes.object)) requireReinvoking(state);
    try {
      return await this.dispatch(attributes, ctx, state);
    } finally {
      state.lastOutput = attributes.object;
    }
  }

  private async dispatch(attributes: MutationAttributes, ctx: MutationContext, state: WebhookReinvokeState): Promise<MutationResult> {
    const { clients, metrics, logger } = this.options;
    const { request, reinvocation } = attributes;
    const operation = request.operation ?? '';
    const round = reinvocation.isReinvoke ? 1 : 0;
    const annotate = (key: string, value: string): void => {
      if (!(key in attributes.auditAnnotations)) attributes.auditAnnotations[key] = value;
    };
    const hooks = this.options.hooks();
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i]!;
      const current = { ...request, object: attributes.object };
      const should = shouldCallHook(hook, current, { excludeWebhookVirtualResources: this.options.excludeWebhookVirtualResources, deadline: ctx.deadline, signal: ctx.signal });
      if ('deny' in should) return { allowed: false, status: should.deny };
      if ('skip' in should) continue;
      if (reinvocation.isReinvoke && !state.reinvoke.has(hook.uid)) continue;

      const name = hook.webhook.name ?? '';
      const configuration = hook.configurationName;
      const key = `round_${round}_index_${i}`;
      const startedAt = performance.now();
      let changed = false;
      let error: CallingWebhookError | AdmissionStatusError | undefined;
      let rejection: Status | undefined;
      try {
        const version = reviewVersionFor(hook);
        if (version instanceof CallingWebhookError) throw version;
        const uid = newReviewUID();
        const body = serializeReview(current, should.call.target, attributes.object, version, uid);
        const result = await callHook(clients, hook, { body, uid, version, mutating: true, deadline: ctx.deadline, signal: ctx.signal, dryRun: request.dryRun === true });
        for (const [k, v] of Object.entries(result.auditAnnotations)) annotate(`${name}/${k}`, v);
        attributes.warnings.push(...result.warnings);
        if (!result.allowed) {
          rejection = toStatusErr(name, result.result);
        } else if (result.patch !== undefined) {
          let ops: unknown;
          try {
            ops = JSON.parse(result.patch.toString('utf8'));
            if (!Array.isArray(ops)) throw new Error(`json: cannot unmarshal ${typeof ops} into Go value of type jsonpatch.Patch`);
          } catch (err) {
            throw new CallingWebhookError(name, 'malformed', `received undecodable patch in webhook response: ${(err as Error).message}`, serviceUnavailable('error decoding patch in webhook response'));
          }
          const patch = ops as Operation[];
          if (patch.length > 0) {
            if (attributes.object === null || attributes.object === undefined) {
              throw new AdmissionStatusError(internalError(`admission webhook ${JSON.stringify(name)} attempted to modify the object, which is not supported for this operation`));
            }
            if (result.patchType !== 'JSONPatch') {
              throw new CallingWebhookError(name, 'forbidden_patch', `unsupported patch type ${JSON.stringify(result.patchType)}`, toStatusErr(name, result.result));
            }
            let patched: unknown;
            try {
              patched = fastJsonPatch.applyPatch(attributes.object, patch, true, false).newDocument;
            } catch (err) {
              throw new AdmissionStatusError(internalError(err instanceof Error ? err.message.split('\n', 1)[0]! : String(err)));
            }
            changed = !jsonEqual(attributes.object, patched);
            annotate(`${patchAuditAnnotationPrefix}${key}`, goJSON({ configuration, webhook: name, patch: patch.map((op) => sortedOperation(op as unknown as Record<string, unknown>)), patchType: 'JSONPatch' }));
            attributes.object = patched;
          }
        }
      } catch (err) {
        if (err instanceof CallingWebhookError || err instanceof AdmissionStatusError) error = err;
        else error = new AdmissionStatusError(internalError(err instanceof Error ? err.message : String(err)));
      } finally {
        annotate(`${mutationAuditAnnotationPrefix}${key}`, goJSON({ configuration, webhook: name, mutated: changed }));
      }

      const seconds = (performance.now() - startedAt) / 1000;
      const ignore = failurePolicyOf(hook) === 'Ignore';
      if (error instanceof CallingWebhookError) {
        const code = error.status.code ?? 0;
        if (!ignore && error.kind !== 'canceled') metrics.observeRejection(name, 'admit', operation, 'calling_webhook_error', code);
        metrics.observeWebhook(name, 'admit', operation, !ignore, code, seconds);
      } else if (error instanceof AdmissionStatusError) {
        metrics.observeRejection(name, 'admit', operation, 'apiserver_internal_error', 0);
        metrics.observeWebhook(name, 'admit', operation, true, 0, seconds);
      } else if (rejection !== undefined) {
        metrics.observeRejection(name, 'admit', operation, 'no_error', rejection.code ?? 0);
        metrics.observeWebhook(name, 'admit', operation, true, rejection.code ?? 0, seconds);
      } else {
        metrics.observeWebhook(name, 'admit', operation, false, 200, seconds);
      }
      if (changed) {
        // every IfNeeded webhook called before this change sees the object again in the second pass
        requireReinvoking(state);
        reinvocation.setShouldReinvoke();
      }
      if ('reinvocationPolicy' in hook.webhook && hook.webhook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(hook.uid);

      if (error instanceof CallingWebhookError) {
        if (ignore) {
          if (error.kind !== 'canceled') {
            logger.info('Failed calling webhook, failing open', { webhook: name, failureKind: error.kind, err: error.message });
            metrics.observeFailOpen(name, 'admit');
            annotate(`${mutationFailedOpenKeyPrefix}${key}`, name);
          }
          if (ctx.signal.aborted || Date.now() >= ctx.deadline) return { allowed: false, status: requestTimeoutError() };
          continue;
        }
        logger.info('Failed calling webhook, failing closed', { webhook: name, failureKind: error.kind, err: error.message });
        return { allowed: false, status: failClosedStatus(error) };
      }
      if (error instanceof AdmissionStatusError) return { allowed: false, status: error.status };
      if (rejection !== undefined) {
        logger.v(2).info('Rejected by webhook', { webhook: name, configuration, code: rejection.code ?? 0 });
        return { allowed: false, status: rejection };
      }
    }
    return { allowed: true };
  }
}
