// Type-check warnings: what kube-apiserver's type checker would put in a policy's status.typeChecking, which a
// static manifest has no status to show. Upstream (admission/plugin/policy/validating/typechecking.go, run by the
// controller manager for REST ValidatingAdmissionPolicies) checks every validations[].expression and
// messageExpression against the schema of each kind the policy's matchConstraints can match, at most 10 kinds:
// `object` and `oldObject` take the kind's type, `params` is absent (static manifests have no paramKind; dyn with one),
// `request`, `namespaceObject`, `authorizer` and `variables` are typed, and the variables are compiled in the same
// environment first. A wildcard group or version leaves a rule out, a wildcard or subresource leaves a resource out,
// an unknown resource or a kind without a schema is skipped: no warning. A warning is `fieldRef` plus
// `<gvk>: <cel-go issues>` per kind, joined as TypeCheckingResults.String() joins them.
//
// Beyond upstream, with the same environment and wording: MutatingAdmissionPolicy mutations[] expressions (the
// `Object…` types of an apply configuration declared from the schema, so a misspelt field is named), and every
// webhook's matchConditions[] against the kinds of its rules. Warnings never change what loads.

import { BUILTIN_SCHEMAS, groupVersion, gvkString, kindObjectTypes, typeCheckExpression } from '../cel/index.js';
import type { CelEnvironment, GroupVersionKind, ObjectTypes, SchemaSource } from '../cel/index.js';
import type { MatchCondition, Rule, Variable } from '../api/types.js';
import type { AdmissionPolicy, LoadedManifests, WebhookConfiguration } from './load.js';
import { manifestFileOf } from './load.js';
import { runSliced, runSync } from './steps.js';
import type { Steps } from './steps.js';

/** typechecking.go maxTypesToCheck */
export const MAX_TYPES_TO_CHECK = 10;

/** One expression's warning, as upstream's ExpressionWarning, with the object and file it belongs to. */
export interface TypeCheckWarning {
  /** `ValidatingAdmissionPolicy "name"` */
  readonly owner: string;
  readonly file: string | undefined;
  /** `spec.validations[0].expression` */
  readonly fieldRef: string;
  /** `apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'` and its snippet */
  readonly warning: string;
}

export interface TypeCheckReport {
  readonly warnings: readonly TypeCheckWarning[];
  /** `group/version/resource` of every matched resource with no known kind, each once, with who matches it */
  readonly unknownResources: ReadonlyMap<string, readonly string[]>;
}

/** One line of output for a warning (the snippet lines follow it). */
export function formatTypeCheckWarning(w: TypeCheckWarning): string {
  return `${w.owner}${w.file === undefined ? '' : ` in ${JSON.stringify(w.file)}`}: ${w.fieldRef}: type check: ${w.warning.trimEnd()}`;
}

/** The note for resources no schema is known for (custom resources without --crd), one line each. */
export function formatUnknownResources(report: TypeCheckReport): string[] {
  return [...report.unknownResources].map(
    ([resource, owners]) => `no schema for ${resource} (matched by ${owners.join(', ')}): its expressions are not type-checked against it; give the CustomResourceDefinition with --crd DIR`,
  );
}

interface Context {
  readonly source: SchemaSource;
  readonly types: Map<string, ObjectTypes | null>;
  readonly unknown: Map<string, string[]>;
}

function describe(kind: string, name: string | undefined): string {
  return `${kind} "${name ?? ''}"`;
}

function sorted(values: readonly string[]): string[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** typesToCheck: the kinds a policy's or webhook's rules can match, sorted by group, version and kind. */
function kindsToCheck(ctx: Context, owner: string, rules: readonly Rule[]): GroupVersionKind[] {
  const kinds = new Map<string, GroupVersionKind>();
  let count = 0;
  const done = (): GroupVersionKind[] =>
    [...kinds.values()].sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  for (const rule of rules) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    // extractGroups / extractVersions give up on a wildcard; extractResources skips wildcards and subresources
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    // a resource no group of the rule knows is a custom resource without a schema here (not every pairing of a
    // rule's groups and resources exists, and those are no news)
    for (const version of versions) {
      for (const resource of resources) {
        if (groups.some((g) => ctx.source.kindsFor(g, version, resource) !== undefined)) continue;
        for (const group of groups.filter((g) => g !== '' || groups.length === 1)) {
          const name = `${groupVersion(group, version)}/${resource}`;
          const owners = ctx.unknown.get(name) ?? [];
          if (!owners.includes(owner)) owners.push(owner);
          ctx.unknown.set(name, owners);
        }
      }
    }
    for (const group of sorted(groups)) {
      for (const version of sorted(versions)) {
        for (const resource of sorted(resources)) {
          for (const gvk of ctx.source.kindsFor(group, version, resource) ?? []) {
            kinds.set(gvkString(gvk), gvk);
            if (++count === MAX_TYPES_TO_CHECK) return done();
          }
        }
      }
    }
  }
  return done();
}

/** The checker types of a kind, built once per load; null where it has no schema (skipped, as upstream skips it). */
function typesOf(ctx: Context, gvk: GroupVersionKind): ObjectTypes | null {
  const key = gvkString(gvk);
  let types = ctx.types.get(key);
  if (types === undefined) {
    const schema = ctx.source.schemaOf(gvk);
    types = schema === undefined ? null : kindObjectTypes(schema, gvk.kind, true);
    ctx.types.set(key, types);
  }
  return types;
}

interface Checked {
  readonly gvk: GroupVersionKind;
  readonly types: ObjectTypes;
  /** the variables' output types in this kind's environment (CompileAndStoreVariables) */
  readonly variableTypes: Record<string, string>;
  /** whether `params` is declared (dyn: a static manifest has no paramKind, and no param kind has a schema here) */
  readonly params: boolean;
}

/** Per kind: its types and the variables compiled against them, in declaration order. */
function* prepareKinds(ctx: Context, gvks: readonly GroupVersionKind[], environment: CelEnvironment, variables: readonly Variable[], params: boolean): Steps<Checked[]> {
  const checked: Checked[] = [];
  for (const gvk of gvks) {
    const types = typesOf(ctx, gvk);
    if (types === null) continue;
    const variableTypes: Record<string, string> = {};
    const earlier: string[] = [];
    for (const v of variables) {
      const name = v.name ?? '';
      const result = typeCheckExpression({ expression: v.expression ?? '', environment, variableNames: [...earlier], variableTypes, params }, types);
      // a variable that fails is declared dyn (composition.go AddField with no output type)
      if (name !== '' && result.issues === undefined) variableTypes[name] = result.outputType;
      if (name !== '') earlier.push(name);
      yield;
    }
    checked.push({ gvk, types, variableTypes, params });
  }
  return checked;
}

/** CheckExpression over every kind: upstream's TypeCheckingResults.String(), or undefined when all check. */
function checkOver(kinds: readonly Checked[], expression: string, environment: CelEnvironment, variableNames: readonly string[] | undefined): string | undefined {
  const messages: string[] = [];
  for (const k of kinds) {
    const result = typeCheckExpression(
      variableNames === undefined
        ? { expression, environment, composition: false, params: false }
        : { expression, environment, variableNames, variableTypes: k.variableTypes, params: k.params },
      k.types,
    );
    if (result.issues !== undefined) messages.push(`${gvkString(k.gvk)}: ${result.issues}\n`);
  }
  return messages.length === 0 ? undefined : messages.join('\n');
}

function policyExpressions(policy: AdmissionPolicy): Array<[fieldRef: string, expression: string]> {
  const spec = policy.spec ?? {};
  const out: Array<[string, string]> = [];
  if ('validations' in spec) {
    (spec.validations ?? []).forEach((v, i) => {
      out.push([`spec.validations[${i}].expression`, v.expression ?? '']);
      // messageExpression is optional
      if (v.messageExpression) out.push([`spec.validations[${i}].messageExpression`, v.messageExpression]);
    });
  }
  if ('mutations' in spec) {
    (spec.mutations ?? []).forEach((m, i) => {
      if (m.applyConfiguration?.expression) out.push([`spec.mutations[${i}].applyConfiguration.expression`, m.applyConfiguration.expression]);
      if (m.jsonPatch?.expression) out.push([`spec.mutations[${i}].jsonPatch.expression`, m.jsonPatch.expression]);
    });
  }
  return out;
}

function* checkPolicy(ctx: Context, kind: string, policy: AdmissionPolicy, warnings: TypeCheckWarning[]): Steps<void> {
  const owner = describe(kind, policy.metadata?.name);
  const mutating = kind === 'MutatingAdmissionPolicy';
  const environment: CelEnvironment = mutating ? 'mutatingPolicy' : 'validatingPolicy';
  const spec = policy.spec ?? {};
  const gvks = kindsToCheck(ctx, owner, spec.matchConstraints?.resourceRules ?? []);
  if (gvks.length === 0) return;
  const variables = spec.variables ?? [];
  // a paramKind never loads statically; the checker is still asked (tools, libraries written for REST policies)
  const kinds = yield* prepareKinds(ctx, gvks, environment, variables, spec.paramKind != null);
  const names = variables.map((v) => v.name ?? '').filter((n) => n !== '');
  for (const [fieldRef, expression] of policyExpressions(policy)) {
    const warning = checkOver(kinds, expression, environment, names);
    if (warning !== undefined) warnings.push({ owner, file: manifestFileOf(policy), fieldRef, warning });
    yield;
  }
}

function* checkWebhooks(ctx: Context, kind: string, configuration: WebhookConfiguration, warnings: TypeCheckWarning[]): Steps<void> {
  const owner = describe(kind, configuration.metadata?.name);
  for (const [i, webhook] of (configuration.webhooks ?? []).entries()) {
    const conditions: readonly MatchCondition[] = webhook.matchConditions ?? [];
    if (conditions.length === 0) continue;
    const kinds = yield* prepareKinds(ctx, kindsToCheck(ctx, owner, webhook.rules ?? []), 'webhookMatchCondition', [], false);
    for (const [j, c] of conditions.entries()) {
      const warning = checkOver(kinds, c.expression ?? '', 'webhookMatchCondition', undefined);
      if (warning !== undefined) warnings.push({ owner, file: manifestFileOf(configuration), fieldRef: `webhooks[${i}].matchConditions[${j}].expression`, warning });
      yield;
    }
  }
}

/** The type check as pausable steps (steps.ts): between expressions. */
function* typeCheckSteps(primaryKind: string, loaded: LoadedManifests, source: SchemaSource): Steps<TypeCheckReport> {
  const ctx: Context = { source, types: new Map(), unknown: new Map() };
  const warnings: TypeCheckWarning[] = [];
  if (loaded.family === 'webhook') for (const c of loaded.configurations) yield* checkWebhooks(ctx, primaryKind, c, warnings);
  else for (const p of loaded.policies) yield* checkPolicy(ctx, primaryKind, p, warnings);
  return { warnings, unknownResources: ctx.unknown };
}

/** The type-check warnings of a loaded directory (of `primaryKind` objects), in load order (sorted by name). */
export function typeCheckManifests(primaryKind: string, loaded: LoadedManifests, source: SchemaSource = BUILTIN_SCHEMAS): TypeCheckReport {
  return runSync(typeCheckSteps(primaryKind, loaded, source));
}

/** typeCheckManifests in slices, the event loop running between them (after a reload while serving). */
export function typeCheckManifestsSliced(primaryKind: string, loaded: LoadedManifests, source: SchemaSource = BUILTIN_SCHEMAS): Promise<TypeCheckReport> {
  return runSliced(typeCheckSteps(primaryKind, loaded, source));
}
