// The load pipeline shared by the daemon, `validate` and `review`: read+hash → decode/default/validate → compile.
// Split in stages because the reload loop treats them differently (content-hash short-circuit between them). The
// decode and compile stages come synchronous (the initial load, the CLI) and sliced (a reload while serving: the
// event loop runs between slices, so a large directory does not hold requests).
import { compileManifests, compileManifestsSliced } from '../manifest/compile.js';
import type { CompiledManifests } from '../manifest/compile.js';
import { readManifestFilesSync } from '../manifest/files.js';
import type { ManifestFiles } from '../manifest/files.js';
import { countKinds, loadManifests, loadManifestsSliced } from '../manifest/load.js';
import type { DocumentCache, LoadedManifests } from '../manifest/load.js';
import type { PluginName } from '../manifest/plugins.js';
import { freezeSnapshot } from './snapshot.js';
import type { Snapshot } from './snapshot.js';

export { readManifestFilesSync, loadManifests, compileManifests, loadManifestsSliced, compileManifestsSliced };
export type { ManifestFiles, LoadedManifests, CompiledManifests };

export function makeSnapshot(plugin: PluginName, dir: string, hash: string, manifests: LoadedManifests, compiled: CompiledManifests, loadedAt = new Date()): Snapshot {
  return freezeSnapshot({ plugin, dir, hash, loadedAt, manifests, compiled, counts: countKinds(plugin, manifests) });
}

/** Loads a directory completely and synchronously: what the initial load and `validate` do. Throws ManifestError. */
export function loadSnapshotSync(plugin: PluginName, dir: string, cache?: DocumentCache): Snapshot {
  const files = readManifestFilesSync(dir);
  const manifests = loadManifests(plugin, files, cache);
  return makeSnapshot(plugin, dir, files.hash, manifests, compileManifests(plugin, manifests));
}
