// `serve --shadow-admission-config`: a candidate manifest set loaded, watched and swapped beside the enforced one
// (the same ManifestSource), and decided on the live requests after their answer has gone out, on a worker thread
// of its own. It never changes an answer and never slows one down: the main thread only copies the body and the
// answer's bytes into a message, and drops the request from shadowing (counted by reason) when the evaluations
// waiting reach their bound or the worker has used more than its share of a core. A candidate that does not load
// is logged and counted in its own series, keeps its last good snapshot, and never stops the daemon or its readiness.
// The requests answered in one turn of the event loop go to the worker as one message, and it answers each such batch
// with one report (protocol.ts): measured by bench/shadow.ts, the per-request messages cost the main thread more
// than the copy.
//
// The enforced side's decisions are computed again on the worker, from the enforced snapshots it is sent: an answer
// tells the first denial only. Both sets' webhooks are left out (lib/shadow/evaluate.ts).
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import { readAdmissionConfiguration } from '../config/admission-config.js';
import type { FeatureGates } from '../config/feature-gates.js';
import type { HealthCheck } from '../health/checks.js';
import type { Logger } from '../log/logger.js';
import { ManifestSource } from '../reload/manifest-source.js';
import type { ShadowEndpoint } from './evaluate.js';
import { createShadowMetrics } from './metrics.js';
import type { ShadowMetrics, SkipReason } from './metrics.js';
import { packRequests, shadowEndpoints } from './protocol.js';
import type { AnsweredRequest, FromWorker, PolicyPlugin, ReportMessage, SetSide, ShadowWorkerData, ToWorker } from './protocol.js';

export interface ShadowBudget {
  /** shadow evaluations sent to the worker and not answered yet, at most; more are skipped (`queue_full`) */
  readonly maxInFlight: number;
  /** the share of one core the worker may use over a window; above it requests are skipped (`cpu_budget`) */
  readonly cpuShare: number;
  /** the window the worker's CPU use is measured over, ms */
  readonly windowMs: number;
  /** requests whose answer the candidate would change logged per second at most; the rest are counted in the next line's `suppressed` */
  readonly logLinesPerSecond: number;
  /** how often the worker hands over its counts and differences, ms (metrics and log lines lag by as much) */
  readonly reportIntervalMs: number;
}

export const defaultShadowBudget: ShadowBudget = { maxInFlight: 64, cpuShare: 0.5, windowMs: 1_000, logLinesPerSecond: 10, reportIntervalMs: 250 };

export interface ShadowOptions {
  /** --shadow-admission-config: the candidate AdmissionConfiguration */
  readonly configFile: string;
  readonly gates: FeatureGates;
  /** the enforced sources; their policy plugins' snapshots are what the candidate is compared with */
  readonly enforced: readonly ManifestSource[];
  /** polling period of the candidate's directories (and of re-reading its configuration until it reads) */
  readonly intervalMs: number;
  readonly registry: Registry;
  readonly logger: Logger;
  /** --authorization-kubeconfig ('' when unset) */
  readonly authorizationKubeconfig: string;
  readonly budget?: Partial<ShadowBudget>;
}

const policyPlugins: readonly PolicyPlugin[] = ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'];
const pluginOf: Record<ShadowEndpoint, PolicyPlugin> = { validate: 'ValidatingAdmissionPolicy', mutate: 'MutatingAdmissionPolicy' };
/** a batch is sent once it holds this many bytes, without waiting for the end of the turn */
const maxBatchBytes = 4 << 20;
const workerFile = fileURLToPath(new URL('../../workers/shadow-worker.js', import.meta.url));

function endpointOf(path: string): ShadowEndpoint | undefined {
  return path === '/validate' ? 'validate' : path === '/mutate' ? 'mutate' : undefined;
}

function isPolicyPlugin(plugin: string): plugin is PolicyPlugin {
  return (policyPlugins as readonly string[]).includes(plugin);
}

export class Shadow {
  readonly #options: ShadowOptions;
  readonly #budget: ShadowBudget;
  readonly #log: Logger;
  readonly #metrics: ShadowMetrics;
  /** the candidate's policy sources, once its configuration has been read */
  #sources: ManifestSource[] | undefined;
  #configError: string | undefined;
  #worker: Worker | undefined;
  /** per side and plugin (`shadow/ValidatingAdmissionPolicy`): the hash the worker has compiled, and the hash last sent to it */
  readonly #compiled = new Map<string, string>();
  readonly #sent = new Map<string, string>();
  /** requests sent to the current worker by endpoint (shadowEndpoints order; Int32, wrapping), and those it finished */
  #sentTo = new Int32Array(shadowEndpoints.length);
  #finished = new Int32Array(new SharedArrayBuffer(4 * shadowEndpoints.length));
  /** answered this turn, sent together at its end */
  #batch: AnsweredRequest[] = [];
  #batchBytes = 0;
  #lastELU: EventLoopUtilization | undefined;
  #sampledAt = 0;
  #overBudget = false;
  /** requests whose answer would change that the worker did not describe, for the next logged line */
  #suppressed = 0;
  #closed = false;
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #loops: Array<Promise<void>> = [];

  constructor(options: ShadowOptions) {
    this.#options = options;
    this.#budget = { ...defaultShadowBudget, ...options.budget };
    this.#log = options.logger;
    this.#metrics = createShadowMetrics(options.registry);
  }

  /**
   * Reads the candidate configuration and starts the worker with the enforced snapshots; run() loads the candidate.
   * Never throws: a configuration or directory that does not load is logged and counted, and the shadow waits for a
   * good one.
   */
  start(): void {
    this.#configure();
    this.#startWorker();
    for (const source of this.#options.enforced) {
      if (!isPolicyPlugin(source.plugin)) continue;
      const plugin = source.plugin;
      this.#send('enforced', plugin, source);
      source.on('reload', (event) => {
        if (event.outcome === 'reloaded') this.#send('enforced', plugin, source);
      });
    }
  }

  /**
   * Loads and watches the candidate's directories until `signal` aborts (and retries its configuration until it
   * reads).
   */
  async run(signal: AbortSignal): Promise<void> {
    const watch = (): void => {
      for (const s of this.#sources ?? []) this.#loops.push(s.run(signal));
    };
    if (this.#sources !== undefined) watch();
    else {
      const retry = setInterval(() => {
        if (this.#configure()) {
          clearInterval(retry);
          watch();
        }
      }, this.#options.intervalMs);
      signal.addEventListener('abort', () => clearInterval(retry), { once: true });
    }
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.all(this.#loops);
  }

  /**
   * The admission listener's hook, called once a request has been answered (HTTP 200): `body` as the apiserver sent
   * it and `answer` as written. Cheap and never throwing: the copy and one message to the worker, or a skip.
   */
  observe(path: string, body: Uint8Array, answer: Uint8Array): void {
    const endpoint = endpointOf(path);
    if (endpoint === undefined || this.#closed) return;
    const skip = this.#skipReason(endpoint);
    if (skip !== undefined) {
      this.#metrics.recordSkipped(endpoint, skip);
      return;
    }
    this.#sentTo[shadowEndpoints.indexOf(endpoint)]!++;
    // the bytes are copied at the end of the turn, into one buffer handed over without another copy
    if (this.#batch.length === 0) setImmediate(() => this.#flush());
    this.#batch.push({ endpoint, body, answer });
    this.#batchBytes += body.byteLength + answer.byteLength;
    if (this.#batchBytes >= maxBatchBytes) this.#flush();
  }

  #flush(): void {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.#batchBytes = 0;
    if (this.#worker === undefined) return;
    try {
      const packed = packRequests(batch);
      const message: ToWorker = { type: 'requests', packed };
      this.#worker.postMessage(message, [packed.buffer as ArrayBuffer]);
    } catch (err) {
      // never an uncaught exception from here: the batch is lost to shadowing, counted, and the worker keeps going
      this.#log.error(err, 'Failed to hand answered requests to the shadow worker', { requests: batch.length });
      for (const r of batch) {
        this.#metrics.recordSkipped(r.endpoint, 'failed');
        Atomics.add(this.#finished, shadowEndpoints.indexOf(r.endpoint), 1);
      }
    }
  }

  /** /readyz?verbose lists it; it never holds readiness back (a candidate must not take the enforced side down). */
  readonly readiness: HealthCheck = {
    name: 'shadow-manifests-loaded',
    blocking: false,
    check: () => this.#notReady(),
  };

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #configure(): boolean {
    let setup;
    try {
      setup = readAdmissionConfiguration(this.#options.configFile, this.#options.gates);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.#configError) this.#log.error(err, 'Failed to read the shadow admission configuration; the shadow set stays empty until it reads', { config: this.#options.configFile });
      this.#configError = message;
      this.#metrics.reload.recordFailure('AdmissionConfiguration');
      return false;
    }
    this.#configError = undefined;
    const ignored = setup.plugins.filter((p) => !isPolicyPlugin(p.plugin)).map((p) => p.plugin);
    if (ignored.length > 0) this.#log.info('The shadow set\'s webhook plugins are not shadowed: only policies are decided again', { plugins: ignored });
    this.#sources = setup.plugins.flatMap((p) => {
      const plugin = p.plugin;
      if (!isPolicyPlugin(plugin)) return [];
      // Loaded by run(), in slices like any reload: a large candidate neither delays startup nor holds requests.
      const source = new ManifestSource({ plugin, dir: p.staticManifestsDir, intervalMs: this.#options.intervalMs, metrics: this.#metrics.reload, logger: this.#log });
      source.on('reload', (event) => {
        if (event.outcome === 'reloaded') this.#send('shadow', plugin, source);
      });
      return [source];
    });
    this.#log.info('Read the shadow admission configuration', { config: this.#options.configFile, plugins: this.#sources.map((s) => s.plugin) });
    return true;
  }

  /** Sends a source's current snapshot to the worker (again after a restart). */
  #send(side: SetSide, plugin: PolicyPlugin, source: ManifestSource): void {
    const snapshot = source.current();
    if (snapshot === undefined) return;
    this.#sent.set(`${side}/${plugin}`, snapshot.hash);
    const message: ToWorker = { type: 'snapshot', side, plugin, hash: snapshot.hash, manifests: snapshot.manifests };
    this.#worker?.postMessage(message);
  }

  #startWorker(): void {
    if (this.#closed) return;
    this.#sentTo = new Int32Array(shadowEndpoints.length);
    this.#finished = new Int32Array(new SharedArrayBuffer(4 * shadowEndpoints.length));
    const data: ShadowWorkerData = {
      authorizationKubeconfig: this.#options.authorizationKubeconfig,
      differencesPerSecond: this.#budget.logLinesPerSecond,
      finished: this.#finished.buffer as SharedArrayBuffer,
      reportIntervalMs: this.#budget.reportIntervalMs,
    };
    const worker = new Worker(workerFile, { workerData: data });
    this.#worker = worker;
    this.#compiled.clear();
    this.#lastELU = undefined;
    worker.on('message', (m: FromWorker) => this.#onMessage(m));
    worker.on('error', (err) => this.#log.error(err, 'The shadow worker failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#batch = [];
      this.#batchBytes = 0;
      shadowEndpoints.forEach((endpoint, i) => {
        const lost = this.#inFlight(i);
        if (lost > 0) this.#metrics.recordSkipped(endpoint, 'failed', lost);
      });
      this.#sentTo.fill(0);
      this.#finished.fill(0);
      if (this.#closed) return;
      this.#log.error(new Error(`exit code ${code}`), 'The shadow worker stopped; starting another in a second');
      this.#restartTimer = setTimeout(() => this.#startWorker(), 1_000);
      this.#restartTimer.unref();
    });
    for (const source of this.#options.enforced) if (isPolicyPlugin(source.plugin)) this.#send('enforced', source.plugin, source);
    for (const source of this.#sources ?? []) if (isPolicyPlugin(source.plugin)) this.#send('shadow', source.plugin, source);
  }

  #onMessage(m: FromWorker): void {
    if (m.type === 'compiled') {
      if (m.error !== undefined) this.#log.error(new Error(m.error), 'The shadow worker failed to compile a snapshot', { side: m.side, plugin: m.plugin, hash: m.hash });
      else this.#compiled.set(`${m.side}/${m.plugin}`, m.hash);
      return;
    }
    this.#onReport(m);
  }

  #onReport(m: ReportMessage): void {
    shadowEndpoints.forEach((endpoint, i) => {
      if (m.failed[i]! > 0) this.#metrics.recordSkipped(endpoint, 'failed', m.failed[i]!);
      if (m.compared[i]! > 0) this.#metrics.recordCompared(endpoint, m.compared[i]!, m.patchDiffers[i]!);
    });
    if (m.error !== undefined) this.#log.v(2).info('Shadow evaluation failed', { err: m.error });
    this.#metrics.recordDecisions(m.decisions);
    this.#suppressed += m.suppressed;
    for (const d of m.differences) {
      this.#log.info('Shadow set decides differently', {
        endpoint: `/${d.endpoint}`, uid: d.uid, operation: d.operation, resource: d.resource, subResource: d.subResource,
        namespace: d.namespace, name: d.name, user: d.user, answered: d.answered, changes: d.changes,
        differences: d.comparisons.map((c) => `${c.policy}/${c.binding}: enforced=${c.enforced} shadow=${c.shadow}`),
        ...(d.patchDiffers ? { patch: 'differs' } : {}),
        ...(d.shadowMessage === '' ? {} : { shadowMessage: d.shadowMessage }),
        ...(d.shadowWarnings.length === 0 ? {} : { shadowWarnings: d.shadowWarnings }),
        ...(this.#suppressed === 0 ? {} : { suppressed: this.#suppressed }),
      });
      this.#suppressed = 0;
    }
  }

  #skipReason(endpoint: ShadowEndpoint): SkipReason | undefined {
    const plugin = pluginOf[endpoint];
    if (this.#worker === undefined || this.#sources === undefined) return 'not_loaded';
    // a configured plugin whose candidate has not loaded (or not compiled on the worker yet) would compare as `absent`
    for (const side of ['enforced', 'shadow'] as const) {
      const sent = this.#sent.get(`${side}/${plugin}`);
      const configured = side === 'enforced' ? this.#options.enforced.some((s) => s.plugin === plugin) : this.#sources.some((s) => s.plugin === plugin);
      if (configured && (sent === undefined || this.#compiled.get(`${side}/${plugin}`) === undefined)) return 'not_loaded';
    }
    if (this.#inFlight(0) + this.#inFlight(1) >= this.#budget.maxInFlight) return 'queue_full';
    return this.#cpuBudgetSpent() ? 'cpu_budget' : undefined;
  }

  /** Whether the worker's event loop was busy for more than its share over the last window (sampled once a window). */
  #cpuBudgetSpent(): boolean {
    const now = performance.now();
    if (now - this.#sampledAt < this.#budget.windowMs) return this.#overBudget;
    const current = this.#worker!.performance.eventLoopUtilization();
    this.#overBudget = this.#lastELU !== undefined && this.#worker!.performance.eventLoopUtilization(current, this.#lastELU).utilization > this.#budget.cpuShare;
    this.#lastELU = current;
    this.#sampledAt = now;
    return this.#overBudget;
  }

  /** requests of endpoint `i` sent to the worker and not finished (both counters wrap alike) */
  #inFlight(i: number): number {
    return (this.#sentTo[i]! - Atomics.load(this.#finished, i)) | 0;
  }

  #notReady(): string | undefined {
    if (this.#configError !== undefined) return `the shadow admission configuration does not read: ${this.#configError}`;
    for (const s of this.#sources ?? []) {
      if (!s.hasSynced()) return `${s.plugin}: the shadow manifests have not loaded yet`;
      if (this.#compiled.get(`shadow/${s.plugin}`) !== s.current()?.hash) return `${s.plugin}: the shadow worker is compiling the shadow manifests`;
    }
    return undefined;
  }
}
