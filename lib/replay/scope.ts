// What kube-apiserver sends the daemon: the registration's webhooks, matched as the apiserver's webhook plugin matches
// them (S/admission/plugin/webhook/generic/webhook.go ShouldCallHook: rules with matchPolicy, namespace and object
// selectors, then matchConditions), so that replay decides a write on a side (/mutate, /validate) only when the
// apiserver would have sent it there. The registration is the one `registration` derives from the candidate set
// (the system namespaces left out unless asked for), or the one given with --registration-file, as `serve` reads it.
//
// Webhooks registered through the API never see admission configuration objects
// (S/admission/plugin/webhook/predicates/rules/rules.go IsExemptAdmissionConfigurationResource); static ones
// (`*.static.k8s.io`, 1.36 manifest-based admission) do.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { AdmissionRequest } from '../api/admission.js';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../api/types.js';
import { shouldCallHook } from '../admission/webhooks/call.js';
import type { ShouldCall } from '../admission/webhooks/call.js';
import { isEmptySelector } from '../admission/matching/object-selector.js';
import { compileRules, isAdmissionConfigurationResource, matchRules, matchWebhook } from '../admission/matching/index.js';
import type { CompiledRules } from '../admission/matching/index.js';
import { compileManifests } from '../manifest/compile.js';
import type { StaticWebhook } from '../manifest/compile.js';
import { defaultMutatingWebhookConfiguration, defaultValidatingWebhookConfiguration } from '../manifest/defaults.js';
import { staticConfigSuffix } from '../manifest/load.js';
import type { WebhookConfiguration } from '../manifest/load.js';
import type { PluginName } from '../manifest/plugins.js';
import { defaultRegistrationURL, deriveRegistration } from '../registration/objects.js';
import type { LoadedPlugin, RegistrationSide } from '../registration/coverage.js';
import { RegistrationFileError } from '../registration/registered.js';
import type { Snapshot } from '../reload/snapshot.js';

/** Why the registration does not send a request to a side. */
export type NotSentReason =
  | 'rules' // no rule of the registration's webhooks matches it
  | 'selector' // a rule matches, the namespaceSelector or objectSelector leaves it out (the system namespaces)
  | 'match-conditions' // a matchCondition leaves it out
  | 'admission-configuration' // an admission configuration object, never sent to API-registered webhooks
  | 'no-webhook'; // the registration has no webhook for that side

export const notSentReasons: readonly NotSentReason[] = ['rules', 'selector', 'match-conditions', 'admission-configuration', 'no-webhook'];

export type Sent = { readonly sent: true } | { readonly sent: false; readonly why: NotSentReason };

/** How the scope is given, as plain data (it crosses to the replay workers). */
export interface ScopeSpec {
  /** --registration-file ('' to derive the registration from the candidate set) */
  readonly registrationFile: string;
  /** --include-system-namespaces: the derived registration sends kube-system and kube-node-lease too */
  readonly includeSystemNamespaces: boolean;
  readonly excludeWebhookVirtualResources: boolean;
}

interface SideWebhooks {
  readonly hooks: readonly StaticWebhook[];
  /** API-registered (not `*.static.k8s.io`): admission configuration objects are never sent */
  readonly api: boolean;
  /** a matchCondition checks `authorizer`: matching waits for SubjectAccessReviews */
  readonly async: boolean;
  /**
   * Answers by request kind and namespace, when nothing else can decide them (no objectSelector, no matchConditions):
   * a log holds millions of writes of a few such kinds.
   */
  readonly answers: Map<string, Sent> | undefined;
}

interface MatchOptions {
  readonly excludeWebhookVirtualResources: boolean;
  readonly deadline: number;
  readonly signal: AbortSignal;
}

/** Bounds the answers kept per side (the kinds and namespaces of a log, many times over). */
const maxAnswers = 4096;

const sidePlugin: Readonly<Record<RegistrationSide, PluginName>> = { validating: 'ValidatingAdmissionWebhook', mutating: 'MutatingAdmissionWebhook' };
const configurationKind: Readonly<Record<RegistrationSide, string>> = { validating: 'ValidatingWebhookConfiguration', mutating: 'MutatingWebhookConfiguration' };
const neverAborted = new AbortController().signal;

/** A hook's rules alone (to tell a rule mismatch from a selector's), compiled once. */
const rulesOf = new WeakMap<StaticWebhook, CompiledRules>();
function rulesMatch(hook: StaticWebhook, request: AdmissionRequest): boolean {
  let rules = rulesOf.get(hook);
  if (rules === undefined) rulesOf.set(hook, (rules = compileRules(hook.webhook.rules, hook.webhook.matchPolicy)));
  return matchRules(rules, request).matches !== false;
}

function compileSide(side: RegistrationSide, configurations: Array<Record<string, unknown>>): SideWebhooks {
  const typed = configurations as unknown as WebhookConfiguration[];
  for (const c of typed) {
    if (side === 'validating') defaultValidatingWebhookConfiguration(c as ValidatingWebhookConfiguration);
    else defaultMutatingWebhookConfiguration(c as MutatingWebhookConfiguration);
  }
  const compiled = compileManifests(sidePlugin[side], { family: 'webhook', configurations: typed });
  const hooks = compiled.family === 'webhook' ? compiled.webhooks : [];
  return {
    hooks,
    api: typed.some((c) => !(c.metadata?.name ?? '').endsWith(staticConfigSuffix)),
    async: hooks.some((h) => h.matchConditions.some((c) => c.compiled.usesAuthorizer === true)),
    answers: hooks.every((h) => h.matchConditions.length === 0 && isEmptySelector(h.webhook.objectSelector)) ? new Map() : undefined,
  };
}

/** What rules and a namespaceSelector read of a request; undefined for a Namespace (its own labels are read). */
function answerKey(r: AdmissionRequest): string | undefined {
  const resource = r.requestResource ?? r.resource;
  if ((resource?.group ?? '') === '' && resource?.resource === 'namespaces') return undefined;
  const kind = r.requestKind ?? r.kind;
  return `${r.operation ?? ''}\u0000${resource?.group ?? ''}/${resource?.version ?? ''}/${resource?.resource ?? ''}/${r.requestSubResource ?? r.subResource ?? ''}\u0000${kind?.kind ?? ''}\u0000${r.namespace ?? ''}`;
}

const noWebhook: Sent = Object.freeze({ sent: false, why: 'no-webhook' });
const exempt: Sent = Object.freeze({ sent: false, why: 'admission-configuration' });

export class RegistrationScope {
  readonly #sides: Readonly<Record<RegistrationSide, SideWebhooks>>;
  readonly #excludeWebhookVirtualResources: boolean;
  /** what the report calls it */
  readonly source: string;

  private constructor(sides: Record<RegistrationSide, SideWebhooks>, source: string, excludeWebhookVirtualResources: boolean) {
    this.#sides = sides;
    this.source = source;
    this.#excludeWebhookVirtualResources = excludeWebhookVirtualResources;
  }

  /** The registration of a file holding webhook configurations (other kinds ignored), as `serve --registration-file`. */
  static fromFile(path: string, excludeWebhookVirtualResources: boolean): RegistrationScope {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: ${(err as Error).message}`);
    }
    const found: Record<RegistrationSide, Array<Record<string, unknown>>> = { validating: [], mutating: [] };
    for (const [i, doc] of parseAllDocuments(text).entries()) {
      if (doc.errors.length > 0) throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: document ${i}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as unknown;
      if (typeof obj !== 'object' || obj === null) continue;
      const kind = (obj as { kind?: unknown }).kind;
      for (const side of ['validating', 'mutating'] as const) if (kind === configurationKind[side]) found[side].push(obj as Record<string, unknown>);
    }
    if (found.validating.length === 0 && found.mutating.length === 0) throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: no ValidatingWebhookConfiguration or MutatingWebhookConfiguration`);
    try {
      return new RegistrationScope({ validating: compileSide('validating', found.validating), mutating: compileSide('mutating', found.mutating) }, `the registration in ${path}`, excludeWebhookVirtualResources);
    } catch (err) {
      throw new RegistrationFileError(`registration file ${JSON.stringify(path)}: ${(err as Error).message}`);
    }
  }

  /** The registration `registration` prints for the set's snapshots. */
  static derived(snapshots: ReadonlyMap<PluginName, Snapshot>, spec: ScopeSpec): RegistrationScope {
    const loaded: LoadedPlugin[] = [...snapshots.values()].map((s) => ({ plugin: s.plugin, manifests: s.manifests }));
    const registration = deriveRegistration(loaded, {
      url: defaultRegistrationURL,
      caBundle: '',
      format: 'static',
      includeSystemNamespaces: spec.includeSystemNamespaces,
      excludeWebhookVirtualResources: spec.excludeWebhookVirtualResources,
    });
    const sideOf = (side: RegistrationSide): Array<Record<string, unknown>> => registration.sides.filter((s) => s.side === side && s.configuration !== undefined).map((s) => structuredClone(s.configuration!));
    const source = `the registration derived from the candidate set${spec.includeSystemNamespaces ? ' (system namespaces included)' : ''}`;
    return new RegistrationScope({ validating: compileSide('validating', sideOf('validating')), mutating: compileSide('mutating', sideOf('mutating')) }, source, spec.excludeWebhookVirtualResources);
  }

  static from(spec: ScopeSpec, candidate: ReadonlyMap<PluginName, Snapshot>): RegistrationScope {
    return spec.registrationFile === '' ? RegistrationScope.derived(candidate, spec) : RegistrationScope.fromFile(spec.registrationFile, spec.excludeWebhookVirtualResources);
  }

  /** Whether the apiserver sends `request` to the side's webhook, and if not, why (a promise only for `authorizer`). */
  sends(side: RegistrationSide, request: AdmissionRequest): Sent | Promise<Sent> {
    const webhooks = this.#sides[side];
    if (webhooks.hooks.length === 0) return noWebhook;
    if (webhooks.api && isAdmissionConfigurationResource(request)) return exempt;
    if (webhooks.async) return this.#matchAuthorized(webhooks.hooks, request);
    const key = webhooks.answers === undefined ? undefined : answerKey(request);
    const known = key === undefined ? undefined : webhooks.answers!.get(key);
    if (known !== undefined) return known;
    const sent = this.#match(webhooks.hooks, request);
    if (key !== undefined) {
      if (webhooks.answers!.size >= maxAnswers) webhooks.answers!.clear();
      webhooks.answers!.set(key, sent);
    }
    return sent;
  }

  #options(): MatchOptions {
    return { excludeWebhookVirtualResources: this.#excludeWebhookVirtualResources, deadline: Date.now() + 10_000, signal: neverAborted };
  }

  /** The hooks whose rules and selectors match `request`, and why the request is not sent if none of them calls. */
  #matching(hooks: readonly StaticWebhook[], request: AdmissionRequest, options: MatchOptions): { readonly hooks: StaticWebhook[]; readonly why: NotSentReason } {
    const matching: StaticWebhook[] = [];
    let why: NotSentReason = 'rules';
    for (const hook of hooks) {
      if (matchWebhook(hook, request, options).matches !== false) {
        matching.push(hook);
        why = 'match-conditions';
      } else if (why === 'rules' && rulesMatch(hook, request)) why = 'selector';
    }
    return { hooks: matching, why };
  }

  // A selector the log cannot decide, or a matchCondition error under Fail, counts as sent: the apiserver called the
  // webhook, or failed the request, there.
  #match(hooks: readonly StaticWebhook[], request: AdmissionRequest): Sent {
    const options = this.#options();
    const matching = this.#matching(hooks, request, options);
    for (const hook of matching.hooks) if (!('skip' in (shouldCallHook(hook, request, options) as ShouldCall))) return { sent: true };
    return { sent: false, why: matching.why };
  }

  async #matchAuthorized(hooks: readonly StaticWebhook[], request: AdmissionRequest): Promise<Sent> {
    const options = this.#options();
    const matching = this.#matching(hooks, request, options);
    for (const hook of matching.hooks) if (!('skip' in await shouldCallHook(hook, request, options))) return { sent: true };
    return { sent: false, why: matching.why };
  }
}
