// The immutable unit the reload side hands to the serving side: one plugin's loaded, validated, compiled
// configuration with its content hash. Replaced by one reference assignment, never mutated.
import type { CompiledManifests } from '../manifest/compile.js';
import type { LoadedManifests } from '../manifest/load.js';
import type { PluginName } from '../manifest/plugins.js';

export interface Snapshot {
  readonly plugin: PluginName;
  readonly dir: string;
  /** upstream's content hash: `sha256:<hex>`, or `""` for a directory with no content */
  readonly hash: string;
  readonly loadedAt: Date;
  readonly manifests: LoadedManifests;
  readonly compiled: CompiledManifests;
  /** kind → objects loaded */
  readonly counts: Readonly<Record<string, number>>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function freezeSnapshot(snapshot: Snapshot): Snapshot {
  deepFreeze(snapshot.manifests);
  return Object.freeze({ ...snapshot, counts: Object.freeze({ ...snapshot.counts }) });
}
