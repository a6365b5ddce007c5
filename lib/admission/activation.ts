// The CEL variables a policy sees for one request (cel.CreateAdmissionRequest and CreateNamespaceObject upstream),
// with this daemon's namespace rule: a namespace is known only by its kubernetes.io/metadata.name label.
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../api/admission.js';
import { AuthorizationPending, CelActivation, compositedVariableError } from '../cel/index.js';
import type { CompiledExpression } from '../cel/index.js';

export const namespaceNameLabel = 'kubernetes.io/metadata.name';

/** What matched: the version the policy is invoked with (upstream's matchKind / matchResource). */
export interface MatchedTarget {
  readonly kind: Readonly<GroupVersionKind>;
  readonly resource: Readonly<GroupVersionResource>;
  readonly subResource: string;
}

/**
 * `request` in CEL, built as upstream builds it: cel.CreateAdmissionRequest (plugin/cel/condition.go) fills an
 * admissionv1.AdmissionRequest from the admission attributes (the original request: requestKind/requestResource
 * here) with the matched kind/resource, and runtime.DefaultUnstructuredConverter.ToUnstructured turns it into a map.
 * That converter drops an `omitempty` field whose value is empty (apimachinery runtime/converter.go
 * structToUnstructured/isEmpty), so `subResource`, `requestSubResource`, `name`, `namespace`, and the userInfo
 * fields are absent when empty (`has()` false, `no such key` on selection). Fields without omitempty are always
 * there: `uid` (never set: ""), the GroupVersionKind/Resource fields (`group: ""` for the core group), `operation`,
 * `userInfo`; `dryRun` is a non-nil pointer; `options`, `object` and `oldObject` are RawExtensions, which the
 * converter never omits: `object`/`oldObject` are null (left unset), `options` is the operation's options or null.
 */
export function celRequest(request: AdmissionRequest, target: MatchedTarget): Record<string, unknown> {
  // attr.GetSubresource(): the original request's (a v1beta1 review may lack the request* fields)
  const subResource = request.requestResource != null ? request.requestSubResource ?? '' : request.subResource ?? '';
  const out: Record<string, unknown> = {
    uid: '',
    kind: gvk(target.kind),
    resource: gvr(target.resource),
  };
  if (subResource !== '') out.subResource = subResource;
  out.requestKind = gvk(request.requestKind ?? request.kind ?? {});
  out.requestResource = gvr(request.requestResource ?? request.resource ?? {});
  if (subResource !== '') out.requestSubResource = subResource;
  if (request.name) out.name = request.name;
  if (request.namespace) out.namespace = request.namespace;
  out.operation = request.operation ?? '';
  out.userInfo = celUserInfo(request.userInfo);
  out.object = null;
  out.oldObject = null;
  out.dryRun = request.dryRun === true;
  out.options = request.options ?? null;
  return out;
}

const gvk = (k: Readonly<GroupVersionKind>): Record<string, string> => ({ group: k.group ?? '', version: k.version ?? '', kind: k.kind ?? '' });
const gvr = (r: Readonly<GroupVersionResource>): Record<string, string> => ({ group: r.group ?? '', version: r.version ?? '', resource: r.resource ?? '' });

/** authenticationv1.UserInfo: every field omitempty (an empty list or map is dropped too: isEmpty checks Len). */
function celUserInfo(u: AdmissionRequest['userInfo']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (u == null) return out;
  if (u.username) out.username = u.username;
  if (u.uid) out.uid = u.uid;
  if (Array.isArray(u.groups) && u.groups.length > 0) out.groups = u.groups;
  if (u.extra != null && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
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

interface VariableEntry {
  readonly variable: CompiledVariable;
  outcome: { readonly value: unknown } | { readonly error: unknown } | undefined;
  /** the actual cost of its one evaluation */
  cost: number;
  /** the variables its evaluation read: evaluating it again (as upstream does per group) reads them again */
  readonly reads: VariableEntry[];
  /** the last group it was charged in */
  charged: number;
}

/** The PolicyVariables a `values` object belongs to (a symbol: not one of its keys as CEL or JSON see them). */
const owner = Symbol('PolicyVariables');

/** One getter per position, shared by every request's `values` for the same variable list. */
const gettersByVariables = new WeakMap<readonly CompiledVariable[], ReadonlyArray<(this: object) => unknown>>();

function variableGetters(variables: readonly CompiledVariable[]): ReadonlyArray<(this: object) => unknown> {
  let getters = gettersByVariables.get(variables);
  if (getters === undefined) {
    getters = variables.map((_, i) => function (this: object): unknown {
      return PolicyVariables.read(this, i);
    });
    gettersByVariables.set(variables, getters);
  }
  return getters;
}

/**
 * `variables` in CEL: each composition variable evaluated at most once per request, on first use, later ones able
 * to read earlier ones. An evaluation error is remembered and raised again wherever the variable is read, as
 * composition.go's `composited variable "<name>" fails to evaluate: <error>`. (Its `fails to compile` never
 * arises here: a variable that does not compile fails the manifest's load.)
 *
 * Cost: upstream gives each evaluation group (one ForInput: the matchConditions, the validations, the
 * messageExpressions, the auditAnnotations, one mutation) a fresh lazy map, so a variable is evaluated, and its cost
 * charged, once per group that reads it (plugin/cel/composition.go variableAccessor.Callback reports it, activation.go
 * Evaluate charges it after the expression). The value is the same in every group, so it is computed once here and
 * only its cost is charged again: `startGroup()` begins a group, `takeCost()` returns what the variables read since the
 * last call cost (upstream's GetAndResetCost), counting a variable and what it read once per group.
 */
export class PolicyVariables {
  /** the `variables` map expressions read */
  readonly values: Record<string, unknown> = {};
  #group = 1;
  #pending = 0;
  #evaluating: VariableEntry | undefined;

  readonly #entries: VariableEntry[];
  readonly #scope: CelActivation | Record<string, unknown>;

  constructor(variables: readonly CompiledVariable[], activation: CelActivation | Record<string, unknown>) {
    this.#scope = activation instanceof CelActivation ? activation.withVariables(this.values) : { ...activation, variables: this.values };
    this.#entries = variables.map((variable) => ({ variable, outcome: undefined, cost: 0, reads: [], charged: 0 }));
    if (variables.length === 0) return;
    // The getters are the same functions for every request (one per position, found through the owner stored under
    // a symbol): V8 then gives every request's `values` the same hidden class. A closure per request made a new one
    // each time, held from old space, which kept the request's CEL values alive through minor GCs until the next
    // full one (most of /mutate's promoted bytes on the bench).
    Object.defineProperty(this.values, owner, { value: this });
    const getters = variableGetters(variables);
    for (let i = 0; i < variables.length; i++) Object.defineProperty(this.values, variables[i]!.name, { enumerable: true, get: getters[i]! });
  }

  /** The value of the variable at `index` (evaluated on its first read): what `values`' getters call. */
  static read(values: object, index: number): unknown {
    const self = (values as { [owner]?: PolicyVariables })[owner]!;
    return self.#read(self.#entries[index]!, self.#scope);
  }

  /** A new evaluation group: every variable is charged again on its first read. */
  startGroup(): void {
    this.#group++;
    this.#pending = 0;
  }

  /** The cost of the variables read since the last call (at most once each per group). */
  takeCost(): number {
    const cost = this.#pending;
    this.#pending = 0;
    return cost;
  }

  #read(entry: VariableEntry, scope: CelActivation | Record<string, unknown>): unknown {
    const reader = this.#evaluating;
    if (reader !== undefined && !reader.reads.includes(entry)) reader.reads.push(entry);
    if (entry.outcome === undefined) {
      const outer = this.#evaluating;
      this.#evaluating = entry;
      const meter = { cost: 0 };
      try {
        entry.outcome = { value: entry.variable.compiled.evaluate(scope, { meter }) };
      } catch (error) {
        // a pending authorization check is not the variable's outcome: the evaluation starts over once it is
        // answered, and this variable with it
        if (error instanceof AuthorizationPending) throw error;
        entry.outcome = { error: compositedVariableError(entry.variable.name, error) };
      } finally {
        this.#evaluating = outer;
        entry.cost = meter.cost;
      }
    }
    this.#charge(entry);
    if ('error' in entry.outcome) throw entry.outcome.error;
    return entry.outcome.value;
  }

  #charge(entry: VariableEntry): void {
    if (entry.charged === this.#group) return;
    entry.charged = this.#group;
    this.#pending += entry.cost;
    for (const read of entry.reads) this.#charge(read);
  }
}
