// What each compile environment declares, after upstream's plugin/cel/compile.go (createEnvForOpts) and
// composition.go: the root variables, and the field structure of the typed ones (request, namespaceObject,
// variables) so that a misspelt field fails at load time with upstream's `undefined field '…'`.
// `authorizer` and `authorizer.requestResource` are declared where upstream declares them (HasAuthorizer: every
// expression but a validation's messageExpression), typed as library/authz.go types them.

import type { CelEnvironment } from './types.js';

/** A statically known shape: an object type with named fields, or a leaf typed as cel-go's FormatCELType prints it. */
export type Schema =
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, Schema>> }
  /** an object type whose fields are all dyn (composition's `variables`) */
  | { readonly kind: 'dynFields'; readonly names: readonly string[] }
  /** `selectable`: field selection on it is allowed (dyn and map types) */
  | { readonly kind: 'leaf'; readonly type: string; readonly selectable: boolean };

const leaf = (type: string): Schema => ({ kind: 'leaf', type, selectable: type === 'dyn' || type.startsWith('map(') });
const object = (fields: Record<string, Schema>): Schema => ({ kind: 'object', fields });

const STRING = leaf('string');
const STRING_LIST = leaf('list(string)');
const TIMESTAMP = leaf('timestamp');

/** compile.go BuildRequestType(): kubernetes.AdmissionRequest without uid, object and oldObject. */
const gvk = object({ group: STRING, version: STRING, kind: STRING });
const gvr = object({ group: STRING, version: STRING, resource: STRING });
export const REQUEST_SCHEMA: Schema = object({
  kind: gvk,
  resource: gvr,
  subResource: STRING,
  requestKind: gvk,
  requestResource: gvr,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: object({
    username: STRING,
    uid: STRING,
    groups: STRING_LIST,
    extra: leaf('map(string, list(string))'),
  }),
  dryRun: leaf('bool'),
  options: leaf('dyn'),
});

/** compile.go BuildNamespaceType(): kubernetes.Namespace, with upstream's field names (`UID` included). */
export const NAMESPACE_SCHEMA: Schema = object({
  metadata: object({
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: leaf('map(string, string)'),
    annotations: leaf('map(string, string)'),
    UID: STRING,
    creationTimestamp: TIMESTAMP,
    deletionGracePeriodSeconds: leaf('int'),
    deletionTimestamp: TIMESTAMP,
    generation: leaf('int'),
    resourceVersion: STRING,
    finalizers: STRING_LIST,
  }),
  spec: object({ finalizers: STRING_LIST }),
  status: object({
    conditions: leaf('list(kubernetes.NamespaceCondition)'),
    phase: STRING,
  }),
});

const DYN_SCHEMA = leaf('dyn');
const NO_VARIABLES: readonly string[] = [];

/** composition.go: `variables` is an object type whose fields are the variables compiled so far. */
export function variablesSchema(names: readonly string[]): Schema {
  return { kind: 'dynFields', names };
}

/** The shape of `field` of an object shape, or undefined if it has no such field. */
export function fieldSchema(shape: Schema & { kind: 'object' | 'dynFields' }, field: string): Schema | undefined {
  if (shape.kind === 'dynFields') return shape.names.includes(field) ? DYN_SCHEMA : undefined;
  return Object.hasOwn(shape.fields, field) ? shape.fields[field] : undefined;
}

export interface EnvironmentDeclarations {
  /** root variables, in upstream's declaration order */
  readonly variables: readonly string[];
  /** whether `variables.<name>` composition is available */
  readonly composition: boolean;
}

/** compile.go createEnvForOpts with HasAuthorizer: the two authorizer variables and their types. */
export const AUTHORIZER_VARIABLES: Readonly<Record<string, string>> = {
  authorizer: 'kubernetes.authorization.Authorizer',
  'authorizer.requestResource': 'kubernetes.authorization.ResourceCheck',
};
const AUTHORIZER = Object.keys(AUTHORIZER_VARIABLES);

const POLICY: EnvironmentDeclarations = {
  variables: ['object', 'oldObject', 'namespaceObject', 'request', 'params', ...AUTHORIZER, 'variables'],
  composition: true,
};

export const DECLARATIONS: Readonly<Record<CelEnvironment, EnvironmentDeclarations>> = {
  validatingPolicy: POLICY,
  // plugin.go compilePolicy / validation.go validateMessageExpression: HasAuthorizer false
  validatingPolicyMessage: { variables: ['object', 'oldObject', 'namespaceObject', 'request', 'params', 'variables'], composition: true },
  mutatingPolicy: POLICY,
  // The documented webhook matchCondition variables (admissionregistration/v1 MatchCondition): no params, no
  // namespaceObject, no composition. Upstream's shared compiler does declare namespaceObject here too (always
  // null at run time for webhooks); this daemon rejects it so that a condition that can never see a namespace
  // fails at load instead of silently reading null. accessors.go compiles them with HasAuthorizer.
  webhookMatchCondition: { variables: ['object', 'oldObject', 'request', ...AUTHORIZER], composition: false },
};

/** The declared variables whose names are qualified (`authorizer.requestResource`), per environment. */
export function qualifiedVariables(kind: CelEnvironment): ReadonlySet<string> {
  return new Set(DECLARATIONS[kind].variables.filter((v) => v.includes('.')));
}

/** Root schema of a declared variable, if it is statically typed. */
export function rootSchema(name: string, variableNames: readonly string[] | undefined, decl: EnvironmentDeclarations): Schema | undefined {
  switch (name) {
    case 'request':
      return REQUEST_SCHEMA;
    case 'namespaceObject':
      return NAMESPACE_SCHEMA;
    case 'variables':
      return decl.composition ? variablesSchema(variableNames ?? NO_VARIABLES) : undefined;
    default:
      return undefined;
  }
}
