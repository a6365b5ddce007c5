// The first look at an event, on the reading thread: whether it can be replayed at all, and which object it writes
// (the key that sends every write of one object to the same shard, so its old-object tracking sees them in order).
// Most of a busy log is reads and the other stages; they are told from the event's text without parsing it. The
// log backend writes an Event's fields in the Go struct's order (level, auditID, stage, requestURI, verb, user, …,
// objectRef, …, requestObject, responseObject), so the first `"stage":`, `"verb":`, `"level":` and `"objectRef":` of
// a line are the event's own: JSON escapes every quote inside a string, and the objects come after them.
import type { AuditRecord } from './events.js';

/** Why an event is not replayed (the `skipped` counts). */
export type SkipReason =
  | 'stage' // not ResponseComplete (RequestReceived, ResponseStarted, Panic)
  | 'read' // a verb that is no write: get, list, watch (and connect verbs outside connect subresources)
  | 'level' // Metadata: no request object
  | 'deletecollection' // admitted per item, and the items are not in the log
  | 'failed' // the write failed before or outside admission (404, 409, 422, 5xx…)
  | 'no-object' // a write without the object its operation needs
  | 'malformed'; // not an audit Event

export const skipReasons: readonly SkipReason[] = ['stage', 'read', 'level', 'deletecollection', 'failed', 'no-object', 'malformed'];

/** The verbs that reach admission (S/endpoints/installer.go: POST create, PUT update, PATCH patch, DELETE delete). */
const writeVerbs: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete']);

/** Subresources whose requests are CONNECTs, whatever the HTTP method (exec and attach over websockets are GETs). */
export const connectSubresources: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward', 'proxy']);

export type Classified = { readonly skip: SkipReason } | { readonly key: string };

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

/** Classifies a record, parsing its text only for a create whose name the apiserver generated. */
export function classifyRecord(record: AuditRecord): Classified {
  if (record.event !== undefined) return classifyEvent(record.event);
  const text = record.text!;
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
  } catch {
    return { skip: 'malformed' };
  }
  return { key: keyOf(ref!, createdName(event)) };
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
