// matchPolicy Equivalent without a RESTMapper: the built-in resources kube-apiserver 1.36 serves in more than one
// version (or group) by default, their kinds, and the conversions between them (upstream's
// EquivalentResourceMapper, ObjectConvertor and admission.ConvertToGVK, staging/src/k8s.io/apiserver/pkg/admission/
// conversion.go). Every other built-in resource is served in one version only, so its only equivalent is itself;
// for other groups (custom resources, aggregated APIs) the equivalents are unknown here.
import type { GroupVersionKind, GroupVersionResource } from '../../api/admission.js';
import { apiVersionOf } from '../../api/builtin-types.js';
import { eventCoreToEvents, eventEventsToCore } from './event.js';
import { hpaV1ToV2, hpaV2ToV1 } from './hpa.js';
import { isObject } from './json.js';
import type { JsonObject } from './json.js';

export interface EquivalentResource {
  readonly resource: Readonly<GroupVersionResource>;
  readonly kind: Readonly<GroupVersionKind>;
}

interface EquivalenceClass {
  readonly subResources: readonly string[];
  /** in the order the apiserver registers them (legacy group first, then by group; versions by priority) */
  readonly members: readonly EquivalentResource[];
}

const member = (group: string, version: string, resource: string, kind: string): EquivalentResource =>
  Object.freeze({ resource: Object.freeze({ group, version, resource }), kind: Object.freeze({ group, version, kind }) });

const classes: readonly EquivalenceClass[] = [
  { subResources: ['', 'status'], members: [member('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'), member('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler')] },
  { subResources: [''], members: [member('', 'v1', 'events', 'Event'), member('events.k8s.io', 'v1', 'events', 'Event')] },
];

/**
 * API groups kube-apiserver 1.36 itself serves (pkg/controlplane: the REST storage providers, plus apiextensions and
 * apiregistration): outside the table above, each of their resources is served in one version by default.
 */
const builtinGroups: ReadonlySet<string> = new Set([
  '', 'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'apps', 'authentication.k8s.io',
  'authorization.k8s.io', 'autoscaling', 'batch', 'certificates.k8s.io', 'coordination.k8s.io', 'discovery.k8s.io',
  'events.k8s.io', 'flowcontrol.apiserver.k8s.io', 'internal.apiserver.k8s.io', 'networking.k8s.io', 'node.k8s.io',
  'policy', 'rbac.authorization.k8s.io', 'resource.k8s.io', 'scheduling.k8s.io', 'storage.k8s.io', 'storagemigration.k8s.io',
]);

export function isBuiltinGroup(group: string): boolean {
  return builtinGroups.has(group);
}

const sameResource = (a: Readonly<GroupVersionResource>, b: Readonly<GroupVersionResource>): boolean =>
  (a.group ?? '') === (b.group ?? '') && (a.version ?? '') === (b.version ?? '') && (a.resource ?? '') === (b.resource ?? '');

/** EquivalentResourcesFor (with KindFor): the class `resource` belongs to, itself included; undefined when the
 * table does not know it. */
export function equivalentResources(resource: Readonly<GroupVersionResource>, subResource: string): readonly EquivalentResource[] | undefined {
  for (const c of classes) {
    if (c.subResources.includes(subResource) && c.members.some((m) => sameResource(m.resource, resource))) return c.members;
  }
  return undefined;
}

type Converter = (o: JsonObject) => JsonObject;

const kindKey = (k: Readonly<GroupVersionKind>): string => `${k.group ?? ''}/${k.version ?? ''}/${k.kind ?? ''}`;

const converters: ReadonlyMap<string, Converter> = new Map([
  ['autoscaling/v2/HorizontalPodAutoscaler>autoscaling/v1/HorizontalPodAutoscaler', hpaV2ToV1],
  ['autoscaling/v1/HorizontalPodAutoscaler>autoscaling/v2/HorizontalPodAutoscaler', hpaV1ToV2],
  ['/v1/Event>events.k8s.io/v1/Event', eventCoreToEvents],
  ['events.k8s.io/v1/Event>/v1/Event', eventEventsToCore],
]);

/** Field by field: called per policy and request, so no key strings are built. */
export function sameKind(a: Readonly<GroupVersionKind>, b: Readonly<GroupVersionKind>): boolean {
  return (a.group ?? '') === (b.group ?? '') && (a.version ?? '') === (b.version ?? '') && (a.kind ?? '') === (b.kind ?? '');
}

/** Whether an object of kind `from` can be had as `to` (the same kind, or a conversion in the table). */
export function canConvert(from: Readonly<GroupVersionKind>, to: Readonly<GroupVersionKind>): boolean {
  return sameKind(from, to) || converters.has(`${kindKey(from)}>${kindKey(to)}`);
}

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export function gvkString(k: Readonly<GroupVersionKind>): string {
  return `${k.group ?? ''}/${k.version ?? ''}, Kind=${k.kind ?? ''}`;
}


/** The list of conversions this daemon has, for messages. */
export const conversionsAvailable = 'static-admissiond converts only HorizontalPodAutoscaler (autoscaling/v1, autoscaling/v2) and Event (v1, events.k8s.io/v1)';

/**
 * ConvertToGVK for the JSON object of a request: `object` (of kind `from`) as kind `to`. The same value when the
 * kinds agree or there is no object (null stays null). Throws when the table has no such conversion (callers check
 * canConvert when matching, so a request never gets here without one).
 */
export function convertObject(object: unknown, from: Readonly<GroupVersionKind>, to: Readonly<GroupVersionKind>): unknown {
  if (sameKind(from, to) || !isObject(object)) return object;
  const convert = converters.get(`${kindKey(from)}>${kindKey(to)}`);
  if (convert === undefined) throw new Error(`no conversion from ${gvkString(from)} to ${gvkString(to)}: ${conversionsAvailable}`);
  return convert(object);
}

/**
 * The scheme's name in a kube-apiserver release build: legacyscheme's `runtime.NewScheme()` at
 * k8s.io/kubernetes pkg/api/legacyscheme/scheme.go:30, as apimachinery util/naming GetNameFromCallsite names it.
 */
const legacySchemeName = 'pkg/api/legacyscheme/scheme.go:30';

/** The Go type of a built-in kind, as reflect prints it: the package (k8s.io/api/<group>/<version>) is the version. */
const goTypeOf = (k: Readonly<GroupVersionKind>): string => `${k.version ?? ''}.${k.kind ?? ''}`;

/**
 * The error a MutatingAdmissionPolicy's successful patch of a built-in object ends in when the policy matched another
 * version than the request's (`request`: the attributes' kind, the one the request was made to): the dispatcher
 * converts the patched object with `ConvertToVersion(obj, versionedAttributes.GetKind().GroupVersion())`, and
 * GetKind is the request's kind, not the matched one (k8s.io/apiserver pkg/admission/plugin/policy/mutating/
 * dispatcher.go dispatchOne). The scheme converts between versions only through the internal type, so that fails:
 * runtime/scheme.go convertToVersion (another group: not suitable) and conversion/converter.go Convert (the same
 * group: unknown conversion). Undefined when the kinds agree.
 */
export function patchedVersionConversionError(matched: Readonly<GroupVersionKind>, request: Readonly<GroupVersionKind>): string | undefined {
  if (sameKind(matched, request)) return undefined;
  if ((matched.group ?? '') !== (request.group ?? '')) {
    return `${goTypeOf(matched)} is not suitable for converting to ${JSON.stringify(apiVersionOf(request.group ?? '', request.version ?? ''))} in scheme ${JSON.stringify(legacySchemeName)}`;
  }
  return `converting (${goTypeOf(matched)}) to (${request.version ?? ''}.${matched.kind ?? ''}): unknown conversion`;
}
