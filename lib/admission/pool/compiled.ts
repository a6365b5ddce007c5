// The main thread's record of the snapshots it handed the workers (the current and the previous one of each policy
// plugin) and which worker threads have compiled which: a request goes to the pool only for a snapshot every worker
// holds compiled, so no task waits for a compile.
import type { PluginName } from '../../manifest/plugins.js';
import { snapshotKey } from './protocol.js';
import type { SnapshotData } from './protocol.js';

export class CompiledSnapshots {
  readonly #current = new Map<PluginName, SnapshotData>();
  readonly #previous = new Map<PluginName, SnapshotData>();
  /** snapshotKey → threadIds that compiled it */
  readonly #compiledBy = new Map<string, Set<number>>();
  /** keys last found compiled on every worker (forgotten when a worker starts) */
  readonly #everywhere = new Set<string>();

  constructor(initial: readonly SnapshotData[]) {
    for (const s of initial) this.#current.set(s.plugin, s);
  }

  /** the current snapshot of each plugin */
  current(): SnapshotData[] {
    return [...this.#current.values()];
  }

  /** Makes `snapshot` its plugin's current one; false when it already was. */
  publish(snapshot: SnapshotData): boolean {
    const current = this.#current.get(snapshot.plugin);
    if (snapshot.hash === current?.hash) return false;
    if (current) this.#previous.set(snapshot.plugin, current);
    else this.#previous.delete(snapshot.plugin);
    this.#current.set(snapshot.plugin, snapshot);
    const kept = new Set([...this.#current.values(), ...this.#previous.values()].map((s) => snapshotKey(s.plugin, s.hash)));
    for (const key of this.#compiledBy.keys()) if (!kept.has(key)) this.#compiledBy.delete(key);
    for (const key of this.#everywhere) if (!kept.has(key)) this.#everywhere.delete(key);
    return true;
  }

  /** The current or previous snapshot of `plugin` with `hash` (what a worker that asks for it is sent). */
  find(plugin: PluginName, hash: string): SnapshotData | undefined {
    return [this.#current.get(plugin), this.#previous.get(plugin)].find((s) => s?.hash === hash);
  }

  /** A worker reports a snapshot compiled; false when it is no longer kept. */
  compiled(plugin: PluginName, hash: string, threadId: number): boolean {
    if (this.find(plugin, hash) === undefined) return false;
    const key = snapshotKey(plugin, hash);
    let set = this.#compiledBy.get(key);
    if (set === undefined) this.#compiledBy.set(key, (set = new Set()));
    set.add(threadId);
    return true;
  }

  workerStarted(): void {
    this.#everywhere.clear();
  }

  /** Every one of `threadIds` has compiled the snapshot (and there is at least one thread). */
  hasCompiled(plugin: PluginName, hash: string, threadIds: () => readonly number[]): boolean {
    const key = snapshotKey(plugin, hash);
    if (this.#everywhere.has(key)) return true;
    const have = this.#compiledBy.get(key);
    const threads = threadIds();
    const all = have !== undefined && threads.length > 0 && threads.every((id) => have.has(id));
    if (all) this.#everywhere.add(key);
    return all;
  }

  /** Every current snapshot is compiled on every thread. */
  isReady(threadIds: () => readonly number[]): boolean {
    return this.current().every((s) => this.hasCompiled(s.plugin, s.hash, threadIds));
  }
}
