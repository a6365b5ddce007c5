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
            // a pending authorization check is not the variable's outcome: the evaluation starts over once it is
            // answered, and this variable with it
            if (error instanceof AuthorizationPending) throw error;
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
