// What each compile environment declares, after upstream's plugin/cel/compile.go (createEnvForOpts) and
// composition.go: the root variables. Their types (request, namespaceObject, variables…) are the checker's
// (checker/admission.ts, checker/environment.ts).
// `authorizer` and `authorizer.requestResource` are declared where upstream declares them (HasAuthorizer: every
// expression but a validation's messageExpression), typed as library/authz.go types them.

import type { CelEnvironment } from './types.js';

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
  // Webhook matchConditions: compile.go createEnvForOpts declares object, oldObject, namespaceObject and request
  // for every expression (HasParams false here; accessors.go compiles them with HasAuthorizer), and the webhook
  // matcher binds no namespace, so namespaceObject is null at run time (webhooks/call.ts). No composition.
  webhookMatchCondition: { variables: ['object', 'oldObject', 'namespaceObject', 'request', ...AUTHORIZER], composition: false },
};

/** The declared variables whose names are qualified (`authorizer.requestResource`), per environment. */
export function qualifiedVariables(kind: CelEnvironment): ReadonlySet<string> {
  return new Set(DECLARATIONS[kind].variables.filter((v) => v.includes('.')));
}
