// The MutatingAdmissionWebhook plugin of the /mutate chain (S/admission/plugin/webhook/mutating/dispatcher.go and
// reinvocationcontext.go): webhooks are called one after the other in snapshot order (configurations by name,
// webhooks in their order), each sent the object as modified so far, each JSONPatch applied before the next call.
// Reinvocation: a webhook with reinvocationPolicy IfNeeded that was called is called again in the second pass if a
// later webhook (or, between the passes, another plugin) changed the object; a webhook is never called for the first
// time in the second pass. Audit annotations as upstream: `mutation.webhook.admission.k8s.io/round_<r>_index_<i>`
// for every call, `patch.webhook.admission.k8s.io/round_<r>_index_<i>` for every patch applied, and
// `failed-open.mutation.webhook.admission.k8s.io/round_<r>_index_<i>` for a call that failed open.
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';
import type { Status } from '../../api/admission.js';
import type { MutatingPlugin, MutationAttributes, MutationContext, MutationResult } from '../mutation.js';
import type { Logger } from '../../log/logger.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import { equalJson, stringifyJson } from '../../json/index.js';
import { applyJsonPatch, PatchError } from '../mutating/json-patch.js';
import type { PatchOperation } from '../mutating/json-patch.js';
import { callHook, failurePolicyOf, reviewVersionFor, shouldCallHook, versionedRequest } from './call.js';
import { convertObject } from '../conversion/index.js';
import { defaultObject } from '../defaulting/index.js';
import type { WebhookClients } from '../../webhook/client.js';
import { AdmissionStatusError, CallingWebhookError, failClosedStatus, internalError, requestTimeoutError, serviceUnavailable, toStatusErr } from '../../webhook/errors.js';
import type { WebhookMetrics } from '../../webhook/metrics.js';
import { newReviewUID, serializeReview } from '../../webhook/review.js';
import { setOwn } from '../../json/own.js';

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
  /** answers `authorizer` checks in matchConditions */
  readonly authorization?: SubjectAccessReviewClient;
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

/** Go's encoding/json output: HTML-significant characters and line separators escaped. */
function goJSON(value: unknown): string {
  return stringifyJson(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A decoded jsonpatch.Patch marshals each operation as a Go map: keys sorted. */
function sortedOperation(op: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(op).sort().map((k) => [k, op[k]]));
}

/** A jsonpatch.Patch as DecodePatch leaves it: each operation a map whose fields are read only when applied. */
type DecodedPatch = ReadonlyArray<Record<string, unknown> | null>;

/** The JSON type name Go's encoding/json uses in an UnmarshalTypeError. */
function goKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** jsonpatch.DecodePatch: a JSON array of objects; `null` is an empty patch (as is a `null` element's map). */
function decodePatch(text: string): DecodedPatch {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) throw new Error(`json: cannot unmarshal ${goKind(parsed)} into Go value of type jsonpatch.Patch`);
  for (const op of parsed) {
    if (op !== null && (typeof op !== 'object' || Array.isArray(op))) throw new Error(`json: cannot unmarshal ${goKind(op)} into Go value of type jsonpatch.Operation`);
  }
  return parsed as Array<Record<string, unknown> | null>;
}

/** Operation.Path/From: a field absent or null is missing; any other non-string fails to unmarshal. */
function fieldError(op: Record<string, unknown>, field: 'path' | 'from'): string | undefined {
  const v = op[field];
  if (typeof v === 'string') return undefined;
  if (v === undefined || v === null) return field === 'path' ? 'operation missing path field: missing value' : 'operation, missing from field: missing value';
  return `json: cannot unmarshal ${goKind(v)} into Go value of type string`;
}

/**
 * Patch.Apply (evanphx json-patch v4) of a decoded patch. The port takes typed operations, so an operation whose
 * path or from does not decode is reported here, after the operations before it (and, for move/copy, the from side,
 * which upstream reads before the path) have been applied as upstream would.
 */
function applyDecodedPatch(document: unknown, patch: DecodedPatch): unknown {
  const ops: PatchOperation[] = [];
  for (const raw of patch) {
    const op = raw ?? {};
    // Operation.Kind: a missing or non-string op reads "unknown" (Apply: `Unexpected kind: unknown`)
    const kind = typeof op.op === 'string' ? op.op : 'unknown';
    const known = ['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(kind);
    const hasFrom = kind === 'move' || kind === 'copy';
    const fromError = hasFrom ? fieldError(op, 'from') : undefined;
    if (fromError !== undefined && op.from !== undefined && op.from !== null) {
      applyJsonPatch(document, ops, { failedTest: 'error' });
      throw new PatchError(`${kind} operation failed to decode from: ${fromError}`);
    }
    const pathError = known ? fieldError(op, 'path') : undefined;
    if (pathError !== undefined) {
      // the from side first: moving or copying a value onto itself fails exactly when reading it does (a missing
      // from fails in the port with upstream's message)
      const probe: PatchOperation[] = !hasFrom ? [] : typeof op.from === 'string' ? [{ op: kind, from: op.from, path: op.from }] : [{ op: kind, path: '' }];
      applyJsonPatch(document, [...ops, ...probe], { failedTest: 'error' });
      // add, remove and copy drop the cause (errors.Wrapf(ErrMissing, …)); the others keep it
      const cause = kind === 'add' || kind === 'remove' || kind === 'copy' ? 'missing value' : pathError;
      throw new PatchError(`${kind} operation failed to decode path: ${cause}`);
    }
    const typed: { op: string; path: string; from?: string; value?: unknown } = { op: kind, path: typeof op.path === 'string' ? op.path : '' };
    if (typeof op.from === 'string') typed.from = op.from;
    if (Object.hasOwn(op, 'value')) typed.value = op.value;
    ops.push(typed);
  }
  // upstream's Patch.Apply reports a failed test as an error (the policy plugin's no-op is not used here)
  return applyJsonPatch(document, ops, { failedTest: 'error' });
}

export class MutatingWebhookPlugin implements MutatingPlugin {
  readonly name = 'MutatingAdmissionWebhook' as const;
  private readonly authorization: { readonly authorization?: SubjectAccessReviewClient };
  constructor(private readonly options: MutatingWebhooksOptions) {
    this.authorization = options.authorization === undefined ? {} : { authorization: options.authorization };
  }

  async admit(attributes: MutationAttributes, ctx: MutationContext): Promise<MutationResult> {
    const { reinvocation } = attributes;
    const state = reinvocation.value<WebhookReinvokeState>('MutatingAdmissionWebhook', () => ({ lastOutput: undefined, previouslyInvoked: new Set(), reinvoke: new Set() }));
    // in-tree plugins (here: MutatingAdmissionPolicy) changed the object since our last pass: reinvoke every eligible webhook
    if (reinvocation.isReinvoke && !equalJson(state.lastOutput, attributes.object)) requireReinvoking(state);
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
      if (!Object.hasOwn(attributes.auditAnnotations, key)) setOwn(attributes.auditAnnotations, key, value);
    };
    const hooks = this.options.hooks();
    for (let i = 0; i < hooks.length; i++) {
      const hook = hooks[i]!;
      const current = { ...request, object: attributes.object };
      const matched = shouldCallHook(hook, current, { excludeWebhookVirtualResources: this.options.excludeWebhookVirtualResources, deadline: ctx.deadline, signal: ctx.signal, metrics: { recorder: this.options.metrics, type: 'admit' }, ...this.authorization });
      const should = matched instanceof Promise ? await matched : matched;
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
        // the webhook sees (and patches) the object in the version it matched (upstream's versioned attributes)
        const target = should.call.target;
        const versioned = versionedRequest(current, attributes.object, target);
        const body = serializeReview(versioned, target, versioned.object, version, uid);
        const result = await callHook(clients, hook, { body, uid, version, mutating: true, deadline: ctx.deadline, signal: ctx.signal, dryRun: request.dryRun === true });
        for (const [k, v] of Object.entries(result.auditAnnotations)) annotate(`${name}/${k}`, v);
        attributes.warnings.push(...result.warnings);
        if (!result.allowed) {
          rejection = toStatusErr(name, result.result);
        } else if (result.patch !== undefined) {
          let patch: DecodedPatch;
          try {
            patch = decodePatch(result.patch.toString('utf8'));
          } catch (err) {
            throw new CallingWebhookError(name, 'malformed', `received undecodable patch in webhook response: ${(err as Error).message}`, serviceUnavailable('error decoding patch in webhook response'));
          }
          if (patch.length > 0) {
            if (attributes.object === null || attributes.object === undefined) {
              throw new AdmissionStatusError(internalError(`admission webhook ${JSON.stringify(name)} attempted to modify the object, which is not supported for this operation`));
            }
            if (result.patchType !== 'JSONPatch') {
              throw new CallingWebhookError(name, 'forbidden_patch', `unsupported patch type ${JSON.stringify(result.patchType)}`, toStatusErr(name, result.result));
            }
            let patched: unknown;
            try {
              patched = applyDecodedPatch(versioned.object, patch);
            } catch (err) {
              throw new AdmissionStatusError(internalError(err instanceof Error ? err.message : String(err)));
            }
            // upstream decodes the result into the typed object: anything but a JSON object fails there
            if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
              throw new AdmissionStatusError(internalError(`json: cannot unmarshal ${goKind(patched)} into Go value of type map[string]interface {}`));
            }
            changed = !equalJson(versioned.object, patched);
            annotate(`${patchAuditAnnotationPrefix}${key}`, goJSON({ configuration, webhook: name, patch: patch.map((op) => (op === null ? null : sortedOperation(op))), patchType: 'JSONPatch' }));
            // defaulted in its version (callAttrMutatingHook), then back to the version the apiserver sent
            const group = target.kind.group ?? '';
            const defaulted = defaultObject(patched, { apiVersion: group === '' ? target.kind.version ?? '' : `${group}/${target.kind.version ?? ''}`, kind: target.kind.kind ?? '' });
            attributes.object = convertObject(defaulted, target.kind, request.kind ?? target.kind);
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
