// The shape shared by the two mutating admission plugins of the /mutate chain (MutatingAdmissionPolicy, then
// MutatingAdmissionWebhook) and the chain that runs them: upstream's admission.Attributes (the object as mutated so
// far) and admission.ReinvocationContext (staging/src/k8s.io/apiserver/pkg/admission/reinvocation.go: after the
// first pass, if any plugin asked for it, every mutating plugin runs once more with IsReinvoke set, and each
// decides which of its hooks to run again).
import type { AdmissionRequest, Status } from '../api/admission.js';

export type MutatingPluginName = 'MutatingAdmissionPolicy' | 'MutatingAdmissionWebhook';

export interface ReinvocationContext {
  /** true during the second pass */
  readonly isReinvoke: boolean;
  /** a plugin whose hook changed the object asks for the second pass (upstream's SetShouldReinvoke) */
  setShouldReinvoke(): void;
  /** the plugin's own state, kept from the first pass to the second (upstream's Value/SetValue keyed by plugin) */
  value<T>(plugin: MutatingPluginName, create: () => T): T;
}

export interface MutationAttributes {
  /** the request as the apiserver sent it; `request.object` is never modified */
  readonly request: AdmissionRequest;
  /** the object as mutated so far: a plugin replaces it with a new value, never changes it in place */
  object: unknown;
  readonly reinvocation: ReinvocationContext;
  /** warnings for the answer, in order */
  readonly warnings: string[];
  /** in-tree audit annotation keys (`<policy or webhook>/<key>`); the first value of a key stays */
  readonly auditAnnotations: Record<string, string>;
}

export interface MutationContext {
  /** when the answer is due, epoch milliseconds */
  readonly deadline: number;
  readonly signal: AbortSignal;
}

/** A plugin's outcome: admitted (with `attributes.object` possibly replaced) or denied with upstream's Status. */
export type MutationResult = { readonly allowed: true } | { readonly allowed: false; readonly status: Status };

export interface MutatingPlugin {
  readonly name: MutatingPluginName;
  admit(attributes: MutationAttributes, ctx: MutationContext): Promise<MutationResult>;
}
