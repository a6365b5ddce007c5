// Deciding one replayed write through a manifest set exactly as the daemon would: /mutate, then (unless it denied)
// /validate, through the chain `serve`, `review` and `test` share (lib/review/chain.ts), combined as kube-apiserver
// combines them (warnings and audit annotations of both calls; the first denial ends the request).
//
// Before anything runs, the set is asked whether it reads what the log lacks (request.ts `missing`): a policy or
// binding whose rules match the request (selectors and conditions aside, as they may read the missing value) and that
// has an objectSelector (it reads object and oldObject labels), a namespaceSelector on a request on a Namespace (it
// reads that Namespace's labels from object or oldObject), or an expression that references the missing variable
// (CompiledExpression.variables, from the CEL reference check); a static webhook whose rules match is sent the whole
// request. Then the event's result is `unknown` with that reason, never a guessed allow or deny.
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import { matchPolicyHook, matchRules, compileRules } from '../admission/matching/index.js';
import type { CompiledRules } from '../admission/matching/index.js';
import { isEmptySelector } from '../admission/matching/object-selector.js';
import { patchedObject } from '../admission/mutate.js';
import type { MutateHandler } from '../review/mutate-handler.js';
import type { ValidateHandler } from '../review/validate-handler.js';
import type { MatchResources } from '../api/types.js';
import type { PolicyHook, StaticWebhook } from '../manifest/compile.js';
import type { PluginName } from '../manifest/plugins.js';
import type { Snapshot } from '../reload/snapshot.js';
import type { Missing, ReplayCase } from './request.js';

/** What decide() needs of an admission chain (chain.ts OfflineChain). */
export interface ReplayChain {
  readonly validate: Pick<ValidateHandler, 'handle'>;
  readonly mutate: Pick<MutateHandler, 'handle'>;
  readonly snapshots: ReadonlyMap<PluginName, Snapshot>;
}

export type Outcome = 'allowed' | 'denied' | 'unknown';

export interface SetDecision {
  readonly outcome: Outcome;
  /** the AdmissionResponse as the daemon answers it: /mutate's patch, both calls' warnings and audit annotations */
  readonly response?: AdmissionResponse;
  readonly deniedBy?: 'mutate' | 'validate';
  /** why the outcome is unknown */
  readonly reason?: string;
}

/** The longest time kube-apiserver gives a webhook call. */
const callDeadlineMs = 30_000;
const noBody = new Uint8Array(0);

const hookLabel = (hook: PolicyHook): string => `${hook.policy.kind ?? 'policy'} "${hook.policy.metadata?.name ?? ''}"`;

/** The match resources with selectors that match everything (`{}`, as loading defaults them; nil is an error). */
function withoutSelectors(m: MatchResources | null | undefined): MatchResources | null | undefined {
  if (m === null || m === undefined) return m;
  return { ...m, objectSelector: {}, namespaceSelector: {} };
}

const rulesOnly = new WeakMap<PolicyHook, Pick<PolicyHook, 'policy' | 'bindings'>>();

/** The hook with its selectors removed: what its rules alone match. */
function rulesOnlyHook(hook: PolicyHook): Pick<PolicyHook, 'policy' | 'bindings'> {
  let stripped = rulesOnly.get(hook);
  if (stripped === undefined) {
    const spec = hook.policy.spec ?? {};
    stripped = {
      policy: { ...hook.policy, spec: { ...spec, matchConstraints: withoutSelectors(spec.matchConstraints) } } as PolicyHook['policy'],
      bindings: hook.bindings.map((b) => ({ ...b, spec: { ...b.spec, matchResources: withoutSelectors(b.spec?.matchResources) } }) as PolicyHook['bindings'][number]),
    };
    rulesOnly.set(hook, stripped);
  }
  return stripped;
}

function policyRulesMatch(hook: PolicyHook, request: AdmissionRequest): boolean {
  const decision = matchPolicyHook(rulesOnlyHook(hook), request);
  if (decision.policy.matches === false) return false;
  if ('error' in decision.policy) return true;
  return decision.bindings.some((b) => b.matches !== false);
}

const webhookRules = new WeakMap<StaticWebhook, CompiledRules>();

function webhookRulesMatch(hook: StaticWebhook, request: AdmissionRequest): boolean {
  let rules = webhookRules.get(hook);
  if (rules === undefined) {
    rules = compileRules(hook.webhook.rules, hook.webhook.matchPolicy);
    webhookRules.set(hook, rules);
  }
  return matchRules(rules, request).matches !== false;
}

function readsLabels(hook: PolicyHook, request: AdmissionRequest): boolean {
  const selectors = [hook.policy.spec?.matchConstraints, ...hook.bindings.map((b) => b.spec?.matchResources)];
  if (selectors.some((m) => !isEmptySelector(m?.objectSelector))) return true;
  const onNamespace = request.resource?.group === '' && request.resource.resource === 'namespaces';
  return onNamespace && selectors.some((m) => !isEmptySelector(m?.namespaceSelector));
}

function readsVariable(hook: PolicyHook, variable: string): boolean {
  return hook.expressions.some((e) => e.compiled.variables === undefined || e.compiled.variables.has(variable));
}

/** Why the plugins cannot decide `request` without what is missing; undefined when none reads it. */
export function missingRead(snapshots: ReadonlyMap<PluginName, Snapshot>, plugins: readonly PluginName[], request: AdmissionRequest, missing: readonly Missing[]): string | undefined {
  if (missing.length === 0) return undefined;
  for (const plugin of plugins) {
    const compiled = snapshots.get(plugin)?.compiled;
    if (compiled === undefined) continue;
    if (compiled.family === 'webhook') {
      const hook = compiled.webhooks.find((w) => webhookRulesMatch(w, request));
      if (hook !== undefined) return `webhook "${hook.webhook.name ?? ''}" would be sent ${missing[0]!.variable}, which the log lacks: ${missing[0]!.reason}`;
      continue;
    }
    for (const hook of compiled.hooks) {
      if (!policyRulesMatch(hook, request)) continue;
      const labels = readsLabels(hook, request);
      const m = missing.find((x) => labels || readsVariable(hook, x.variable));
      if (m !== undefined) return `${hookLabel(hook)} reads ${m.variable}${labels && !readsVariable(hook, m.variable) ? ' (its labels, for a selector)' : ''}, which the log lacks: ${m.reason}`;
    }
  }
  return undefined;
}


/** The answer as the daemon gives the apiserver: the deciding call's status, /mutate's patch, both calls' extras. */
function combined(mutate: AdmissionResponse, validate: AdmissionResponse | undefined): AdmissionResponse {
  const last = validate ?? mutate;
  const out: AdmissionResponse = { uid: last.uid ?? mutate.uid ?? '', allowed: last.allowed === true };
  if (last.status !== undefined && last.status !== null) out.status = last.status;
  if (mutate.patch !== undefined && mutate.patch !== '' && last.allowed === true) {
    out.patch = mutate.patch;
    out.patchType = mutate.patchType ?? 'JSONPatch';
  }
  const annotations = { ...(mutate.auditAnnotations ?? {}), ...(validate?.auditAnnotations ?? {}) };
  if (Object.keys(annotations).length > 0) out.auditAnnotations = annotations;
  const warnings = [...(mutate.warnings ?? []), ...(validate?.warnings ?? [])];
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

const mutatingPlugins: readonly PluginName[] = ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook'];
const validatingPlugins: readonly PluginName[] = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'];

/** The sides the apiserver sends the write to (scope.ts); both when no registration is applied. */
export interface SentSides {
  readonly mutate: boolean;
  readonly validate: boolean;
}

const bothSides: SentSides = { mutate: true, validate: true };

/** The object /validate is sent when the log holds none: /mutate's, patched by its answer, under a generated name. */
function validatedObject(replay: ReplayCase, patch: string | undefined): unknown {
  const object = patchedObject(replay.mutate.object, patch);
  if (replay.generatedName === undefined || typeof object !== 'object' || object === null) return object;
  const o = object as Record<string, unknown>;
  return { ...o, metadata: { ...(o.metadata as Record<string, unknown> | undefined), name: replay.generatedName } };
}

/** One replayed write through one manifest set, on the sides the apiserver sends it to. */
export async function decide(replay: ReplayCase, chain: ReplayChain, sides: SentSides = bothSides): Promise<SetDecision> {
  const unknown = (sides.mutate ? missingRead(chain.snapshots, mutatingPlugins, replay.mutate, replay.missing.mutate) : undefined)
    ?? (sides.validate ? missingRead(chain.snapshots, validatingPlugins, replay.validate, replay.missing.validate) : undefined);
  if (unknown !== undefined) return { outcome: 'unknown', reason: unknown };
  // the chain does not change the requests it is given: one case is decided by two sets without copies
  const ctx = { deadline: Date.now() + callDeadlineMs, signal: new AbortController().signal };
  const mutateResponse: AdmissionResponse = sides.mutate ? await chain.mutate.handle({ request: replay.mutate }, ctx) : { uid: replay.mutate.uid ?? '', allowed: true };
  if (mutateResponse.allowed !== true) return { outcome: 'denied', response: combined(mutateResponse, undefined), deniedBy: 'mutate' };
  if (!sides.validate) return { outcome: 'allowed', response: combined(mutateResponse, undefined) };
  const request = replay.validateAfterMutation ? { ...replay.validate, object: validatedObject(replay, mutateResponse.patch) } : replay.validate;
  const validateResponse = await chain.validate.handle({ request, body: noBody }, ctx);
  const response = combined(mutateResponse, validateResponse);
  return response.allowed === true ? { outcome: 'allowed', response } : { outcome: 'denied', response, deniedBy: 'validate' };
}
