// apiserver_mutating_admission_policy_check_total / _check_duration_seconds with kube-apiserver's names, help, labels
// (policy, policy_binding, error_type) and buckets (S/admission/plugin/policy/mutating/metrics/metrics.go): one
// observation per mutation evaluated, as upstream's ObserveAdmission / ObserveRejection.
//
// Pre-aggregated like the validating family (metrics/policy.ts): recording is a map lookup and a few increments; the
// text is produced when Prometheus scrapes.
import type { Registry } from 'prom-client';
import { AggregatedMetric, HistogramSeries, registerAggregated } from './aggregated.js';

export interface MutationCheckRecord {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: string;
  readonly seconds: number;
}

export interface MutatingPolicyMetrics {
  recordChecks(checks: readonly MutationCheckRecord[]): void;
}

const buckets = [0.0000005, 0.001, 0.01, 0.1, 1.0] as const;

export function createMutatingPolicyMetrics(registry: Registry): MutatingPolicyMetrics {
  const durationName = 'apiserver_mutating_admission_policy_check_duration_seconds';
  const series = new HistogramSeries(durationName, ['policy', 'policy_binding', 'error_type'], buckets);
  registerAggregated(registry, [
    new AggregatedMetric('apiserver_mutating_admission_policy_check_total',
      '[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.',
      'counter', () => series.counts()),
    new AggregatedMetric(durationName,
      '[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
      'histogram', () => series.values()),
  ]);
  return {
    recordChecks(checks) {
      for (const c of checks) series.observe([c.policy, c.binding, c.errorType], c.seconds);
    },
  };
}
