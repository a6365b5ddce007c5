// One plugin's static manifest source, as upstream's static sources: a synchronous initial load that must succeed,
// then a watch (chokidar) plus a polling fallback that re-read the directory, short-circuit on an unchanged content
// hash, and swap in a new snapshot only when everything loaded and compiled; on any failure the previous snapshot
// stays. A reload decodes, validates and compiles in slices (lib/manifest/steps.ts) so that serving goes on
// meanwhile, against the previous snapshot until the one-reference swap. Counting, logs and metrics follow upstream exactly (see checkAndReload).
import { EventEmitter } from 'node:events';
import { statSync, watch as watchFs } from 'node:fs';
import type { FSWatcher as DirectoryWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.js';
import { ManifestError, manifestDirErrorCode } from '../manifest/errors.js';
import { DocumentCache } from '../manifest/load.js';
import { initialLoadMessage, pluginKinds } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import type { ReloadMetrics } from '../metrics/reload.js';
import { compileManifestsSliced, loadManifestsSliced, loadSnapshotSync, makeSnapshot, readManifestFilesSync } from './pipeline.js';
import type { Snapshot } from './snapshot.js';

export interface ManifestSourceOptions {
  plugin: PluginName;
  dir: string;
  /** polling fallback period; default 60 000 (upstream's one minute) */
  intervalMs?: number;
  /** quiet time after a watch event before re-reading, so an editor's unlink+add is read once; default 20 */
  debounceMs?: number;
  /** set false to poll only (no file watcher) */
  watch?: boolean;
  metrics: ReloadMetrics;
  logger: Logger;
}

export type ReloadOutcome = 'unchanged' | 'reloaded' | 'load-failed' | 'compile-failed';

export interface ReloadEvent {
  plugin: PluginName;
  outcome: ReloadOutcome;
  hash: string;
  error?: Error;
}

/** Thrown when the initial load fails; carries upstream's `failed to load static … manifests from` message. */
export class InitialLoadError extends Error {
  readonly plugin: PluginName;
  constructor(plugin: PluginName, message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'InitialLoadError';
    this.plugin = plugin;
  }
}

export class ManifestSource extends EventEmitter<{ reload: [ReloadEvent] }> {
  readonly plugin: PluginName;
  readonly dir: string;
  readonly #intervalMs: number;
  readonly #debounceMs: number;
  readonly #watch: boolean;
  readonly #metrics: ReloadMetrics;
  readonly #log: Logger;
  readonly #family: 'webhook' | 'policy';

  #current: Snapshot | undefined;
  #lastReadHash: string | undefined;
  #running: Promise<void> | undefined;
  #rerun = false;
  #watcher: FSWatcher | undefined;
  /** the directory the watch is on (device and inode): another one at the same path means the watch is dead */
  #watchedIdentity: string | undefined;
  /** while the directory is missing: a watch on its parent, for the moment it is back */
  #parentWatcher: DirectoryWatcher | undefined;
  /** schedules a check (debounced); set while run() runs */
  #trigger: (() => void) | undefined;
  /** the queue of watch (re)settings, and whether one is queued */
  #watchTask: Promise<void> = Promise.resolve();
  #renewPending = false;
  /** unchanged documents are not decoded and validated again */
  readonly #documents = new DocumentCache();
  #rewatch = false;

  constructor(options: ManifestSourceOptions) {
    super();
    this.plugin = options.plugin;
    this.dir = options.dir;
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#debounceMs = options.debounceMs ?? 20;
    this.#watch = options.watch ?? true;
    this.#metrics = options.metrics;
    this.#log = options.logger;
    this.#family = pluginKinds[options.plugin].family;
  }

  /** The snapshot admission reads; undefined until the initial load. */
  current(): Snapshot | undefined {
    return this.#current;
  }

  hasSynced(): boolean {
    return this.#current !== undefined;
  }

  /** Synchronous initial load (before any listener opens). Throws InitialLoadError. */
  loadInitial(): Snapshot {
    let snapshot: Snapshot;
    try {
      snapshot = loadSnapshotSync(this.plugin, this.dir, this.#documents);
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      throw new InitialLoadError(this.plugin, initialLoadMessage(this.plugin, this.dir, err.message), err);
    }
    this.#current = snapshot;
    this.#lastReadHash = snapshot.hash;
    if (this.#family === 'webhook') {
      this.#log.info('Loaded manifest-based webhook configurations', { plugin: this.plugin, configurations: snapshot.manifests.family === 'webhook' ? snapshot.manifests.configurations.length : 0 });
    } else {
      this.#log.info('Loaded manifest-based admission policy configurations', { plugin: this.plugin, count: snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks.length : 0 });
    }
    this.#metrics.recordSuccess(this.plugin, snapshot.hash);
    return snapshot;
  }

  /**
   * Re-reads the directory once (upstream's checkAndReload). Runs are serialized; a request during a run schedules
   * exactly one more run after it, so events that arrive together collapse into one.
   */
  checkAndReload(): Promise<void> {
    if (this.#running) {
      this.#rerun = true;
      return this.#running;
    }
    const run = async (): Promise<void> => {
      try {
        do {
          this.#rerun = false;
          this.emit('reload', await this.#reloadOnce());
        } while (this.#rerun);
      } finally {
        // Cleared in the same turn the loop ends, so a request made by a 'reload' listener starts a new run.
        this.#running = undefined;
      }
    };
    this.#running = run();
    return this.#running;
  }

  async #reloadOnce(): Promise<ReloadEvent> {
    const plugin = this.plugin;
    const fields = { plugin, dir: this.dir };
    let files;
    let manifests;
    try {
      files = readManifestFilesSync(this.dir);
      // Unchanged bytes decode to the same result, so skipping the decode is the same as upstream's order.
      if (files.hash === this.#lastReadHash) return { plugin, outcome: 'unchanged', hash: files.hash };
      manifests = await loadManifestsSliced(plugin, files, this.#documents);
    } catch (err) {
      const error = asError(err);
      // The directory is gone (or unreadable): any watch on it is dead; set a new one once it is back.
      if (error instanceof ManifestError && error.code === manifestDirErrorCode) this.#renewWatchIfReplaced();
      this.#log.error(error, this.#family === 'webhook' ? 'reloading admission manifest config' : 'reloading manifest config', fields);
      this.#metrics.recordFailure(plugin);
      return { plugin, outcome: 'load-failed', hash: '', error };
    }
    // Set before compiling, as upstream: a compile failure is recorded once per distinct content.
    this.#lastReadHash = files.hash;
    let compiled;
    try {
      compiled = await compileManifestsSliced(plugin, manifests);
    } catch (err) {
      const error = asError(err);
      this.#log.error(error, this.#family === 'webhook' ? 'manifest webhook accessor validation failed after reload' : 'compiling manifest config', fields);
      this.#metrics.recordFailure(plugin);
      return { plugin, outcome: 'compile-failed', hash: files.hash, error };
    }
    this.#current = makeSnapshot(plugin, this.dir, files.hash, manifests, compiled);
    this.#log.info(this.#family === 'webhook' ? 'reloaded admission manifest config' : 'reloaded manifest config', fields);
    this.#metrics.recordSuccess(plugin, files.hash);
    return { plugin, outcome: 'reloaded', hash: files.hash };
  }

  /**
   * Watches and polls until `signal` aborts. Like upstream's WatchUntil: a check right after the watch is set, one
   * per watch event, one per tick; a broken watch is re-established on the next tick. Beyond upstream, a watch whose
   * directory was removed or replaced is renewed at once (upstream re-adds it on the Remove/Rename event, which fails
   * while the directory is missing), and a missing directory is waited for with a watch on its parent, so a
   * replaced directory never leaves changes waiting for the tick.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    let debounce: NodeJS.Timeout | undefined;
    const trigger = (): void => {
      if (signal.aborted) return;
      clearTimeout(debounce);
      debounce = setTimeout(() => void this.checkAndReload(), this.#debounceMs);
    };
    this.#trigger = trigger;
    if (this.#watch) this.#startWatch();
    void this.checkAndReload();
    const ticker = setInterval(() => {
      if (this.#watch && this.#rewatch) this.#startWatch();
      void this.checkAndReload();
    }, this.#intervalMs);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.#trigger = undefined;
    clearInterval(ticker);
    clearTimeout(debounce);
    await this.#watchTask;
    await this.#stopWatch();
    await this.#running;
  }

  /**
   * Queues setting the watch on the directory as it is now. One at a time, each after the previous watcher has closed:
   * chokidar shares one fs watch per path among its instances, and a new instance made while the old one is still
   * open would listen on the old, dead directory. Changes made before a watch is live (while there was none, or
   * while chokidar sets its fs watch, which it does asynchronously) are caught by a check once it is: upstream's
   * check right after registering a watch (util/filesystem/watchuntil.go).
   */
  #startWatch(): void {
    this.#renewPending = true;
    this.#watchTask = this.#watchTask.then(() => this.#setWatch());
  }

  async #setWatch(): Promise<void> {
    await this.#stopWatch();
    this.#renewPending = false;
    const trigger = this.#trigger;
    if (trigger === undefined) return;
    const identity = directoryIdentity(this.dir);
    if (identity === undefined) {
      this.#awaitDirectory();
      return;
    }
    this.#rewatch = false;
    this.#watchedIdentity = identity;
    const dirName = basename(this.dir);
    let watcher: FSWatcher;
    try {
      // The directory and its direct children; every event is only a trigger to re-read and hash everything.
      // Not persistent (run()'s ticker keeps the process alive): a chokidar watcher closed while it is still being
      // set up on a directory that just vanished drops the fs watch it made on the parent without closing it
      // (chokidar 5 _addToNodeFs), and a persistent one would then hold the process open after run() returned.
      watcher = watch(this.dir, { depth: 0, ignoreInitial: true, persistent: false, followSymlinks: false });
    } catch (err) {
      this.#log.error(err, 'watching manifest directory', { plugin: this.plugin, dir: this.dir });
      this.#rewatch = true;
      return;
    }
    watcher.on('all', (event, path) => {
      if (event === 'unlinkDir' && path === this.dir && watcher === this.#watcher) this.#renewWatchIfReplaced(true);
      trigger();
    });
    // chokidar throttles repeated 'change' events of one path (50 ms); the raw fs events are not, and a second
    // write right after a reload must not wait for the poll. The directory itself being removed or renamed arrives
    // as a raw 'rename' named after it (inotify's DELETE_SELF / MOVE_SELF): from then on the watch follows a dead
    // inode. (A child of the same name reports the same; renewing for it is merely redundant.)
    watcher.on('raw', (event, name, details) => {
      if (event === 'rename' && watcher === this.#watcher) {
        const self = name === dirName && (details as { watchedPath?: unknown } | undefined)?.watchedPath === this.dir;
        this.#renewWatchIfReplaced(self);
      }
      trigger();
    });
    watcher.on('error', (err) => {
      this.#log.error(err, 'watching manifest directory', { plugin: this.plugin, dir: this.dir });
      this.#rewatch = true;
    });
    watcher.on('ready', () => trigger());
    this.#watcher = watcher;
  }

  /**
   * Renews the watch when the directory at the path is no longer the one watched (removed, or replaced), or when
   * `selfEvent` says the watched directory itself was removed or renamed: a directory made right after the old one was
   * removed can reuse its inode number, so the identity alone cannot tell.
   */
  #renewWatchIfReplaced(selfEvent = false): void {
    if (!this.#watch || this.#trigger === undefined || this.#renewPending || this.#parentWatcher !== undefined) return;
    if (!selfEvent && this.#watcher !== undefined && directoryIdentity(this.dir) === this.#watchedIdentity) return;
    this.#log.v(2).info('Renewing the watch of a removed or replaced manifest directory', { plugin: this.plugin, dir: this.dir });
    this.#startWatch();
  }

  /**
   * The directory is missing: a watch set on it now would fail, so watch its parent for the name to come back, then
   * set the watch and check. If the parent cannot be watched either, the tick retries (upstream's periodic re-watch).
   */
  #awaitDirectory(): void {
    this.#rewatch = true;
    const name = basename(this.dir);
    let parent: DirectoryWatcher;
    try {
      parent = watchFs(dirname(this.dir), { persistent: false });
    } catch {
      return;
    }
    const back = (): void => {
      if (this.#parentWatcher !== parent || this.#renewPending || directoryIdentity(this.dir) === undefined) return;
      this.#startWatch();
    };
    parent.on('change', (_event, filename) => {
      if (filename === null || filename.toString() === name) back();
    });
    // an error here only means waiting for the tick
    parent.on('error', () => {
      if (this.#parentWatcher === parent) this.#parentWatcher = undefined;
      parent.close();
    });
    this.#parentWatcher = parent;
    // created between the check above and this watch
    back();
  }

  async #stopWatch(): Promise<void> {
    this.#parentWatcher?.close();
    this.#parentWatcher = undefined;
    const w = this.#watcher;
    this.#watcher = undefined;
    this.#watchedIdentity = undefined;
    if (w) await w.close();
  }
}

/** Anything thrown while reloading is a failed reload (kept as such, never a crash of the daemon). */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * The directory at `path` as device, inode and birth time (a freed inode number is soon reused), or undefined when
 * there is none.
 */
function directoryIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return s.isDirectory() ? `${s.dev}:${s.ino}:${s.birthtimeNs}` : undefined;
  } catch {
    return undefined;
  }
}
