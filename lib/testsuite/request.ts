// A case's AdmissionRequests, built as kube-apiserver builds the ones it sends its webhooks:
//
// - kind and resource from the built-in type table (or the case's explicit resource), requestKind/requestResource/
//   requestSubResource equal to them, a fresh uid per call, userInfo with system:authenticated added
//   (S/authentication/group/authenticated_group_adder.go), empty fields left out as Go's omitempty leaves them out,
//   `object` null on DELETE, `oldObject` null on CREATE and CONNECT, `dryRun` always present, `options` the
//   meta.k8s.io/v1 Create/Update/DeleteOptions the handler decoded (null on CONNECT)
//   (S/admission/plugin/webhook/request/admissionreview.go CreateV1AdmissionReview);
// - the request namespace filled and the object's namespace made to match, cleared for cluster-scoped kinds, and a
//   Namespace's own name as the namespace of requests on it (S/endpoints/handlers/create.go createHandler,
//   S/endpoints/request/requestinfo.go, S/registry/rest/meta.go EnsureObjectNamespaceMatchesRequestNamespace);
// - CREATE: the system fields wiped before mutating admission (rest.WipeObjectMetaSystemFields: creationTimestamp
//   null on typed objects, absent on custom ones); then, before validating admission, `uid` and `creationTimestamp`
//   filled (rest.FillObjectMetaSystemFields) and a generateName resolved into `metadata.name` and the request's name
//   (S/registry/generic/registry/store.go Store.create with names.SimpleNameGenerator,
//   S/registry/rest/create.go AdmissionToValidateObjectFunc) — so /mutate sees no name, /validate the generated one;
// - UPDATE, before validating admission: generation, uid, creationTimestamp and the deletion fields carried over
//   from the stored object (S/registry/rest/update.go BeforeUpdate);
// - the stored object (oldObject) with the uid and creationTimestamp every stored object has;
// - a Namespace's `kubernetes.io/metadata.name` label (pkg/apis/core/v1/defaults.go SetDefaults_Namespace).
//
// Not reproduced: the apiserver's defaulting of built-in types (a Pod's restartPolicy, …), managedFields, and the
// registry strategies (PrepareForCreate clearing status, …): write what a policy reads into the resource.
import { randomInt, randomUUID } from 'node:crypto';
import type { AdmissionRequest, UserInfo } from '../api/admission.js';
import type { JsonObject, JsonValue } from '../manifest/document.js';
import { namespaceNameLabel } from '../admission/matching/namespace-selector.js';
import { cloneJson } from '../json/index.js';
import { isObject, SuiteError } from './fields.js';
import { apiVersionOf, builtinByKind, builtinByResource, connectOptionKinds, parseAPIVersion } from '../api/builtin-types.js';
import type { GroupVersionKind, GroupVersionResource } from '../api/builtin-types.js';
import type { CaseSpec, Operation } from './suite.js';
import { ownValue } from '../json/own.js';

export interface PreparedCase {
  readonly spec: CaseSpec;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly namespaced: boolean;
  /** the request's namespace ('' for cluster-scoped requests) */
  readonly namespace: string;
  /** the request's name as /mutate sees it ('' for a CREATE by generateName) */
  readonly name: string;
  readonly generateName: string;
  /** the object /mutate is sent */
  readonly object: JsonObject | null;
  /** the stored object */
  readonly oldObject: JsonObject | null;
  readonly options: JsonObject | null;
  readonly userInfo: UserInfo;
  /** what the case states that the daemon cannot use (printed with the result) */
  readonly notes: readonly string[];
}

export const optionFields: Record<'CREATE' | 'UPDATE' | 'DELETE', { kind: string; fields: readonly string[] }> = {
  // Go struct order of metav1.CreateOptions / UpdateOptions / DeleteOptions, dryRun taken from the case
  CREATE: { kind: 'CreateOptions', fields: ['dryRun', 'fieldManager', 'fieldValidation'] },
  UPDATE: { kind: 'UpdateOptions', fields: ['dryRun', 'fieldManager', 'fieldValidation'] },
  DELETE: { kind: 'DeleteOptions', fields: ['gracePeriodSeconds', 'preconditions', 'orphanDependents', 'propagationPolicy', 'dryRun', 'ignoreStoreReadErrorWithClusterBreakingPotential'] },
};

const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

function metadata(o: JsonObject): JsonObject {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata as JsonObject;
}

/** metav1.Time as it marshals: RFC 3339 in seconds. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** names.SimpleNameGenerator: the base cut to 58 characters, then 5 of util/rand's alphanumerics. */
export function generateName(base: string): string {
  const alphanums = 'bcdfghjklmnpqrstvwxz2456789';
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += alphanums[randomInt(alphanums.length)];
  return base.slice(0, 58) + suffix;
}

function userInfoOf(spec: CaseSpec): UserInfo {
  const u = spec.userInfo;
  let groups = [...u.groups];
  if (u.username === 'system:anonymous') {
    // the anonymous authenticator's user (S/authentication/request/anonymous)
    if (groups.length === 0) groups = ['system:unauthenticated'];
  } else if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) {
    groups.push('system:authenticated');
  }
  const info: UserInfo = { username: u.username };
  if (u.uid !== undefined) info.uid = u.uid;
  info.groups = groups;
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) info.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return info;
}

function optionsOf(spec: CaseSpec, fail: (m: string) => SuiteError): JsonObject | null {
  if (spec.operation === 'CONNECT') {
    if (spec.options !== undefined) throw fail(`${spec.path}.options: Forbidden: a CONNECT request carries no options`);
    return null;
  }
  const { kind, fields } = optionFields[spec.operation];
  const given = spec.options ?? {};
  for (const k of Object.keys(given)) {
    if (k === 'dryRun') throw fail(`${spec.path}.options.dryRun: Forbidden: set the case's dryRun`);
    if (!fields.includes(k)) throw fail(`strict decoding error: unknown field "${spec.path}.options.${k}" (${kind} fields: ${fields.filter((f) => f !== 'dryRun').join(', ')})`);
  }
  const out: JsonObject = { kind, apiVersion: 'meta.k8s.io/v1' };
  for (const f of fields) {
    if (f === 'dryRun') {
      if (spec.dryRun) out.dryRun = ['All'];
    } else if (given[f] !== undefined) out[f] = given[f]!;
  }
  return out;
}

function checkObjects(spec: CaseSpec, fail: (m: string) => SuiteError): JsonObject {
  const need = (key: 'object' | 'oldObject', why: string): JsonObject => {
    const o = spec[key];
    if (o === undefined) throw fail(`${spec.path}.${key}: Required value: ${why}`);
    return o;
  };
  const forbid = (key: 'object' | 'oldObject', why: string): void => {
    if (spec[key] !== undefined) throw fail(`${spec.path}.${key}: Forbidden: ${why}`);
  };
  if (spec.requestName !== undefined && spec.operation !== 'CONNECT') throw fail(`${spec.path}.requestName: Forbidden: only a CONNECT request names its object apart (elsewhere metadata.name does)`);
  switch (spec.operation) {
    case 'CREATE':
      forbid('oldObject', 'a CREATE has no stored object');
      return need('object', 'the object to create');
    case 'UPDATE': {
      const object = need('object', 'the object after the update');
      const old = need('oldObject', 'the stored object an UPDATE replaces');
      if (object.apiVersion !== old.apiVersion || object.kind !== old.kind) {
        throw fail(`${spec.path}.oldObject: Invalid value: ${str(old.apiVersion)} ${str(old.kind)}: must be the object's type (${str(object.apiVersion)} ${str(object.kind)})`);
      }
      return object;
    }
    case 'DELETE':
      forbid('object', 'a DELETE sends no object (object is null); give the stored object as oldObject');
      return need('oldObject', 'the stored object a DELETE removes');
    case 'CONNECT':
      forbid('oldObject', 'a CONNECT has no stored object');
      if (spec.dryRun) throw fail(`${spec.path}.dryRun: Forbidden: a CONNECT request is never a dry run`);
      if (spec.subResource === '') throw fail(`${spec.path}.subResource: Required value: a CONNECT request is on a subresource (exec, attach, portforward, proxy)`);
      if (spec.requestName === undefined || spec.requestName === '') throw fail(`${spec.path}.requestName: Required value: the name of the object a CONNECT request is on`);
      return need('object', `the ${spec.subResource} options (for example v1 PodExecOptions)`);
  }
}

interface TypeInfo {
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly namespaced: boolean;
  /** a built-in (typed) resource: its wiped creationTimestamp serializes as null */
  readonly typed: boolean;
}

function typeOf(spec: CaseSpec, primary: JsonObject, fail: (m: string) => SuiteError): TypeInfo {
  const apiVersion = str(primary.apiVersion);
  const kindName = str(primary.kind);
  const { group, version } = parseAPIVersion(apiVersion);
  const kind = { group, version, kind: kindName };
  const where = spec.operation === 'DELETE' ? 'oldObject' : 'object';
  const explicit = spec.resource;
  if (explicit !== undefined) {
    const builtin = builtinByResource(explicit.group, explicit.resource);
    if (builtin === undefined) {
      return { kind, resource: { group: explicit.group, version: explicit.version, resource: explicit.resource }, namespaced: explicit.namespaced ?? true, typed: false };
    }
    if (explicit.namespaced !== undefined && explicit.namespaced !== builtin.namespaced) {
      throw fail(`${spec.path}.resource.namespaced: Invalid value: ${explicit.namespaced}: ${builtin.resource} is ${builtin.namespaced ? 'namespaced' : 'cluster-scoped'}`);
    }
    if (!builtin.versions.includes(explicit.version)) {
      throw fail(`${spec.path}.resource.version: Unsupported value: ${JSON.stringify(explicit.version)}: supported values: ${builtin.versions.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    checkSubresourceKind(spec, builtin.subresources, { group: builtin.group, version: explicit.version, kind: builtin.kind }, kind, `${explicit.group === '' ? '' : explicit.group + '/'}${builtin.resource}`, fail);
    return { kind, resource: { group: explicit.group, version: explicit.version, resource: explicit.resource }, namespaced: builtin.namespaced, typed: true };
  }
  const builtin = builtinByKind(group, kindName);
  if (builtin === undefined) {
    throw fail(`${spec.path}.${where}: kind ${JSON.stringify(kindName)} of ${JSON.stringify(apiVersion)} is not in the table of built-in types: give the case a resource ({group, version, resource, namespaced}); for a subresource's kind (Scale, Eviction, PodExecOptions, …) the parent's resource`);
  }
  if (!builtin.versions.includes(version)) {
    throw fail(`${spec.path}.${where}: no matches for kind ${JSON.stringify(kindName)} in version ${JSON.stringify(apiVersion)} (served: ${builtin.versions.map((v) => apiVersionOf(group, v)).join(', ')}); give the case a resource for other versions`);
  }
  checkSubresourceKind(spec, builtin.subresources, kind, kind, builtin.resource, fail);
  return { kind, resource: { group, version, resource: builtin.resource }, namespaced: builtin.namespaced, typed: true };
}

function checkSubresourceKind(spec: CaseSpec, subresources: Readonly<Record<string, GroupVersionKind | null>>, parent: GroupVersionKind, actual: GroupVersionKind, resource: string, fail: (m: string) => SuiteError): void {
  const same = (a: GroupVersionKind, b: GroupVersionKind): boolean => a.group === b.group && a.version === b.version && a.kind === b.kind;
  const show = (k: GroupVersionKind): string => `${apiVersionOf(k.group, k.version)} ${k.kind}`;
  if (spec.subResource === '') {
    if (!same(parent, actual)) throw fail(`${spec.path}: the object is ${show(actual)}, but ${resource} holds ${show(parent)}`);
    return;
  }
  if (!Object.hasOwn(subresources, spec.subResource)) {
    const known = Object.keys(subresources);
    throw fail(`${spec.path}.subResource: Unsupported value: ${JSON.stringify(spec.subResource)}: ${resource} has ${known.length === 0 ? 'no subresources' : `subresources ${known.map((k) => JSON.stringify(k)).join(', ')}`}`);
  }
  const expected = ownValue(subresources, spec.subResource) ?? parent;
  if (!same(expected, actual)) throw fail(`${spec.path}: ${resource}/${spec.subResource} requests carry ${show(expected)}, the object is ${show(actual)}`);
}

/** Checks a case and works out everything its requests share. Throws SuiteError. */
export function prepareCase(spec: CaseSpec, file: string): PreparedCase {
  const fail = (m: string): SuiteError => new SuiteError(file, m);
  const primary = checkObjects(spec, fail);
  if (str(primary.apiVersion) === '' || str(primary.kind) === '') throw fail(`${spec.path}: the object needs apiVersion and kind`);
  for (const key of ['object', 'oldObject'] as const) {
    const meta = spec[key]?.metadata;
    if (meta === undefined || meta === null) continue;
    if (!isObject(meta)) throw fail(`${spec.path}.${key}.metadata: Invalid value: must be an object`);
    for (const f of ['name', 'generateName', 'namespace']) {
      if (meta[f] !== undefined && meta[f] !== null && typeof meta[f] !== 'string') {
        throw fail(`${spec.path}.${key}.metadata.${f}: Invalid value: ${JSON.stringify(meta[f])}: must be a string (quote it: YAML reads y, n, yes, no, on and off as booleans)`);
      }
    }
  }
  const type = typeOf(spec, primary, fail);
  const hasMeta = !(type.kind.group === '' && connectOptionKinds.has(type.kind.kind));
  const notes: string[] = [];

  const object = spec.object === undefined ? null : cloneJson(spec.object);
  const oldObject = spec.oldObject === undefined ? null : cloneJson(spec.oldObject);
  const withMeta = [object, oldObject].filter((o): o is JsonObject => o !== null && hasMeta);

  // the name: the object's (UPDATE: the stored one's as well), or the CONNECT's
  let name = spec.requestName ?? '';
  let generate = '';
  if (hasMeta && spec.operation !== 'CONNECT') {
    const meta = metadata(primary === spec.object ? object! : oldObject!);
    name = str(meta.name);
    generate = str(meta.generateName);
    if (spec.operation === 'CREATE') {
      if (name === '' && generate === '') throw fail(`${spec.path}.object.metadata.name: Required value: name or generateName is required`);
    } else if (name === '') {
      throw fail(`${spec.path}.${spec.operation === 'DELETE' ? 'oldObject' : 'object'}.metadata.name: Required value: an ${spec.operation} is on a named object`);
    }
    if (spec.operation === 'UPDATE' && str(metadata(oldObject!).name) !== name) {
      throw fail(`${spec.path}: the name of the object (${name}) does not match the name on the URL (${str(metadata(oldObject!).name)})`);
    }
  }

  // the namespace: the case's, else the object's, else the suite's default, else "default" (kubectl's)
  let namespace = '';
  const objectNamespaces = [...new Set(withMeta.map((o) => str(metadata(o).namespace)).filter((n) => n !== ''))];
  if (type.namespaced) {
    if (objectNamespaces.length > 1) throw fail(`${spec.path}: object and oldObject are in different namespaces (${objectNamespaces.join(', ')})`);
    if (spec.namespace !== undefined && objectNamespaces.length === 1 && objectNamespaces[0] !== spec.namespace) {
      throw fail(`${spec.path}.namespace: Invalid value: ${JSON.stringify(spec.namespace)}: the namespace of the provided object (${objectNamespaces[0]}) does not match the namespace sent on the request`);
    }
    namespace = spec.namespace ?? objectNamespaces[0] ?? spec.defaultNamespace ?? 'default';
    for (const o of withMeta) metadata(o).namespace = namespace;
  } else {
    if (spec.namespace !== undefined) throw fail(`${spec.path}.namespace: Forbidden: ${type.resource.resource} is cluster-scoped`);
    for (const o of withMeta) delete metadata(o).namespace;
    // requests on a namespace carry its name as their namespace (the URL /api/v1/namespaces/<name>)
    if (type.resource.group === '' && type.resource.resource === 'namespaces') namespace = name;
  }

  if (spec.namespaceLabels !== undefined) {
    if (!type.namespaced) throw fail(`${spec.path}.namespaceLabels: Forbidden: ${type.resource.resource} is cluster-scoped${type.resource.resource === 'namespaces' ? ' (a Namespace\'s labels are in its object)' : ''}`);
    const nameLabel = spec.namespaceLabels[namespaceNameLabel];
    if (nameLabel !== undefined && nameLabel !== namespace) {
      throw fail(`${spec.path}.namespaceLabels.${namespaceNameLabel}: Invalid value: ${JSON.stringify(nameLabel)}: the apiserver sets it to the namespace's name (${JSON.stringify(namespace)})`);
    }
    const others = Object.keys(spec.namespaceLabels).filter((k) => k !== namespaceNameLabel).sort();
    if (others.length > 0) {
      notes.push(`namespace labels ${others.map((k) => JSON.stringify(k)).join(', ')} are not seen by static-admissiond (no API access): it knows a namespace by its ${namespaceNameLabel} label alone, so a namespaceSelector on other labels is decided by the failurePolicy, here as in the daemon`);
    }
  }

  if (type.kind.group === '' && type.kind.kind === 'Namespace') for (const o of withMeta) namespaceLabel(o);
  if (spec.operation === 'CREATE' && hasMeta) wipeSystemFields(object!, type.typed);
  if (oldObject !== null && hasMeta) {
    const meta = metadata(oldObject);
    if (str(meta.uid) === '') meta.uid = randomUUID();
    if (str(meta.creationTimestamp) === '') meta.creationTimestamp = now();
  }

  return {
    spec,
    kind: type.kind,
    resource: type.resource,
    namespaced: type.namespaced,
    namespace,
    name,
    generateName: spec.operation === 'CREATE' && name === '' ? generate : '',
    object,
    oldObject,
    options: optionsOf(spec, fail),
    userInfo: userInfoOf(spec),
    notes,
  };
}

function namespaceLabel(o: JsonObject): void {
  const meta = metadata(o);
  const name = str(meta.name);
  if (name === '') return;
  if (!isObject(meta.labels)) meta.labels = {};
  (meta.labels as JsonObject)[namespaceNameLabel] = name;
}

/** rest.WipeObjectMetaSystemFields, as the create handler runs it before mutating admission. */
export function wipeSystemFields(o: JsonObject, typed: boolean): void {
  const meta = metadata(o);
  if (typed) meta.creationTimestamp = null;
  else delete meta.creationTimestamp;
  for (const f of ['uid', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']) delete meta[f];
}

function request(p: PreparedCase, name: string, object: JsonValue | null): AdmissionRequest {
  const r: AdmissionRequest = { uid: randomUUID(), kind: { ...p.kind }, resource: { ...p.resource } };
  if (p.spec.subResource !== '') r.subResource = p.spec.subResource;
  r.requestKind = { ...p.kind };
  r.requestResource = { ...p.resource };
  if (p.spec.subResource !== '') r.requestSubResource = p.spec.subResource;
  if (name !== '') r.name = name;
  if (p.namespace !== '') r.namespace = p.namespace;
  r.operation = p.spec.operation as Operation;
  r.userInfo = cloneJson(p.userInfo);
  r.object = object;
  r.oldObject = p.oldObject === null ? null : cloneJson(p.oldObject);
  r.dryRun = p.spec.dryRun;
  r.options = p.options === null ? null : cloneJson(p.options);
  return r;
}

/** The request /mutate is sent. */
export function mutateRequest(p: PreparedCase): AdmissionRequest {
  return request(p, p.name, p.object === null ? null : cloneJson(p.object));
}

/** The request /validate is sent, given the object as mutating admission left it (the /mutate object if none ran). */
export function validateRequest(p: PreparedCase, mutated: JsonValue | null): AdmissionRequest {
  if (mutated === null || !isObject(mutated) || p.spec.operation === 'DELETE' || p.spec.operation === 'CONNECT') return request(p, p.name, mutated);
  const object = cloneJson(mutated);
  const meta = metadata(object);
  let name = p.name;
  if (p.spec.operation === 'CREATE' && p.spec.subResource === '') {
    meta.creationTimestamp = now();
    meta.uid = randomUUID();
    if (str(meta.name) === '' && str(meta.generateName) !== '') {
      meta.name = generateName(str(meta.generateName));
      if (p.kind.group === '' && p.kind.kind === 'Namespace') namespaceLabel(object);
    }
    name = str(meta.name);
  } else if (p.spec.operation === 'UPDATE' && p.oldObject !== null) {
    const old = metadata(p.oldObject);
    if (old.generation === undefined) delete meta.generation;
    else meta.generation = old.generation;
    if (str(meta.uid) === '') meta.uid = old.uid ?? '';
    if (str(old.creationTimestamp) !== '') meta.creationTimestamp = old.creationTimestamp!;
    if (str(old.deletionTimestamp) !== '') meta.deletionTimestamp = old.deletionTimestamp!;
    if (old.deletionGracePeriodSeconds !== undefined && old.deletionGracePeriodSeconds !== null && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    }
  }
  return request(p, name, object);
}
