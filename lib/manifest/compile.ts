// The step after loading: turns loaded manifests into what admission needs — webhook accessors with parsed
// selectors and compiled matchConditions, or policy hooks (policy + its bindings + compiled expressions). Upstream
// runs this after the content-hash check; a failure here keeps the previous snapshot.
import type { LabelSelector, MatchCondition, MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from '../api/types.js';
import { compileExpression } from '../cel/index.js';
import type { CelEnvironment, CompiledExpression, ExpectedResult } from '../cel/index.js';
import { ManifestError } from './errors.js';
import { bindingsByPolicy } from './load.js';
import type { AdmissionPolicy, AdmissionPolicyBinding, LoadedManifests, WebhookConfiguration } from './load.js';
import type { PluginName } from './plugins.js';
import { compileLabelSelector, SelectorError } from './selector.js';
import { runSliced, runSync } from './steps.js';
import type { Steps } from './steps.js';
import type { LabelMatcher } from './selector.js';

/** One webhook of a static configuration, as upstream's accessor sees it. */
export interface StaticWebhook {
  /** `manifest/<configuration>/<webhook>/<n>`, n counting repeats of the webhook name */
  readonly uid: string;
  readonly configurationName: string;
  readonly webhook: NonNullable<WebhookConfiguration['webhooks']>[number];
  readonly namespaceSelector: LabelMatcher;
  readonly objectSelector: LabelMatcher;
  readonly matchConditions: readonly NamedExpression[];
}

export interface NamedExpression {
  /** field path of the expression, e.g. `spec.validations[0].expression` */
  readonly path: string;
  readonly name?: string;
  readonly compiled: CompiledExpression;
}

/** A policy with the bindings that name it and every expression it carries, compiled. */
export interface PolicyHook {
  readonly policy: AdmissionPolicy;
  readonly bindings: readonly AdmissionPolicyBinding[];
  readonly expressions: readonly NamedExpression[];
}

export type CompiledManifests =
  | { readonly family: 'webhook'; readonly webhooks: readonly StaticWebhook[] }
  | { readonly family: 'policy'; readonly hooks: readonly PolicyHook[] };

function parseSelector(webhookName: string, which: string, selector: LabelSelector | null | undefined): LabelMatcher {
  try {
    return compileLabelSelector(selector);
  } catch (err) {
    if (err instanceof SelectorError) throw new ManifestError(`webhook "${webhookName}": invalid ${which}: ${err.message}`);
    throw err;
  }
}

/** How one queued expression is compiled besides its text and result type. */
interface ExpressionOptions {
  /** the `variables.*` in scope ([] for none) */
  readonly variableNames?: readonly string[];
  /** the entry's name (variables, matchConditions, audit annotation keys) */
  readonly name?: string;
  readonly environment?: CelEnvironment;
  /** a spec.variables entry: its output type types `variables.<name>` for what follows (composition.go AddField) */
  readonly declaresVariable?: boolean;
  /** false: `variables` is undeclared (a policy's matchConditions) */
  readonly composition?: boolean;
}

/** Declarations shared by every expression of one policy: HasParams, and the variables' output types so far. */
interface PolicyDeclarations {
  readonly params: boolean;
  readonly variableTypes: Record<string, string>;
}

class ExpressionCompiler {
  readonly compiled: NamedExpression[] = [];
  readonly errors: string[] = [];
  constructor(
    private readonly environment: CelEnvironment,
    private readonly declarations?: PolicyDeclarations,
  ) {}

  readonly #pending: Array<{ path: string; expression: string; expect: ExpectedResult; options: ExpressionOptions }> = [];

  /** Queues an expression; compileAll() compiles the queue in order. */
  add(path: string, expression: string | undefined, expect: ExpectedResult, options: ExpressionOptions = {}): void {
    if (expression === undefined || expression === '') return;
    this.#pending.push({ path, expression, expect, options });
  }

  /** Compiles what was added, pausing after each expression. */
  *compileAll(): Steps<void> {
    for (const { path, expression, expect, options } of this.#pending.splice(0)) {
      const { name } = options;
      const result = compileExpression({
        expression,
        environment: options.environment ?? this.environment,
        variableNames: options.variableNames ?? [],
        expect,
        ...(this.declarations === undefined ? {} : { params: this.declarations.params, variableTypes: { ...this.declarations.variableTypes } }),
        ...(options.composition === undefined ? {} : { composition: options.composition }),
      });
      if (result.ok) {
        this.compiled.push(name === undefined ? { path, compiled: result.compiled } : { path, name, compiled: result.compiled });
        const outputType = result.compiled.outputType;
        if (options.declaresVariable === true && name !== undefined && outputType !== undefined && this.declarations !== undefined) {
          this.declarations.variableTypes[name] = outputType;
        }
      } else {
        this.errors.push(`${path}: ${result.message}`);
      }
      yield;
    }
  }

  matchConditions(prefix: string, conditions: readonly MatchCondition[] | undefined, composition?: boolean): void {
    (conditions ?? []).forEach((c, i) =>
      this.add(`${prefix}[${i}].expression`, c.expression, 'bool', { name: c.name, ...(composition === undefined ? {} : { composition }) }),
    );
  }
}

function* compileWebhooks(configurations: readonly WebhookConfiguration[]): Steps<CompiledManifests> {
  const webhooks: StaticWebhook[] = [];
  const errors: string[] = [];
  for (const configuration of configurations) {
    const configurationName = configuration.metadata?.name ?? '';
    const repeats = new Map<string, number>();
    const list = configuration.webhooks ?? [];
    for (let i = 0; i < list.length; i++) {
      const webhook = list[i]!;
      const name = webhook.name ?? '';
      const n = repeats.get(name) ?? 0;
      repeats.set(name, n + 1);
      try {
        const namespaceSelector = parseSelector(name, 'namespaceSelector', webhook.namespaceSelector);
        const objectSelector = parseSelector(name, 'objectSelector', webhook.objectSelector);
        const cel = new ExpressionCompiler('webhookMatchCondition');
        cel.matchConditions(`webhooks[${i}].matchConditions`, webhook.matchConditions);
        yield* cel.compileAll();
        if (cel.errors.length > 0) throw new ManifestError(`webhook "${name}": ${cel.errors.join(', ')}`);
        webhooks.push({ uid: `manifest/${configurationName}/${name}/${n}`, configurationName, webhook, namespaceSelector, objectSelector, matchConditions: cel.compiled });
      } catch (err) {
        if (err instanceof ManifestError) errors.push(err.message);
        else throw err;
      }
      yield;
    }
  }
  // upstream joins every accessor error (errors.Join: one per line)
  if (errors.length > 0) throw new ManifestError(errors.join('\n'));
  return { family: 'webhook', webhooks };
}

function* compilePolicy(plugin: PluginName, policy: AdmissionPolicy): Steps<NamedExpression[]> {
  const spec = policy.spec ?? {};
  // compile.go HasParams: `params` only with a paramKind
  const cel = new ExpressionCompiler(plugin === 'ValidatingAdmissionPolicy' ? 'validatingPolicy' : 'mutatingPolicy', {
    params: spec.paramKind !== undefined && spec.paramKind !== null,
    variableTypes: {},
  });
  const variableNames: string[] = [];
  (spec.variables ?? []).forEach((v, i) => {
    cel.add(`spec.variables[${i}].expression`, v.expression, 'any', { variableNames: [...variableNames], name: v.name, declaresVariable: true });
    if (v.name) variableNames.push(v.name);
  });
  // a policy's matchConditions have no `variables` (upstream: undeclared reference to 'variables')
  cel.matchConditions('spec.matchConditions', spec.matchConditions, false);
  if (plugin === 'ValidatingAdmissionPolicy') {
    const vap = spec as NonNullable<ValidatingAdmissionPolicy['spec']>;
    (vap.validations ?? []).forEach((v, i) => {
      cel.add(`spec.validations[${i}].expression`, v.expression, 'bool', { variableNames });
      // no `authorizer` in a messageExpression (plugin.go compilePolicy: HasAuthorizer false)
      cel.add(`spec.validations[${i}].messageExpression`, v.messageExpression, 'string', { variableNames, environment: 'validatingPolicyMessage' });
    });
    (vap.auditAnnotations ?? []).forEach((a, i) => {
      cel.add(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression, 'stringOrNull', { variableNames, name: a.key });
    });
  }
  if (plugin === 'MutatingAdmissionPolicy') {
    // The patch the patchType names (mutating/compilation.go), with upstream's result type: list(JSONPatch) for
    // jsonPatch, Object for applyConfiguration.
    const map = spec as NonNullable<MutatingAdmissionPolicy['spec']>;
    (map.mutations ?? []).forEach((m, i) => {
      if (m.patchType === 'JSONPatch') {
        cel.add(`spec.mutations[${i}].jsonPatch.expression`, m.jsonPatch?.expression, 'jsonPatch', { variableNames });
      } else if (m.patchType === 'ApplyConfiguration') {
        cel.add(`spec.mutations[${i}].applyConfiguration.expression`, m.applyConfiguration?.expression, 'applyConfiguration', { variableNames });
      }
    });
  }
  yield* cel.compileAll();
  if (cel.errors.length > 0) {
    throw new ManifestError(`failed to compile policy "${policy.metadata?.name ?? ''}": ${cel.errors.join(', ')}`);
  }
  return cel.compiled;
}

function* compilePolicies(plugin: PluginName, policies: readonly AdmissionPolicy[], bindings: readonly AdmissionPolicyBinding[]): Steps<CompiledManifests> {
  const byPolicy = bindingsByPolicy(bindings);
  const hooks: PolicyHook[] = [];
  for (const policy of policies) {
    hooks.push({ policy, bindings: byPolicy.get(policy.metadata?.name ?? '') ?? [], expressions: yield* compilePolicy(plugin, policy) });
  }
  return { family: 'policy', hooks };
}

/** The compile as pausable steps (see steps.ts). */
export function compileSteps(plugin: PluginName, loaded: LoadedManifests): Steps<CompiledManifests> {
  return loaded.family === 'webhook'
    ? compileWebhooks(loaded.configurations)
    : compilePolicies(plugin, loaded.policies, loaded.bindings);
}

/** Builds the admission-time form of loaded manifests. Throws ManifestError with upstream's message. */
export function compileManifests(plugin: PluginName, loaded: LoadedManifests): CompiledManifests {
  return runSync(compileSteps(plugin, loaded));
}

/** compileManifests in slices, the event loop running between them (a reload while serving). */
export function compileManifestsSliced(plugin: PluginName, loaded: LoadedManifests): Promise<CompiledManifests> {
  return runSliced(compileSteps(plugin, loaded));
}
