// Loads one plugin's manifest directory the way kube-apiserver's static loaders do: every document decoded strictly,
// defaulted, validated as the REST API would on create, checked against the static-only rules, all-or-nothing, then
// sorted by name. A pure function of the directory's files: no timers, metrics or logging.
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from '../api/types.js';
import { decodeDocumentText, decodeDocumentValue, DecodeError, listItemText } from './decode.js';
import type { DecodedDocument } from './decode.js';
import { applyDefaults } from './defaults.js';
import type { JsonObject } from './document.js';
import { goQuote } from '../validation/go-format.js';
import { ManifestError } from './errors.js';
import type { FileDoc, ManifestFiles } from './files.js';
import { pluginKinds } from './plugins.js';
import type { PluginName } from './plugins.js';
import type { V1Kind } from './scheme.js';
import { runSliced, runSync } from './steps.js';
import type { Steps } from './steps.js';
import { validateObject } from './validate.js';

export const staticConfigSuffix = '.static.k8s.io';

export type WebhookConfiguration = ValidatingWebhookConfiguration | MutatingWebhookConfiguration;
export type AdmissionPolicy = ValidatingAdmissionPolicy | MutatingAdmissionPolicy;
export type AdmissionPolicyBinding = ValidatingAdmissionPolicyBinding | MutatingAdmissionPolicyBinding;

/** Bindings by the policy they name (`spec.policyName`), in their order: one pass, for readers of every policy. */
export function bindingsByPolicy<B extends AdmissionPolicyBinding>(bindings: readonly B[]): Map<string, B[]> {
  const byPolicy = new Map<string, B[]>();
  for (const b of bindings) {
    const name = b.spec?.policyName ?? '';
    const list = byPolicy.get(name);
    if (list === undefined) byPolicy.set(name, [b]);
    else list.push(b);
  }
  return byPolicy;
}

/** What a directory holds once loaded: webhook configurations, or policies and bindings, each sorted by name. */
export type LoadedManifests =
  | { readonly family: 'webhook'; readonly configurations: readonly WebhookConfiguration[] }
  | { readonly family: 'policy'; readonly policies: readonly AdmissionPolicy[]; readonly bindings: readonly AdmissionPolicyBinding[] };

/** Kind → number of objects loaded (list wrappers unwrapped), for `validate` output. */
export function countKinds(plugin: PluginName, loaded: LoadedManifests): Record<string, number> {
  const kinds = pluginKinds[plugin];
  const counts: Record<string, number> = {};
  if (loaded.family === 'webhook') {
    if (loaded.configurations.length > 0) counts[kinds.primary] = loaded.configurations.length;
  } else {
    if (loaded.policies.length > 0) counts[kinds.primary] = loaded.policies.length;
    if (loaded.bindings.length > 0) counts[kinds.binding!] = loaded.bindings.length;
  }
  return counts;
}

function nameOf(obj: { metadata?: { name?: string } }): string {
  return obj.metadata?.name ?? '';
}

/** ValidateManifestName: present, with the reserved suffix, unique within its name set. */
function validateManifestName(name: string, filePath: string, seen: Map<string, string>): void {
  if (name === '') throw new ManifestError(`resource in file ${goQuote(filePath)} must have a name`);
  if (!name.endsWith(staticConfigSuffix)) {
    throw new ManifestError(`${goQuote(name)} in file ${goQuote(filePath)} must have a name ending with ${goQuote(staticConfigSuffix)}`);
  }
  const first = seen.get(name);
  if (first !== undefined) {
    throw new ManifestError(`duplicate name ${goQuote(name)} found in file ${goQuote(filePath)} (previously seen in ${goQuote(first)})`);
  }
  seen.set(name, filePath);
}

function validateWebhookClientConfig(webhookName: string, configName: string, filePath: string, cc: WebhookClientConfig | undefined): void {
  if (cc?.service) {
    throw new ManifestError(`webhook ${goQuote(webhookName)} in ${goQuote(configName)} (file ${goQuote(filePath)}): clientConfig.service is not supported for static manifests; use clientConfig.url instead`);
  }
  if (!cc?.url) {
    throw new ManifestError(`webhook ${goQuote(webhookName)} in ${goQuote(configName)} (file ${goQuote(filePath)}): clientConfig.url is required for static manifests`);
  }
}

function validateBindingConstraints(bindingName: string, binding: AdmissionPolicyBinding): void {
  const policyName = binding.spec?.policyName ?? '';
  if (policyName === '') throw new ManifestError(`binding ${goQuote(bindingName)} must reference a policy (spec.policyName)`);
  if (!policyName.endsWith(staticConfigSuffix)) {
    throw new ManifestError(`binding ${goQuote(bindingName)}: spec.policyName ${goQuote(policyName)} must end with ${goQuote(staticConfigSuffix)}`);
  }
  if (binding.spec?.paramRef) throw new ManifestError(`binding ${goQuote(bindingName)}: spec.paramRef is not supported for static manifests`);
}

/** Defaults and validates one object of an accepted kind; returns it typed. */
function defaultAndValidate(kind: V1Kind, object: JsonObject): JsonObject {
  applyDefaults(kind, object);
  const message = validateObject(kind, object);
  if (message !== undefined) throw new ManifestError(`${kind} ${goQuote(nameOf(object))}: ${message}`);
  return object;
}

/** The items of a decoded single object or typed List of `kind`, defaulted and validated; undefined if not that kind. */
function accept(decoded: DecodedDocument, kind: V1Kind, listKind: V1Kind): JsonObject[] | undefined {
  if (decoded.type !== 'object') return undefined;
  if (decoded.kind === kind) return [defaultAndValidate(kind, decoded.object)];
  if (decoded.kind === listKind) {
    const items = (decoded.object.items ?? []) as JsonObject[];
    return items.map((item) => defaultAndValidate(kind, item));
  }
  return undefined;
}

/**
 * What one document contributes, in upstream's processing order: accepted groups of items (one per single object or
 * typed List, one per generic List item), and at most one error, last. A pure function of the document's text.
 */
type DocumentStep =
  | { readonly role: 'primary' | 'binding'; readonly items: readonly JsonObject[] }
  | { readonly error: ManifestError };

/**
 * Decode+default+validate results by document text, reused while a document is unchanged so a one-file change
 * does not re-validate the whole directory. Holds only the documents of the latest load.
 */
export class DocumentCache {
  #current = new Map<string, readonly DocumentStep[]>();
  #next = new Map<string, readonly DocumentStep[]>();

  /** The steps of a document's text, computed (pausing as it goes) unless this or the previous load has them. */
  *steps(text: string, compute: () => Steps<readonly DocumentStep[]>): Steps<readonly DocumentStep[]> {
    const steps = this.#current.get(text) ?? this.#next.get(text) ?? (yield* compute());
    this.#next.set(text, steps);
    return steps;
  }

  /** Keeps what the finished load used, drops the rest. */
  commit(): void {
    this.#current = this.#next;
    this.#next = new Map();
  }
}

/** A decode or load error as a ManifestError, its message prefixed; anything else is a bug and propagates. */
function asManifestError(err: unknown, prefix = ''): ManifestError {
  if (err instanceof ManifestError && prefix === '') return err;
  if (err instanceof ManifestError || err instanceof DecodeError) return new ManifestError(prefix + err.message, { cause: err });
  throw err;
}

function* documentSteps(plugin: PluginName, decoded: DecodedDocument, steps: DocumentStep[]): Steps<boolean> {
  if (decoded.type === 'list') {
    for (const item of decoded.items) {
      let itemDecoded: DecodedDocument;
      try {
        itemDecoded = decodeDocumentValue(item, listItemText(item, decoded.keyOrder), pluginKinds[plugin].family, decoded.keyOrder);
      } catch (err) {
        steps.push({ error: asManifestError(err, 'failed to decode list item: ') });
        return false;
      }
      if (!(yield* documentSteps(plugin, itemDecoded, steps))) return false;
      yield;
    }
    return true;
  }
  const kinds = pluginKinds[plugin];
  try {
    const primaries = accept(decoded, kinds.primary, kinds.primaryList);
    if (primaries) {
      steps.push({ role: 'primary', items: primaries });
      return true;
    }
    const bindings = kinds.binding ? accept(decoded, kinds.binding, kinds.bindingList!) : undefined;
    if (bindings) {
      steps.push({ role: 'binding', items: bindings });
      return true;
    }
  } catch (err) {
    steps.push({ error: asManifestError(err) });
    return false;
  }
  steps.push({ error: new ManifestError(`unsupported resource type ${decoded.goType}`) });
  return false;
}

function* computeSteps(plugin: PluginName, text: string, bytes?: Uint8Array): Steps<readonly DocumentStep[]> {
  let decoded: DecodedDocument;
  try {
    decoded = decodeDocumentText(text, pluginKinds[plugin].family, bytes);
  } catch (err) {
    return [{ error: asManifestError(err) }];
  }
  yield;
  const steps: DocumentStep[] = [];
  yield* documentSteps(plugin, decoded, steps);
  return steps;
}

interface LoadState {
  readonly plugin: PluginName;
  readonly primaryNames: Map<string, string>;
  readonly bindingNames: Map<string, string>;
  readonly primaries: JsonObject[];
  readonly bindings: JsonObject[];
}

/** The file each loaded object came from (warnings name it); the objects themselves stay as decoded. */
const sourceFiles = new WeakMap<object, string>();

/** The manifest file a loaded policy, binding or webhook configuration came from, if known. */
export function manifestFileOf(object: object): string | undefined {
  return sourceFiles.get(object);
}

/** The checks that depend on the file and on the other documents: names, then the static-only constraints. */
function acceptStep(state: LoadState, step: DocumentStep, filePath: string): void {
  if ('error' in step) throw step.error;
  const kinds = pluginKinds[state.plugin];
  for (const item of step.items) {
    const name = nameOf(item);
    sourceFiles.set(item, filePath);
    if (step.role === 'binding') {
      validateManifestName(name, filePath, state.bindingNames);
      validateBindingConstraints(name, item as AdmissionPolicyBinding);
    } else {
      validateManifestName(name, filePath, state.primaryNames);
      if (kinds.family === 'webhook') {
        for (const w of (item as WebhookConfiguration).webhooks ?? []) {
          validateWebhookClientConfig(w.name ?? '', name, filePath, w.clientConfig);
        }
      } else if ((item as AdmissionPolicy).spec?.paramKind) {
        throw new ManifestError(`${kinds.primary} ${goQuote(name)}: spec.paramKind is not supported for static manifests`);
      }
    }
  }
  (step.role === 'binding' ? state.bindings : state.primaries).push(...step.items);
}

function* loadDoc(state: LoadState, doc: FileDoc, cache: DocumentCache | undefined): Steps<void> {
  // a document that is not UTF-8 is cached by its bytes: different bytes can read as the same text
  const key = doc.bytes === undefined ? doc.text : `\u0000bytes:${Buffer.from(doc.bytes).toString('latin1')}`;
  const compute = (): Steps<readonly DocumentStep[]> => computeSteps(state.plugin, doc.text, doc.bytes);
  const steps = cache ? yield* cache.steps(key, compute) : yield* compute();
  try {
    for (const step of steps) acceptStep(state, step, doc.filePath);
  } catch (err) {
    if (err instanceof ManifestError) {
      throw new ManifestError(`error loading ${doc.filePath}: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

function byName(a: JsonObject, b: JsonObject): number {
  const x = nameOf(a);
  const y = nameOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Decodes, defaults and validates the documents of one plugin's directory. Throws ManifestError with upstream's
 * message on the first problem; nothing is returned unless everything loaded.
 */
export function loadManifests(plugin: PluginName, files: ManifestFiles, cache?: DocumentCache): LoadedManifests {
  return runSync(loadSteps(plugin, files, cache));
}

/** loadManifests in slices, the event loop running between them (a reload while serving). */
export function loadManifestsSliced(plugin: PluginName, files: ManifestFiles, cache?: DocumentCache): Promise<LoadedManifests> {
  return runSliced(loadSteps(plugin, files, cache));
}

/** The load as pausable steps (see steps.ts): between documents, list items and the decoding and checks of each. */
export function* loadSteps(plugin: PluginName, files: ManifestFiles, cache?: DocumentCache): Steps<LoadedManifests> {
  const state: LoadState = { plugin, primaryNames: new Map(), bindingNames: new Map(), primaries: [], bindings: [] };
  try {
    for (const doc of files.docs) {
      yield* loadDoc(state, doc, cache);
      yield;
    }
  } finally {
    cache?.commit();
  }
  state.primaries.sort(byName);
  if (pluginKinds[plugin].family === 'webhook') {
    return { family: 'webhook', configurations: state.primaries as WebhookConfiguration[] };
  }
  const policyNames = new Set(state.primaries.map(nameOf));
  for (const binding of state.bindings as AdmissionPolicyBinding[]) {
    const policyName = binding.spec?.policyName ?? '';
    if (!policyNames.has(policyName)) {
      throw new ManifestError(`binding ${goQuote(nameOf(binding))} references policy ${goQuote(policyName)} which does not exist in the manifest directory`);
    }
  }
  state.bindings.sort(byName);
  return {
    family: 'policy',
    policies: state.primaries as AdmissionPolicy[],
    bindings: state.bindings as AdmissionPolicyBinding[],
  };
}
