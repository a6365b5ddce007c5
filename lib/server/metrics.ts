// The admission listener's own metrics (the daemon's prefix; kube-apiserver has no equivalent): requests by endpoint
// and HTTP status, their duration, and the answers given at the deadline. Recorded on every request on the main
// thread, so without prom-client's per-call label hashing (lib/metrics/aggregated.ts: a series found by label
// values, the text produced only when Prometheus scrapes). One set per registry: listeners sharing a registry
// (tests) count together.
import type { Registry } from 'prom-client';
import { AggregatedMetric, CounterSeries, HistogramSeries, registerAggregated } from '../metrics/aggregated.js';

/** Request duration buckets, from 100µs (a request nothing matches) to 30s (the largest webhook timeout). */
export const durationBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface ListenerMetrics {
  /** one request done: its endpoint ("unknown" off the routes), HTTP status ("0": closed before an answer), seconds */
  answered(endpoint: string, code: string, seconds: number): void;
  /** one request answered by its timeout handler */
  deadlineExceeded(endpoint: string): void;
}

const byRegistry = new WeakMap<Registry, ListenerMetrics>();

export function createListenerMetrics(registry: Registry): ListenerMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const durationName = 'static_admissiond_admission_request_duration_seconds';
  const requests = new CounterSeries(['endpoint', 'code']);
  const duration = new HistogramSeries(durationName, ['endpoint'], durationBuckets);
  const deadlines = new CounterSeries(['endpoint']);
  registerAggregated(registry, [
    new AggregatedMetric('static_admissiond_admission_requests_total',
      'Admission requests received by the admission listener, by endpoint and HTTP status code.', 'counter', () => requests.values()),
    new AggregatedMetric(durationName,
      'Time from receiving an admission request\'s headers to finishing its answer, by endpoint.', 'histogram', () => duration.values()),
    new AggregatedMetric('static_admissiond_admission_deadline_exceeded_total',
      'Admission requests answered by the timeout handler because evaluation missed the request deadline, by endpoint.', 'counter', () => deadlines.values()),
  ]);
  const metrics: ListenerMetrics = {
    answered(endpoint, code, seconds) {
      requests.inc([endpoint, code]);
      duration.observe([endpoint], seconds);
    },
    deadlineExceeded(endpoint) {
      deadlines.inc([endpoint]);
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
