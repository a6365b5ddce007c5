// The per-request facts every predicate reads, computed once per AdmissionRequest object and shared by all the
// policies and webhooks it is matched against: the view of the most recent request is memoised (one entry, by
// identity), so the dispatcher's loop over every hook of a snapshot builds it once. (A WeakMap keyed by request
// costs microseconds per insertion in V8, more than the matching itself; interleaving two requests only rebuilds.)
//
// Only the request's identity fields are cached (kind, resource, subResource, their request* twins, name,
// namespace, operation): they never change while a request is admitted. `object` and `oldObject` are read on every
// call, so a caller may replace them (mutating admission) on the same request object. A caller that rewrites an
// identity field must pass a new request object.
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource } from '../../api/admission.js';
import { canConvert, conversionsAvailable, equivalentResources, gvkString, isBuiltinGroup, sameKind } from '../conversion/index.js';
import { undecidable } from './decision.js';
import type { Matched, Undecidable } from './decision.js';
import { isExcludedGroupResource } from './exclusions.js';

/**
 * One version the request can be matched as: its original `requestKind`/`requestResource`, an equivalent the
 * conversion table knows, or the `kind`/`resource` the apiserver converted the object to for this daemon.
 */
export interface RequestTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subResource: string;
  /** rule-resource keys (`<resource>/<subresource>`, see rules.ts) this target is found under */
  readonly keyExact: string;
  readonly keyAnyResource: string;
  readonly keyAnySubResource: string;
  /** upstream's `attr.GetResource() == {"" v1 namespaces}` (namespaces are cluster-scoped) */
  readonly isNamespaceResource: boolean;
  /** the answer when a hook matches this target: built once per request; an error when the object (in the
   * request's `kind`) cannot be converted to this target's kind */
  readonly decision: Matched | Undecidable;
}

export interface RequestView {
  readonly operation: string;
  readonly namespace: string;
  readonly name: string;
  /** the request's `kind`/`resource`/`subResource`: the version `object` is in */
  readonly primary: RequestTarget;
  /** the original request (`requestKind`/`requestResource`/`requestSubResource`): what upstream's admission
   * attributes are. The same object as `primary` when the two agree or the request* fields are absent. */
  readonly original: RequestTarget;
  /** matchPolicy Equivalent's other candidates, in upstream's order: the original's equivalents from the conversion
   * table, then `primary` when it is none of them */
  readonly equivalents: readonly RequestTarget[];
  /** the original's equivalents are unknown here (not a built-in group): set to the error a rule that names its
   * group and resource in another version answers */
  readonly unknownEquivalents: Undecidable | undefined;
  /** one of the authentication/authorization review resources (exclusions.ts) */
  readonly virtualResource: boolean;
  /** a request on a Namespace itself (group "", resource namespaces, any subresource) */
  readonly namespaceObject: boolean;
}

const emptyKind: Readonly<GroupVersionKind> = Object.freeze({ group: '', version: '', kind: '' });
const emptyResource: Readonly<GroupVersionResource> = Object.freeze({ group: '', version: '', resource: '' });

// Views and their decisions are built per request: plain objects with readonly types (Object.freeze costs more
// than building them).

/** The error for a target the object cannot be converted to (see rules.ts). */
export function noConversion(from: Readonly<GroupVersionKind>, to: string): Undecidable {
  return undecidable(`no conversion from ${gvkString(from)} to ${to}: ${conversionsAvailable}`);
}

function target(kind: Readonly<GroupVersionKind>, gvr: Readonly<GroupVersionResource>, subResource: string, objectKind: Readonly<GroupVersionKind>): RequestTarget {
  const group = gvr.group ?? '';
  const version = gvr.version ?? '';
  const resource = gvr.resource ?? '';
  const convert = !sameKind(kind, objectKind);
  return {
    group,
    version,
    resource,
    subResource,
    keyExact: `${resource}/${subResource}`,
    keyAnyResource: `*/${subResource}`,
    keyAnySubResource: `${resource}/*`,
    isNamespaceResource: group === '' && version === 'v1' && resource === 'namespaces',
    decision: canConvert(objectKind, kind) ? { matches: true, kind, resource: gvr, subResource, convert } : noConversion(objectKind, gvkString(kind)),
  };
}

function sameResource(a: Readonly<GroupVersionResource>, b: Readonly<GroupVersionResource>): boolean {
  return (a.group ?? '') === (b.group ?? '') && (a.version ?? '') === (b.version ?? '') && (a.resource ?? '') === (b.resource ?? '');
}

function isNamespace(t: RequestTarget): boolean {
  return t.group === '' && t.resource === 'namespaces';
}

function buildView(request: AdmissionRequest): RequestView {
  const kind = request.kind ?? emptyKind;
  const resource = request.resource ?? emptyResource;
  const subResource = request.subResource ?? '';
  const primary = target(kind, resource, subResource, kind);
  let original = primary;
  const requestResource = request.requestResource;
  if (requestResource != null) {
    const requestKind = request.requestKind ?? kind;
    const requestSubResource = request.requestSubResource ?? subResource;
    if (!sameResource(requestResource, resource) || !sameKind(requestKind, kind) || requestSubResource !== subResource) {
      original = target(requestKind, requestResource, requestSubResource, kind);
    }
  }
  const equivalents: RequestTarget[] = [];
  const known = equivalentResources({ group: original.group, version: original.version, resource: original.resource }, original.subResource);
  for (const e of known ?? []) {
    if (e.resource.group === original.group && e.resource.version === original.version && e.resource.resource === original.resource) continue;
    const same = primary !== original && e.resource.group === primary.group && e.resource.version === primary.version && e.resource.resource === primary.resource;
    equivalents.push(same ? primary : target(e.kind, e.resource, original.subResource, kind));
  }
  if (primary !== original && !equivalents.includes(primary)) equivalents.push(primary);
  return {
    operation: request.operation ?? '',
    namespace: request.namespace ?? '',
    name: request.name ?? '',
    primary,
    original,
    equivalents,
    unknownEquivalents: known === undefined && !isBuiltinGroup(original.group)
      ? noConversion(kind, `another version of ${original.resource}${original.group === '' ? '' : `.${original.group}`}`)
      : undefined,
    virtualResource: isExcludedGroupResource(original.group, original.resource) || isExcludedGroupResource(primary.group, primary.resource),
    namespaceObject: isNamespace(original) || isNamespace(primary),
  };
}

let lastRequest: AdmissionRequest | undefined;
let lastView: RequestView | undefined;

export function requestView(request: AdmissionRequest): RequestView {
  if (request !== lastRequest || lastView === undefined) {
    lastView = buildView(request);
    lastRequest = request;
  }
  return lastView;
}
