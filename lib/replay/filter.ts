// The first look at an event, on the reading thread: whether it can be replayed at all, and which object it writes
// (the key that sends every write of one object to the same shard, so its old-object tracking sees them in order).
// Most of a busy log is reads and the other stages. A line as kube-apiserver's log backend writes it (compact, the
// Event's fields in the Go struct's order: kind, apiVersion, level, auditID, stage, requestURI, verb, user, …,
// objectRef, …, requestObject, responseObject — S/apis/audit/v1/types.go, plugin/pkg/audit/log/backend.go) is told
// from its text without parsing it: the first `"stage":`, `"verb":`, `"level":` and `"objectRef":` of such a line are
// the event's own, as JSON escapes every quote inside a string and the objects come after them. Any other JSON line
// (re-serialised, hand-made, spaced) is parsed here, and one that is not an audit Event is reported as malformed.
import type { AuditRecord } from './events.js';

/** Why an event is not replayed (the `skipped` counts). */
export type SkipReason =
  | 'stage' // not ResponseComplete (RequestReceived, ResponseStarted, Panic)
  | 'read' // a verb that is no write: get, list, watch (and connect verbs outside connect subresources)
  | 'level' // Metadata: no request object
  | 'deletecollection' // admitted per item, and the items are not in the log
  | 'failed' // the write failed before, after or outside admission's decisions (logged.ts)
  | 'not-sent' // the registration does not send it to the daemon (scope.ts)
  | 'no-object' // a write without the object its operation needs
  | 'malformed'; // not an audit Event

export const skipReasons: readonly SkipReason[] = ['stage', 'read', 'level', 'deletecollection', 'failed', 'not-sent', 'no-object', 'malformed'];

/** The verbs that reach admission (S/endpoints/installer.go: POST create, PUT update, PATCH patch, DELETE delete). */
const writeVerbs: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete']);

/** Subresources whose requests are CONNECTs, whatever the HTTP method (exec and attach over websockets are GETs). */
export const connectSubresources: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward', 'proxy']);

/** A write's tracking key, with the event when it had to be parsed to be classified; or why it is not replayed. */
export type Classified = { readonly skip: SkipReason } | { readonly key: string; readonly event?: Record<string, unknown> } | { readonly malformed: string };

const stageRe = /"stage":"([A-Za-z]+)"/;
const verbRe = /"verb":"([a-z]+)"/;
const levelRe = /"level":"([A-Za-z]+)"/;
const objectRefRe = /"objectRef":(\{[^{}]*\})/;

interface ObjectRefLike {
  readonly apiGroup?: string;
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

function classifyFields(stage: unknown, verb: unknown, level: unknown, ref: ObjectRefLike | undefined): Classified | undefined {
  if (stage !== 'ResponseComplete') return { skip: 'stage' };
  if (level !== 'Request' && level !== 'RequestResponse') return { skip: 'level' };
  if (verb === 'deletecollection') return { skip: 'deletecollection' };
  const connect = ref?.subresource !== undefined && connectSubresources.has(ref.subresource);
  if (!connect && (typeof verb !== 'string' || !writeVerbs.has(verb))) return { skip: 'read' };
  if (ref === undefined || typeof ref.resource !== 'string') return { skip: 'no-object' };
  return undefined;
}

/**
 * The tracking key of an object: group, resource, namespace, name (subresources write their parent). A Namespace is
 * cluster-scoped, although requests on one carry its name as their namespace (S/endpoints/request/requestinfo.go).
 */
export function objectKey(group: string, resource: string, namespace: string, name: string): string {
  return `${group}/${resource}/${group === '' && resource === 'namespaces' ? '' : namespace}/${name}`;
}

function keyOf(ref: ObjectRefLike, name: string): string {
  return objectKey(ref.apiGroup ?? '', ref.resource ?? '', ref.namespace ?? '', name);
}

/** The name a create by generateName got: its response object's (empty at level Request). */
function createdName(event: Record<string, unknown>): string {
  const response = event.responseObject as { metadata?: { name?: unknown } } | undefined;
  return typeof response?.metadata?.name === 'string' ? response.metadata.name : '';
}

/** Classifies a parsed event. */
export function classifyEvent(event: Record<string, unknown>): Classified {
  const ref = typeof event.objectRef === 'object' && event.objectRef !== null ? event.objectRef as ObjectRefLike : undefined;
  const skipped = classifyFields(event.stage, event.verb, event.level, ref);
  if (skipped !== undefined) return skipped;
  return { key: keyOf(ref!, ref!.name || createdName(event)) };
}

/** How the log backend starts every line: the text fast path below relies on its field order. */
const backendPrefix = '{"kind":"Event","apiVersion":"audit.k8s.io/v1",';

/** Why a parsed JSON value is not an audit Event (undefined when it is one). */
export function notAnEvent(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.kind !== undefined && v.kind !== 'Event') return `kind ${JSON.stringify(v.kind)}, not Event`;
  if (v.apiVersion !== undefined && (typeof v.apiVersion !== 'string' || !v.apiVersion.startsWith('audit.k8s.io/'))) return `apiVersion ${JSON.stringify(v.apiVersion)}, not audit.k8s.io`;
  if (typeof v.stage !== 'string' || typeof v.verb !== 'string') return 'no stage or verb: not an audit Event';
  return undefined;
}

/** Classifies a record: the log backend's lines from their text (parsed only for a generated name), others parsed. */
export function classifyRecord(record: AuditRecord): Classified {
  if (record.event !== undefined) {
    const why = notAnEvent(record.event);
    return why === undefined ? classifyEvent(record.event) : { malformed: why };
  }
  const text = record.text!;
  if (!text.startsWith(backendPrefix)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { malformed: (err as Error).message };
    }
    const why = notAnEvent(value);
    if (why !== undefined) return { malformed: why };
    const event = value as Record<string, unknown>;
    const classified = classifyEvent(event);
    return 'key' in classified ? { key: classified.key, event } : classified;
  }
  const refText = objectRefRe.exec(text)?.[1];
  let ref: ObjectRefLike | undefined;
  if (refText !== undefined) {
    try {
      ref = JSON.parse(refText) as ObjectRefLike;
    } catch {
      ref = undefined;
    }
  }
  const skipped = classifyFields(stageRe.exec(text)?.[1], verbRe.exec(text)?.[1], levelRe.exec(text)?.[1], ref);
  if (skipped !== undefined) return skipped;
  if (ref!.name) return { key: keyOf(ref!, ref!.name) };
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return { malformed: (err as Error).message };
  }
  return { key: keyOf(ref!, createdName(event)), event };
}

/** FNV-1a over the key: the shard of an object. */
export function shardOf(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}
