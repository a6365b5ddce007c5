// The activation the admission hot path evaluates with (see CelActivation).
import { adoptAsCelValue, toCelValue } from './values.js';

const EMPTY_VARIABLES: Readonly<Record<string, unknown>> = Object.freeze({});

/** `authorizer` and `authorizer.requestResource` (runtime/k8s/authz.ts values), bound together or not at all. */
export interface AuthorizerBinding {
  readonly authorizer: unknown;
  readonly requestResource: unknown;
}

/**
 * The admission variables of one evaluation, converted to CEL values once and held in one fixed shape: what the
 * hot path passes to every expression of a request. Evaluating with a plain activation object instead builds and
 * converts this per expression (a map lookup and a check per variable), and the differing object shapes make the
 * runtime's variable reads polymorphic; with this class they cost a field load. Missing variables are null.
 */
export class CelActivation {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly params: unknown;
  readonly namespaceObject: unknown;
  /** composition variables (lazily evaluated getters are read as they are) */
  readonly variables: Readonly<Record<string, unknown>>;
  /** undefined where upstream binds no authorizer: reading it is `no such attribute(s): authorizer` */
  readonly authorizer: unknown;
  readonly 'authorizer.requestResource': unknown;

  private constructor(object: unknown, oldObject: unknown, request: unknown, params: unknown, namespaceObject: unknown, variables: Readonly<Record<string, unknown>>, authz: AuthorizerBinding | undefined) {
    this.object = object;
    this.oldObject = oldObject;
    this.request = request;
    this.params = params;
    this.namespaceObject = namespaceObject;
    this.variables = variables;
    this.authorizer = authz?.authorizer;
    this['authorizer.requestResource'] = authz?.requestResource;
  }

  private get authz(): AuthorizerBinding | undefined {
    return this.authorizer === undefined ? undefined : { authorizer: this.authorizer, requestResource: this['authorizer.requestResource'] };
  }

  /** Converts the JSON values once; `variables` is taken as it is. */
  static of(values: { readonly object?: unknown; readonly oldObject?: unknown; readonly request?: unknown; readonly params?: unknown; readonly namespaceObject?: unknown; readonly variables?: Readonly<Record<string, unknown>> }): CelActivation {
    return new CelActivation(
      toCelValue(values.object ?? null), toCelValue(values.oldObject ?? null), toCelValue(values.request ?? null),
      toCelValue(values.params ?? null), toCelValue(values.namespaceObject ?? null), values.variables ?? EMPTY_VARIABLES, undefined,
    );
  }

  /**
   * Like `of`, but object and oldObject are converted in place (adoptAsCelValue): for JSON this thread parsed
   * for itself and will not read as JSON again.
   */
  static adopt(values: { readonly object?: unknown; readonly oldObject?: unknown; readonly request?: unknown; readonly params?: unknown; readonly namespaceObject?: unknown }): CelActivation {
    return new CelActivation(
      adoptAsCelValue(values.object ?? null), adoptAsCelValue(values.oldObject ?? null), toCelValue(values.request ?? null),
      toCelValue(values.params ?? null), toCelValue(values.namespaceObject ?? null), EMPTY_VARIABLES, undefined,
    );
  }

  /** The same values with another `object`, already converted (see jsonToCelValueAfter). */
  withCelObject(object: unknown): CelActivation {
    return new CelActivation(object, this.oldObject, this.request, this.params, this.namespaceObject, this.variables, this.authz);
  }

  /** The same values with another `request` (JSON, converted here): a policy invoked with another matched kind. */
  withRequest(request: unknown): CelActivation {
    return new CelActivation(this.object, this.oldObject, toCelValue(request ?? null), this.params, this.namespaceObject, this.variables, this.authz);
  }

  /** The same values with a policy's own composition variables. */
  withVariables(variables: Readonly<Record<string, unknown>>): CelActivation {
    return new CelActivation(this.object, this.oldObject, this.request, this.params, this.namespaceObject, variables, this.authz);
  }

  /** The same values with `authorizer` bound (undefined: unbound, as for messageExpression and auditAnnotations). */
  withAuthorizer(authz: AuthorizerBinding | undefined): CelActivation {
    return new CelActivation(this.object, this.oldObject, this.request, this.params, this.namespaceObject, this.variables, authz);
  }
}
