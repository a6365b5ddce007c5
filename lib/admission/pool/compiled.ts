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
  /**
   * per plugin, the hashes last found compiled on every worker (forgotten when a worker starts): read on every
   * request, so found by the snapshot's own hash string (its hash code cached) rather than a key built per call
   */
  readonly #everywhere = new Map<PluginName, Set<string>>();

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
    for (const [plugin, hashes] of this.#everywhere) for (const hash of hashes) if (!kept.has(snapshotKey(plugin, hash))) hashes.delete(hash);
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
    let everywhere = this.#everywhere.get(plugin);
    if (everywhere?.has(hash) === true) return true;
    const have = this.#compiledBy.get(snapshotKey(plugin, hash));
    const threads = threadIds();
    const all = have !== undefined && threads.length > 0 && threads.every((id) => have.has(id));
    if (all) {
      if (everywhere === undefined) this.#everywhere.set(plugin, (everywhere = new Set()));
      everywhere.add(hash);
    }
    return all;
  }

  /** Every current snapshot is compiled on every thread. */
  isReady(threadIds: () => readonly number[]): boolean {
    return this.current().every((s) => this.hasCompiled(s.plugin, s.hash, threadIds));
  }
}
