// Admission webhook matching: rules (with matchPolicy), namespaceSelector and objectSelector. matchConditions are
// the caller's (evaluated after a match, with the matched kind).
//
// Upstream: S/admission/plugin/webhook/generic/webhook.go (Dispatch: the review resources are skipped while
// ExcludeAdmissionWebhookVirtualResources is on; ShouldCallHook: namespace and object selectors, the rules as
// given, then — Equivalent only — the equivalent resources; selector errors reported only when a rule matched).
// An empty rule list matches nothing. Exact/Equivalent and the conversion of the object are explained in rules.ts.
import type { AdmissionRequest } from '../../api/admission.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import { SelectorError } from '../../manifest/selector.js';
import { noMatch, undecidable } from './decision.js';
import type { MatchDecision, Undecidable } from './decision.js';
import { compileNamespaceSelector, evaluateNamespaceSelector } from './namespace-selector.js';
import type { CompiledNamespaceSelector } from './namespace-selector.js';
import { compileObjectSelector, matchObjectSelector } from './object-selector.js';
import type { CompiledObjectSelector } from './object-selector.js';
import { requestView } from './request-view.js';
import { compileRules, matchRuleTarget } from './rules.js';
import type { CompiledRules } from './rules.js';

export interface WebhookMatchOptions {
  /** the ExcludeAdmissionWebhookVirtualResources feature gate */
  readonly excludeWebhookVirtualResources: boolean;
}

interface CompiledWebhook {
  /** a configuration error: the answer whatever the request */
  readonly error: Undecidable | null;
  readonly rules: CompiledRules;
  readonly objectSelector: CompiledObjectSelector;
  readonly namespaceSelector: CompiledNamespaceSelector;
}

const compiledWebhooks = new WeakMap<StaticWebhook, CompiledWebhook>();

// The selectors were parsed at load (StaticWebhook); they are reused, and a null selector matches everything as
// there (upstream's nil selector would match nothing, but loaded webhooks are defaulted to `{}`).
function compileWebhook(hook: StaticWebhook): CompiledWebhook {
  const w = hook.webhook;
  try {
    return Object.freeze({
      error: null,
      rules: compileRules(w.rules, w.matchPolicy),
      objectSelector: compileObjectSelector(w.objectSelector, hook.objectSelector),
      namespaceSelector: compileNamespaceSelector(w.namespaceSelector, `webhook "${w.name ?? ''}"`, hook.namespaceSelector),
    });
  } catch (err) {
    if (err instanceof SelectorError) {
      return Object.freeze({
        error: undecidable(`webhook "${w.name ?? ''}": invalid namespaceSelector: ${err.message}`),
        rules: compileRules([], null),
        objectSelector: compileObjectSelector({}),
        namespaceSelector: compileNamespaceSelector({}, ''),
      });
    }
    throw err;
  }
}

function compiled(hook: StaticWebhook): CompiledWebhook {
  let c = compiledWebhooks.get(hook);
  if (c === undefined) {
    c = compileWebhook(hook);
    compiledWebhooks.set(hook, c);
  }
  return c;
}

/**
 * Whether the webhook is to be called for the request, and with which kind/resource. Undecidable when its
 * namespaceSelector needs namespace labels this daemon cannot see (the caller applies the webhook's failurePolicy).
 */
export function matchWebhook(hook: StaticWebhook, request: AdmissionRequest, options: WebhookMatchOptions): MatchDecision {
  const view = requestView(request);
  if (options.excludeWebhookVirtualResources && view.virtualResource) return noMatch;
  const c = compiled(hook);
  if (c.error !== null) return c.error;
  const target = matchRuleTarget(c.rules, view);
  if (target === undefined) return noMatch;
  if (!matchObjectSelector(c.objectSelector, request)) return noMatch;
  const ns = evaluateNamespaceSelector(c.namespaceSelector, view, request);
  if (ns === false) return noMatch;
  if (ns !== true) return ns;
  return 'matches' in target ? target : target.decision;
}

/** Compiles a webhook's matching ahead of the first request (idempotent). */
export function prepareWebhook(hook: StaticWebhook): void {
  compiled(hook);
}
