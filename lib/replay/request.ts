// The AdmissionRequests kube-apiserver built for one audited write, rebuilt from its audit Event (audit.k8s.io/v1):
//
// - kind and resource: objectRef's apiGroup/apiVersion/resource/subresource (S/audit/request.go LogRequestMetadata
//   copies them from the RequestInfo), the kind from the built-in table (lib/api/builtin-types.ts, a subresource's own
//   kind such as Scale or PodExecOptions included), else from the logged objects' kind (custom resources);
// - name and namespace: objectRef's (LogRequestObject fills an empty name and namespace from the object, so a create's
//   name is there unless generateName picked it); requests on a Namespace carry its name as their namespace;
// - a generated name: /mutate is sent none (the object has only generateName); /validate the generated one, which the
//   log holds in the responseObject, or in a denial's details (logged.ts): S/registry/generic/registry/store.go create
//   generates it after mutating admission (S/endpoints/handlers/create.go) and before createValidation, which
//   S/registry/rest/create.go AdmissionToValidateObjectFunc sends with the object's new name;
// - operation: create → CREATE, update and patch → UPDATE (a patch that created the object, answered 201, → CREATE,
//   as S/endpoints/handlers/patch.go admits it), delete → DELETE, any verb on a connect subresource → CONNECT;
// - userInfo: impersonatedUser when set, else user (S/endpoints/filters/impersonation.go replaces the request's user
//   with the impersonated one — system:authenticated added — before admission, and LogImpersonatedUser records that
//   user); username, uid, groups, extra, empty ones left out as AdmissionRequest's omitempty leaves them;
// - dryRun and options from the request URI's query (S/endpoints/handlers/create.go, update.go, patch.go decode
//   CreateOptions/UpdateOptions/PatchOptions from it; patch.go's patchToUpdateOptions/patchToCreateOptions keep
//   dryRun, fieldManager, fieldValidation); a DELETE's DeleteOptions from its body (the requestObject) when it had
//   one, else from the query, as delete.go decodes them; options kind/apiVersion meta.k8s.io/v1;
// - the object /mutate is sent: a create's or update's requestObject (LogRequestObject logs the decoded object before
//   the field manager and admission run), system fields wiped on CREATE, with the managedFields the field manager set
//   before admission taken from the responseObject (admission does not change them); a patch applied to the old
//   object when its meaning does not depend on its type, which the log does not record (patch.ts); otherwise unknown;
// - the object /validate is sent: the responseObject (level RequestResponse) — the object as every mutating
//   admission plugin left it, in-tree ones included — with the resourceVersion it had before it was stored; without a
//   responseObject, the /mutate object patched by the /mutate answer, as the apiserver does;
// - oldObject: the tracked response object of the previous write of the same object (objects.ts).
//
// The request uid is the event's auditID: upstream gives every admission call a fresh UUID, and the auditID ties the
// replayed answer to its event.
import type { AdmissionRequest, UserInfo } from '../api/admission.js';
import type { JsonObject } from '../manifest/document.js';
import { builtinByResource, connectOptionKinds } from '../api/builtin-types.js';
import type { GroupVersionKind } from '../api/builtin-types.js';
import { wipeSystemFields } from '../testsuite/request.js';
import { connectSubresources, objectKey } from './filter.js';
import type { SkipReason } from './filter.js';
import type { ObjectTracker, StoredObject } from './objects.js';
import { isGeneratedName, loggedAnswer } from './logged.js';
import type { LoggedDenial, LoggedStatus } from './logged.js';
import { applyLoggedPatch } from './patch.js';
import { connectOptions, deleteOptions, optionsFromQuery, query } from './uri.js';

export interface AuditObjectRef {
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly apiGroup?: string;
  readonly apiVersion?: string;
  readonly resourceVersion?: string;
  readonly subresource?: string;
}

interface AuditUser {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The fields of an audit.k8s.io/v1 Event that replay reads. */
export interface AuditEvent {
  readonly level?: string;
  readonly auditID?: string;
  readonly stage?: string;
  readonly requestURI?: string;
  readonly verb?: string;
  readonly user?: AuditUser;
  readonly impersonatedUser?: AuditUser | null;
  readonly objectRef?: AuditObjectRef;
  readonly responseStatus?: LoggedStatus | null;
  readonly requestObject?: unknown;
  readonly responseObject?: unknown;
}

export type Variable = 'object' | 'oldObject';

/** Something a request needs that the log does not hold. */
export interface Missing {
  readonly variable: Variable;
  readonly reason: string;
}

export interface ReplayCase {
  readonly auditID: string;
  readonly verb: string;
  /** the effective user's name (impersonation applied) */
  readonly user: string;
  readonly objectRef: AuditObjectRef;
  readonly mutate: AdmissionRequest;
  readonly validate: AdmissionRequest;
  /** no response object: /validate is sent the /mutate object with the /mutate answer's patch applied */
  readonly validateAfterMutation: boolean;
  /** the name the apiserver generated before validating admission (set on the object /validate is sent) */
  readonly generatedName?: string;
  /** how the apiserver's admission denied it, when it did */
  readonly logged?: LoggedDenial;
  readonly missing: { readonly mutate: readonly Missing[]; readonly validate: readonly Missing[] };
}

export type Built = { readonly replay: ReplayCase } | { readonly skip: SkipReason };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function meta(o: Obj): Obj {
  if (!isObj(o.metadata)) o.metadata = {};
  return o.metadata as Obj;
}

function userInfoOf(user: AuditUser | null | undefined): UserInfo {
  const info: UserInfo = { username: user?.username ?? '' };
  if (user?.uid) info.uid = user.uid;
  if (user?.groups && user.groups.length > 0) info.groups = [...user.groups];
  if (user?.extra && Object.keys(user.extra).length > 0) info.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return info;
}

interface TypeInfo {
  readonly kind: GroupVersionKind;
  /** the parent resource's kind (the objects the tracker holds) */
  readonly parentKind: string;
  readonly typed: boolean;
  readonly connect: boolean;
}

const kindOf = (o: unknown): string => (isObj(o) && typeof o.kind === 'string' && o.kind !== 'Status' && o.kind !== 'DeleteOptions' ? o.kind : '');

function typeOf(ref: AuditObjectRef, event: AuditEvent, old: StoredObject | undefined): TypeInfo | undefined {
  const group = ref.apiGroup ?? '';
  const version = ref.apiVersion ?? '';
  const sub = ref.subresource ?? '';
  const builtin = builtinByResource(group, ref.resource ?? '');
  if (builtin !== undefined) {
    const subKind = sub === '' ? null : builtin.subresources[sub];
    const kind = subKind ?? { group, version, kind: builtin.kind };
    if (sub !== '' && subKind === undefined) {
      // a subresource the table does not know: the object says what it carries
      const logged = kindOf(event.requestObject) || kindOf(event.responseObject);
      if (logged === '') return undefined;
      return { kind: { group, version, kind: logged }, parentKind: builtin.kind, typed: true, connect: connectSubresources.has(sub) };
    }
    return { kind: { ...kind }, parentKind: builtin.kind, typed: true, connect: kind.group === '' && connectOptionKinds.has(kind.kind) };
  }
  const logged = kindOf(event.requestObject) || kindOf(event.responseObject) || kindOf(old);
  if (logged === '') return undefined;
  return { kind: { group, version, kind: logged }, parentKind: sub === '' ? logged : kindOf(old), typed: false, connect: connectSubresources.has(sub) };
}

function sameType(o: unknown, kind: string): o is Obj {
  return isObj(o) && o.kind === kind;
}

// The chain never changes the requests it is given, so the objects here are shared, not copied: the stored ones
// with the tracker, the event's own with nobody. Only what is changed is copied (an object and its metadata).

/** The object as /validate saw it: the stored one with the resourceVersion it had before this write stored it. */
function beforeStorage(stored: Obj, resourceVersion: string): Obj {
  const m = { ...meta(stored) };
  if (resourceVersion === '') delete m.resourceVersion;
  else m.resourceVersion = resourceVersion;
  return { ...stored, metadata: m };
}

function missing(variable: Variable, reason: string): Missing {
  return { variable, reason };
}

/** What one write's event says, as the per-operation builders below need it. */
interface Write {
  readonly event: AuditEvent;
  readonly verb: string;
  readonly sub: string;
  readonly namespace: string;
  readonly isNamespace: boolean;
  readonly q: URLSearchParams;
  readonly type: TypeInfo;
  /** the stored object the response holds (level RequestResponse, a successful write) */
  readonly stored: Obj | undefined;
  /** the stored object this write replaced, when the tracker holds one of the request's own kind */
  readonly knownOld: Obj | undefined;
  readonly whyNoOld: string;
  readonly logged: LoggedDenial | undefined;
}

/** The objects and options of the two requests, and what the log lacks of them. */
interface Objects {
  mutateObject: Obj | null;
  validateObject: Obj | null;
  oldObject: Obj | null;
  options: Obj | null;
  validateAfterMutation: boolean;
  /** undefined: the objectRef's name */
  mutateName?: string;
  generatedName?: string;
  readonly mutateMissing: Missing[];
  readonly validateMissing: Missing[];
}

/** The managedFields the field manager set before admission, taken from the stored object (admission keeps them). */
function withManagedFields(w: Write, o: Obj): Obj {
  const managedFields = w.stored !== undefined ? meta(w.stored).managedFields : undefined;
  return managedFields === undefined ? o : { ...o, metadata: { ...meta(o), managedFields } };
}

function oldObjectOf(w: Write, out: Objects): void {
  out.oldObject = w.knownOld ?? null;
  if (w.knownOld === undefined) {
    out.mutateMissing.push(missing('oldObject', w.whyNoOld));
    out.validateMissing.push(missing('oldObject', w.whyNoOld));
  }
}

function createObjects(w: Write, out: Objects): void {
  out.options = optionsFromQuery('CREATE', w.q);
  const sent = w.verb === 'create' && sameType(w.event.requestObject, w.type.kind.kind) ? w.event.requestObject : undefined;
  if (sent !== undefined) {
    wipeSystemFields(sent as JsonObject, w.type.typed);
    const m = meta(sent);
    if (w.namespace !== '' && !w.isNamespace && w.sub === '') m.namespace = w.namespace;
    out.mutateObject = withManagedFields(w, sent);
    // a generated name is not known before mutating admission, and is before validating admission
    const generateName = str(m.generateName);
    if (w.sub === '' && str(m.name) === '' && generateName !== '') {
      out.mutateName = '';
      const generated = w.stored !== undefined ? str(meta(w.stored).name) : w.logged?.name ?? '';
      if (isGeneratedName(generated, generateName)) out.generatedName = generated;
    }
  } else {
    out.mutateMissing.push(missing('object', w.verb === 'patch' ? 'a patch that creates an object logs the patch, not the object' : 'the request object is not logged'));
  }
  if (w.stored !== undefined) out.validateObject = beforeStorage(w.stored, '');
  else if (out.mutateObject !== null) out.validateAfterMutation = true;
  else out.validateMissing.push(missing('object', 'neither the created object nor the response is logged'));
}

function updateObjects(w: Write, out: Objects): void {
  out.options = optionsFromQuery('UPDATE', w.q);
  oldObjectOf(w, out);
  const { event, verb, knownOld, type } = w;
  const sentRV = isObj(event.requestObject) && isObj(event.requestObject.metadata) ? str(event.requestObject.metadata.resourceVersion) : '';
  if (knownOld !== undefined && verb === 'update' && sentRV !== '' && sentRV !== str(meta(knownOld).resourceVersion)) {
    // the log skipped a write of this object: the tracked copy is not what this update replaced
    out.oldObject = null;
    const why = `the tracked ${type.kind.kind} has resourceVersion ${str(meta(knownOld).resourceVersion)}, the update replaced ${sentRV} (a write between them is not in the log)`;
    out.mutateMissing.push(missing('oldObject', why));
    out.validateMissing.push(missing('oldObject', why));
  }
  if (verb === 'update' && sameType(event.requestObject, type.kind.kind)) {
    out.mutateObject = withManagedFields(w, event.requestObject);
  } else if (verb === 'patch' && out.oldObject !== null) {
    const patched = applyLoggedPatch(out.oldObject, event.requestObject);
    if ('object' in patched) out.mutateObject = withManagedFields(w, patched.object);
    else out.mutateMissing.push(missing('object', patched.why));
  } else {
    out.mutateMissing.push(missing('object', verb === 'patch' ? 'a patch logs the patch, not the object, and the old object it applies to is not known' : 'the request object is not logged'));
  }
  const previousRV = sentRV !== '' ? sentRV : out.oldObject !== null ? str(meta(out.oldObject).resourceVersion) : '';
  if (w.stored !== undefined) out.validateObject = beforeStorage(w.stored, previousRV !== '' ? previousRV : str(meta(w.stored).resourceVersion));
  else if (out.mutateObject !== null) out.validateAfterMutation = true;
  else out.validateMissing.push(missing('object', verb === 'patch' ? 'a patch logs the patch, not the object, and the response object is not logged (level Request)' : 'the object is not logged'));
}

/**
 * What a stored write left: the tracked object follows the log, and is forgotten when the log does not show it (a
 * denied write or a dry run, not passed here, left the stored object as it was).
 */
function track(tracker: ObjectTracker, key: string, operation: string, response: Obj | undefined, parentKind: string): void {
  if (sameType(response, parentKind) && (operation !== 'DELETE' || str(meta(response).deletionTimestamp) !== '')) tracker.set(key, response);
  else tracker.forget(key);
}

/**
 * Rebuilds the /mutate and /validate requests of one event and records the object it left in `tracker`. `event` must
 * have been classified as a write (filter.ts).
 */
export function buildReplayCase(event: AuditEvent, tracker: ObjectTracker): Built {
  const ref = event.objectRef ?? {};
  const code = event.responseStatus?.code ?? 200;
  const verb = event.verb ?? '';
  const sub = ref.subresource ?? '';
  const group = ref.apiGroup ?? '';
  const resource = ref.resource ?? '';
  // only what admission decided is replayed: a write that failed elsewhere may never have reached it
  const answer = loggedAnswer(event.responseStatus);
  if ('failed' in answer) return { skip: 'failed' };
  const logged = 'denied' in answer ? answer.denied : undefined;
  let name = ref.name ?? '';
  const response = isObj(event.responseObject) ? event.responseObject : undefined;
  if (name === '' && response !== undefined && response.kind !== 'Status') name = str(meta(response).name);
  const key = objectKey(group, resource, ref.namespace ?? '', name);
  const old = tracker.get(key);
  const type = typeOf(ref, event, old);
  if (type === undefined) {
    tracker.forget(key);
    return { skip: 'no-object' };
  }
  const uri = event.requestURI ?? '';
  const q = query(uri);
  const isNamespace = group === '' && resource === 'namespaces';
  const namespace = isNamespace ? name : ref.namespace ?? '';
  const operation = type.connect ? 'CONNECT' : verb === 'create' || (verb === 'patch' && code === 201) ? 'CREATE' : verb === 'delete' ? 'DELETE' : 'UPDATE';

  const base = (requestName: string, object: unknown, out: Objects): AdmissionRequest => {
    const r: AdmissionRequest = { uid: event.auditID ?? '', kind: { ...type.kind }, resource: { group, version: ref.apiVersion ?? '', resource } };
    if (sub !== '') r.subResource = sub;
    r.requestKind = { ...type.kind };
    r.requestResource = { group, version: ref.apiVersion ?? '', resource };
    if (sub !== '') r.requestSubResource = sub;
    if (requestName !== '') r.name = requestName;
    if (namespace !== '') r.namespace = namespace;
    r.operation = operation;
    r.userInfo = userInfoOf(event.impersonatedUser ?? event.user);
    r.object = object ?? null;
    r.oldObject = out.oldObject ?? null;
    r.dryRun = operation !== 'CONNECT' && q.getAll('dryRun').length > 0;
    r.options = out.options;
    return r;
  };
  const w: Write = {
    event, verb, sub, namespace, isNamespace, q, type, logged,
    stored: sameType(response, type.parentKind) && sub === '' ? response : sameType(response, type.kind.kind) ? response : undefined,
    // the stored object this write replaced: only an object of the request's own kind (a Scale is not a Deployment)
    knownOld: old !== undefined && old.kind === type.kind.kind ? old : undefined,
    whyNoOld: old === undefined
      ? `the stored ${type.parentKind} ${namespace === '' || isNamespace ? '' : namespace + '/'}${name} is not in the log before this ${verb} (no earlier RequestResponse write of it${tracker.dropped > 0 ? ', or it was dropped from the tracked objects' : ''})`
      : `the stored ${type.kind.kind} of ${resource}/${sub} is not logged (only the ${type.parentKind})`,
  };
  const out: Objects = { mutateObject: null, validateObject: null, oldObject: null, options: null, validateAfterMutation: false, mutateMissing: [], validateMissing: [] };
  if (operation === 'CONNECT') {
    out.mutateObject = connectOptions(type.kind.kind, sub, uri, q);
    out.validateObject = out.mutateObject;
  } else if (operation === 'CREATE') createObjects(w, out);
  else if (operation === 'UPDATE') updateObjects(w, out);
  else {
    out.options = deleteOptions(event.requestObject, q);
    oldObjectOf(w, out);
  }

  if (operation !== 'CONNECT' && code < 400 && q.getAll('dryRun').length === 0) track(tracker, key, operation, response, type.parentKind);

  const { validateObject, generatedName } = out;
  const validateName = (validateObject !== null ? str(isObj(validateObject.metadata) ? validateObject.metadata.name : '') : '') || generatedName || name;
  return {
    replay: {
      auditID: event.auditID ?? '',
      verb,
      user: (event.impersonatedUser ?? event.user)?.username ?? '',
      objectRef: ref,
      mutate: base(out.mutateName ?? name, out.mutateObject, out),
      validate: base(validateName, validateObject ?? out.mutateObject, out),
      validateAfterMutation: out.validateAfterMutation,
      ...(generatedName === undefined ? {} : { generatedName }),
      ...(logged === undefined ? {} : { logged }),
      missing: { mutate: out.mutateMissing, validate: out.validateMissing },
    },
  };
}
