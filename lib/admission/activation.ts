// The CEL variables a policy sees for one request (cel.CreateAdmissionRequest and CreateNamespaceObject upstream),
// with this daemon's namespace rule: a namespace is known only by its kubernetes.io/metadata.name label.
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../api/admission.js';
import { CelActivation, compositedVariableError } from '../cel/index.js';
import type { CompiledExpression } from '../cel/index.js';

export const namespaceNameLabel = 'kubernetes.io/metadata.name';

/** What matched: the version the policy is invoked with (upstream's matchKind / matchResource). */
export interface MatchedTarget {
  readonly kind: Readonly<GroupVersionKind>;
  readonly resource: Readonly<GroupVersionResource>;
  readonly subResource: string;
}

/** `request` in CEL: the AdmissionRequest with the matched kind/resource, without object/oldObject/uid. */
export function celRequest(request: AdmissionRequest, target: MatchedTarget): Record<string, unknown> {
  return {
    kind: target.kind,
    resource: target.resource,
    subResource: target.subResource,
    requestKind: request.requestKind ?? request.kind ?? null,
    requestResource: request.requestResource ?? request.resource ?? null,
    requestSubResource: request.requestSubResource ?? request.subResource ?? '',
    name: request.name ?? '',
    namespace: request.namespace ?? '',
    operation: request.operation ?? '',
    userInfo: request.userInfo ?? {},
    dryRun: request.dryRun ?? false,
    options: request.options ?? null,
  };
}

/** A Namespace object itself is cluster-scoped: upstream unsets its namespace. */
export function isNamespaceObject(request: AdmissionRequest): boolean {
  const k = request.kind;
  return k?.group === '' && k.version === 'v1' && k.kind === 'Namespace';
}

/** `namespaceObject` in CEL: null for cluster-scoped requests, else the name and its metadata.name label. */
export function celNamespaceObject(request: AdmissionRequest): Record<string, unknown> | null {
  const name = isNamespaceObject(request) ? '' : request.namespace ?? '';
  if (name === '') return null;
  return { metadata: { name, labels: { [namespaceNameLabel]: name } } };
}

export interface CompiledVariable {
  readonly name: string;
  readonly compiled: CompiledExpression;
}

/**
 * `variables` in CEL: each composition variable evaluated at most once per request, on first use, later ones able
 * to read earlier ones. An evaluation error is remembered and raised again wherever the variable is read, as
 * composition.go's `composited variable "<name>" fails to evaluate: <error>`. (Its `fails to compile` never
 * arises here: a variable that does not compile fails the manifest's load.)
 */
export function lazyVariables(variables: readonly CompiledVariable[], activation: CelActivation | Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const scope = activation instanceof CelActivation ? activation.withVariables(values) : { ...activation, variables: values };
  for (const v of variables) {
    let state: { done: false } | { done: true; value: unknown } | { done: true; error: unknown } = { done: false };
    Object.defineProperty(values, v.name, {
      enumerable: true,
      get() {
        if (!state.done) {
          try {
            state = { done: true, value: v.compiled.evaluate(scope) };
          } catch (error) {
            state = { done: true, error: compositedVariableError(v.name, error) };
          }
        }
        if ('error' in state) throw state.error;
        return state.value;
      },
    });
  }
  return values;
}
