// The /mutate chain for one request: the MutatingAdmissionPolicy plugin, then the MutatingAdmissionWebhook plugin,
// each seeing the object as the previous one left it; then, if any plugin asked for it, the whole chain once more
// with the reinvocation flag set (upstream's reinvoker, S/admission/reinvocation.go). One AdmissionResponse comes
// out: a denial with the first denying plugin's Status, or an admission with one JSONPatch that turns the object the
// apiserver sent into the mutated one (no patch when nothing changed, and none for a request without an object).
// Warnings and audit annotations of every plugin are kept; annotation keys lose their `/` as on /validate.
//
// The static-name guard is not run here: it is a validation (the apiserver calls /validate for the same request).
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import type { MutatingPlugin, MutatingPluginName, MutationAttributes, MutationContext, ReinvocationContext } from './mutation.js';
import { diffJson, stringifyJson } from '../json/index.js';
import { applyJsonPatch } from './mutating/json-patch.js';
import type { PatchOperation } from './mutating/json-patch.js';
import { webhookAnnotationKey } from './audit-keys.js';

export interface MutateOutcome {
  readonly response: AdmissionResponse;
  /** the object after every plugin (the one the patch leads to) */
  readonly object: unknown;
}

class RequestReinvocation implements ReinvocationContext {
  isReinvoke = false;
  shouldReinvoke = false;
  readonly #values = new Map<MutatingPluginName, unknown>();

  setShouldReinvoke(): void {
    this.shouldReinvoke = true;
  }

  value<T>(plugin: MutatingPluginName, create: () => T): T {
    if (!this.#values.has(plugin)) this.#values.set(plugin, create());
    return this.#values.get(plugin) as T;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The JSONPatch from the object the apiserver sent to the mutated one, base64 as AdmissionResponse.patch carries it
 * (fast-json-patch's compare() operations, computed without recursion for objects of any depth).
 */
export function patchFor(sent: unknown, mutated: unknown): string | undefined {
  if (!isObject(sent) || !isObject(mutated) || sent === mutated) return undefined;
  const operations = diffJson(sent, mutated);
  if (operations.length === 0) return undefined;
  return Buffer.from(stringifyJson(operations)).toString('base64');
}

/**
 * The object as the apiserver makes it from an answer: the object it sent with the response's JSONPatch (base64)
 * applied as the webhook plugin applies a webhook's patch (evanphx, a failed test an error). `sent` is not changed.
 */
export function patchedObject(sent: unknown, patch: string | undefined): unknown {
  if (patch === undefined || patch === '' || !isObject(sent)) return sent;
  const operations = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as PatchOperation[];
  return applyJsonPatch(sent, operations, { failedTest: 'error' });
}

function respond(uid: string, attributes: MutationAttributes, allowed: boolean, extra: Partial<AdmissionResponse>): AdmissionResponse {
  const response: AdmissionResponse = { uid, allowed, ...extra };
  if (attributes.warnings.length > 0) response.warnings = [...attributes.warnings];
  const keys = Object.keys(attributes.auditAnnotations);
  if (keys.length > 0) response.auditAnnotations = Object.fromEntries(keys.map((k) => [webhookAnnotationKey(k), attributes.auditAnnotations[k]!]));
  return response;
}

/** Runs `plugins` in order, reinvoking as upstream does, and answers. */
export async function mutateRequest(request: AdmissionRequest, plugins: readonly MutatingPlugin[], ctx: MutationContext): Promise<MutateOutcome> {
  const uid = request.uid ?? '';
  const reinvocation = new RequestReinvocation();
  const attributes: MutationAttributes = { request, object: request.object ?? null, reinvocation, warnings: [], auditAnnotations: {} };
  for (let pass = 0; pass < 2; pass++) {
    if (pass === 1) {
      if (!reinvocation.shouldReinvoke) break;
      reinvocation.isReinvoke = true;
    }
    for (const plugin of plugins) {
      const result = await plugin.admit(attributes, ctx);
      if (!result.allowed) return { response: respond(uid, attributes, false, { status: result.status }), object: attributes.object };
    }
  }
  const patch = patchFor(request.object, attributes.object);
  return { response: respond(uid, attributes, true, patch === undefined ? {} : { patch, patchType: 'JSONPatch' }), object: attributes.object };
}
