// Metrics of the policy worker pool, under the daemon's own prefix (kube-apiserver has no equivalent). Gauges are
// read from Piscina when Prometheus scrapes; nothing is updated per request but one histogram observation and one
// counter increment, both without prom-client's per-call label handling (lib/metrics/aggregated.ts).
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { AggregatedMetric, CounterSeries, HistogramSeries, registerAggregated } from '../../metrics/aggregated.js';

/** Why a request's evaluation did not come back from the pool (the request is answered by the failure policy). */
export type WorkerFailureReason =
  /** the worker thread exited while the task was in flight */
  | 'crash'
  /** the worker reached its heap limit (--worker-max-old-space-size) and was terminated */
  | 'memory'
  /** the request deadline passed before the worker answered */
  | 'timeout'
  /** a worker was terminated because it was still evaluating a task past that task's deadline */
  | 'overrun'
  /** the task failed on the worker (its snapshot never arrived, an internal error) */
  | 'error';

/** Why a task did not come back (`rejected`: Piscina rejected it; otherwise the worker answered with an error). */
export function workerFailureReason(err: unknown, message: string, rejected: boolean): WorkerFailureReason {
  if (!rejected) return 'error';
  // Piscina rejects every task of a worker that exits with "worker exited with code: N", and of one that reached its
  // heap limit with Node's ERR_WORKER_OUT_OF_MEMORY
  if ((err as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return 'memory';
  return /worker exited/i.test(message) ? 'crash' : 'error';
}

export interface PoolGaugeSource {
  /** Piscina tasks (batches of requests) waiting in its queue (beyond every worker's concurrentTasksPerWorker) */
  queueSize(): number;
  /** how busy the workers were since the previous call, 0 to 1 */
  utilization(): number;
  threads(): number;
  inFlight(): number;
}

export interface PoolMetrics {
  taskStarted(): void;
  taskDone(seconds: number): void;
  failure(reason: WorkerFailureReason, n?: number): void;
}

/** Task duration buckets: from 50µs (a bare hop) to 10s (the default request timeout). */
export const taskDurationBuckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createPoolMetrics(registry: Registry, source: PoolGaugeSource): PoolMetrics {
  // One set per registry: a second pool on the same registry (tests) reports through the first one's metrics.
  const get = <T>(name: string, create: () => T): T => (registry.getSingleMetric(name) as T | undefined) ?? create();
  get('static_admissiond_policy_pool_queue_depth', () => new Gauge({
    name: 'static_admissiond_policy_pool_queue_depth',
    help: 'Policy evaluation tasks (each a batch of requests) waiting in the pool\'s queue because every worker already holds its maximum of tasks.',
    registers: [registry],
    collect() { this.set(source.queueSize()); },
  }));
  get('static_admissiond_policy_pool_utilization', () => new Gauge({
    name: 'static_admissiond_policy_pool_utilization',
    help: 'Share of time the policy worker threads were busy since the previous scrape, 0 to 1 (mean event-loop utilization of the workers).',
    registers: [registry],
    collect() { this.set(source.utilization()); },
  }));
  get('static_admissiond_policy_pool_threads', () => new Gauge({
    name: 'static_admissiond_policy_pool_threads',
    help: 'Policy worker threads currently in the pool.',
    registers: [registry],
    collect() { this.set(source.threads()); },
  }));
  get('static_admissiond_policy_pool_tasks_in_flight', () => new Gauge({
    name: 'static_admissiond_policy_pool_tasks_in_flight',
    help: 'Admission requests whose policies are being evaluated by the pool (queued or running).',
    registers: [registry],
    collect() { this.set(source.inFlight()); },
  }));
  const { tasks, duration } = perRequestMetrics(registry);
  const failures = get('static_admissiond_policy_worker_failures_total', () => new Counter({
    name: 'static_admissiond_policy_worker_failures_total',
    help: 'Policy evaluations that did not come back from the worker pool, answered by the failure policy of the affected policies, by reason (crash, memory, timeout, overrun, error).',
    labelNames: ['reason'] as const,
    registers: [registry],
  }));
  return {
    taskStarted: () => tasks.inc(none),
    taskDone: (seconds) => duration.observe(none, seconds),
    failure: (reason, n = 1) => failures.inc({ reason }, n),
  };
}

const none: readonly string[] = [];
const byRegistry = new WeakMap<Registry, { readonly tasks: CounterSeries; readonly duration: HistogramSeries }>();

/** The two series updated per request, one set per registry (as the gauges: a second pool reports through them). */
function perRequestMetrics(registry: Registry): { readonly tasks: CounterSeries; readonly duration: HistogramSeries } {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const durationName = 'static_admissiond_policy_task_duration_seconds';
  const tasks = new CounterSeries([]);
  tasks.inc(none, 0);
  const duration = new HistogramSeries(durationName, [], taskDurationBuckets);
  registerAggregated(registry, [
    new AggregatedMetric('static_admissiond_policy_pool_tasks_total',
      'Admission requests sent to the policy worker pool (one task per request that matched a policy).', 'counter', () => tasks.values()),
    new AggregatedMetric(durationName,
      'Time from handing a request to the policy worker pool to having its evaluations back on the main thread (queue, hand-off and evaluation).', 'histogram', () => duration.values()),
  ]);
  const metrics = { tasks, duration };
  byRegistry.set(registry, metrics);
  return metrics;
}
