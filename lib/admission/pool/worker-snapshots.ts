// A policy worker's compiled snapshots: every snapshot compiled once, keyed by plugin and content hash, at most
// `maxSnapshots` per plugin kept (the current one and the previous, for requests read just before a reload). The
// snapshots current at start are compiled at once, before the worker takes a task; a reloaded one arrives on the
// pool's channel and is compiled in slices between tasks; a task naming one this worker does not have asks the main
// thread for it and waits, bounded by its deadline.
import { threadId } from 'node:worker_threads';
import type { BroadcastChannel } from 'node:worker_threads';
import { compileManifests, compileManifestsSliced } from '../../manifest/compile.js';
import type { CompiledManifests, PolicyHook } from '../../manifest/compile.js';
import type { PluginName } from '../../manifest/plugins.js';
import { compiledPolicy } from '../validating/validator.js';
import type { CompiledPolicy } from '../validating/validator.js';
import { snapshotKey } from './protocol.js';
import type { ChannelMessage, SnapshotData } from './protocol.js';

export interface WorkerSnapshot {
  readonly hooks: readonly PolicyHook[];
  /** the ValidatingAdmissionPolicy hooks' compiled policies, by hook index (PolicyTasks name hooks by index) */
  readonly policies: readonly CompiledPolicy[];
}

type Entry = WorkerSnapshot | { readonly error: string };

function entryOf(plugin: PluginName, compile: () => CompiledManifests): Entry {
  try {
    const compiled = compile();
    const hooks = compiled.family === 'policy' ? compiled.hooks : [];
    return { hooks, policies: plugin === 'ValidatingAdmissionPolicy' ? hooks.map((h) => compiledPolicy(h)) : [] };
  } catch (err) {
    // The main thread compiled the same manifests successfully, so this is not expected; tasks naming the
    // snapshot fail (and are answered by the failure policy) instead of waiting.
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

export class WorkerSnapshots {
  /** snapshotKey → compiled snapshot, oldest first */
  readonly #entries = new Map<string, Entry>();
  readonly #plugins = new Map<string, PluginName>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #compiling = new Set<string>();

  constructor(
    private readonly channel: BroadcastChannel,
    private readonly maxSnapshots: number,
    private readonly waitMs: number,
  ) {}

  #post(message: ChannelMessage): void {
    this.channel.postMessage(message);
  }

  /** the snapshots held (their keys), for the hello */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  #installed(plugin: PluginName, hash: string, entry: Entry): void {
    const key = snapshotKey(plugin, hash);
    this.#compiling.delete(key);
    this.#entries.set(key, entry);
    this.#plugins.set(key, plugin);
    const ofPlugin = [...this.#entries.keys()].filter((k) => this.#plugins.get(k) === plugin);
    for (const old of ofPlugin.slice(0, Math.max(0, ofPlugin.length - Math.max(1, this.maxSnapshots)))) {
      this.#entries.delete(old);
      this.#plugins.delete(old);
    }
    const waiting = this.#waiters.get(key);
    this.#waiters.delete(key);
    for (const wake of waiting ?? []) wake();
    this.#post({ type: 'compiled', plugin, hash, threadId, ...('error' in entry ? { error: entry.error } : {}) });
  }

  /** A snapshot current when the worker starts: compiled at once, before the worker takes any task. */
  installNow(snapshot: SnapshotData): void {
    this.#installed(snapshot.plugin, snapshot.hash, entryOf(snapshot.plugin, () => compileManifests(snapshot.plugin, snapshot.manifests)));
  }

  /**
   * A reloaded snapshot: compiled in slices, so that requests read against the previous one keep being evaluated
   * here meanwhile (the main thread evaluates those read against this one itself until every worker has it).
   */
  async install(snapshot: SnapshotData): Promise<void> {
    const key = snapshotKey(snapshot.plugin, snapshot.hash);
    if (this.#entries.has(key) || this.#compiling.has(key)) return;
    this.#compiling.add(key);
    let compiled: CompiledManifests | undefined;
    let failure: unknown;
    try {
      compiled = await compileManifestsSliced(snapshot.plugin, snapshot.manifests);
    } catch (err) {
      failure = err;
    }
    this.#installed(snapshot.plugin, snapshot.hash, entryOf(snapshot.plugin, () => {
      if (compiled === undefined) throw failure;
      return compiled;
    }));
  }

  /** the key get() built last: a request names the snapshot the one before it named, so the string is reused */
  #lastKey = { plugin: '', hash: '', key: '' };

  #keyOf(plugin: PluginName, hash: string): string {
    const last = this.#lastKey;
    if (last.plugin !== plugin || last.hash !== hash) this.#lastKey = { plugin, hash, key: snapshotKey(plugin, hash) };
    return this.#lastKey.key;
  }

  /** The compiled snapshot, waited for (asking the main thread) until `deadline` at most. */
  async get(plugin: PluginName, hash: string, deadline: number): Promise<WorkerSnapshot> {
    const key = this.#keyOf(plugin, hash);
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#post({ type: 'need', plugin, hash, threadId });
      const waitMs = Math.max(0, Math.min(this.waitMs, deadline - Date.now()));
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.get(key)?.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, waitMs);
        let set = this.#waiters.get(key);
        if (set === undefined) this.#waiters.set(key, (set = new Set()));
        set.add(wake);
      });
      entry = this.#entries.get(key);
      if (entry === undefined) throw new Error(`policy snapshot ${hash || '""'} did not reach the worker within ${waitMs}ms`);
    }
    if ('error' in entry) throw new Error(`policy snapshot ${hash} failed to compile on the worker: ${entry.error}`);
    return entry;
  }
}
