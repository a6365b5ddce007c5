// The stored objects the log shows, for the oldObject of later UPDATEs and DELETEs: an audit Event never records the
// object a write replaced, only (at level RequestResponse) the one it left, its responseObject. So each write's
// response object is kept, keyed by group/resource/namespace/name, and is the next write's old object.
//
// Bounded: at most `maxObjects` entries, the least recently written dropped first (a Map keeps insertion order; a
// write re-inserts). An object dropped, or never seen, is unknown as an old object, never guessed. A write whose
// result the log does not show (level Request, a response that is a Status, a subresource of another kind) forgets
// the object, so a stale copy is never used. Memory is about maxObjects × the objects' size.
import { namespaceNameLabel } from '../admission/matching/namespace-selector.js';
import { objectKey } from './filter.js';

export type StoredObject = Record<string, unknown>;

export const defaultMaxTrackedObjects = 100_000;

export class ObjectTracker {
  readonly #objects = new Map<string, StoredObject>();
  #dropped = 0;

  constructor(readonly maxObjects: number = defaultMaxTrackedObjects) {}

  get(key: string): StoredObject | undefined {
    return this.#objects.get(key);
  }

  set(key: string, object: StoredObject): void {
    this.#objects.delete(key);
    this.#objects.set(key, object);
    if (this.#objects.size > this.maxObjects) {
      const oldest = this.#objects.keys().next().value as string;
      this.#objects.delete(oldest);
      this.#dropped++;
    }
  }

  forget(key: string): void {
    this.#objects.delete(key);
  }

  get size(): number {
    return this.#objects.size;
  }

  /** objects dropped to stay within maxObjects */
  get dropped(): number {
    return this.#dropped;
  }
}

/** Error for a --namespaces file that is not `kubectl get namespaces -o json` output. */
export class NamespacesFileError extends Error {}

/**
 * The Namespaces of `kubectl get namespaces -o json` (a List of v1 Namespace), as tracked objects: the old object of
 * the log's first UPDATE or DELETE of each namespace. Each gets the kubernetes.io/metadata.name label the apiserver
 * sets on every namespace (pkg/apis/core/v1/defaults.go SetDefaults_Namespace), should an older export lack it.
 */
export function namespaceObjects(list: unknown): Array<[string, StoredObject]> {
  const items = (list as { items?: unknown } | null)?.items;
  if (typeof list !== 'object' || list === null || !Array.isArray(items)) throw new NamespacesFileError('not a list of namespaces (expected the output of kubectl get namespaces -o json)');
  return items.map((item, i) => {
    const ns = item as { kind?: unknown; metadata?: { name?: unknown; labels?: Record<string, unknown> } };
    if (typeof ns !== 'object' || ns === null || ns.kind !== 'Namespace' || typeof ns.metadata?.name !== 'string') {
      throw new NamespacesFileError(`items[${i}]: not a Namespace with a name`);
    }
    const copy = structuredClone(ns) as StoredObject & { metadata: { name: string; labels?: Record<string, unknown> } };
    copy.apiVersion ??= 'v1';
    copy.metadata.labels = { ...(copy.metadata.labels ?? {}), [namespaceNameLabel]: copy.metadata.name };
    return [objectKey('', 'namespaces', '', copy.metadata.name), copy];
  });
}
