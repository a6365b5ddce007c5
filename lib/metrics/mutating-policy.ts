// apiserver_mutating_admission_policy_check_total / _check_duration_seconds with kube-apiserver's names, help, labels
// (policy, policy_binding, error_type) and buckets (S/admission/plugin/policy/mutating/metrics/metrics.go): one
// observation per mutation evaluated, as upstream's ObserveAdmission / ObserveRejection.
//
// Pre-aggregated like the validating family (metrics/policy.ts): recording is a map lookup and a few increments; the
// text is produced when Prometheus scrapes.
import type { Registry } from 'prom-client';
import { checkFamily } from './checks.js';
import type { CheckFamily } from './checks.js';

export interface MutationCheckRecord {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: string;
  readonly seconds: number;
}

export interface MutatingPolicyMetrics {
  recordChecks(checks: readonly MutationCheckRecord[]): void;
}

/** The metrics with their series: drained on a worker, merged on the main thread. */
export interface MutatingPolicyCheckMetrics extends MutatingPolicyMetrics {
  readonly family: CheckFamily;
}

const buckets = [0.0000005, 0.001, 0.01, 0.1, 1.0] as const;

/** The family in `registry` (the same one for every caller), or without one: a worker's own, drained at scrapes. */
export function createMutatingPolicyMetrics(registry?: Registry): MutatingPolicyCheckMetrics {
  const family = checkFamily(registry, {
    total: {
      name: 'apiserver_mutating_admission_policy_check_total',
      help: '[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.',
    },
    duration: {
      name: 'apiserver_mutating_admission_policy_check_duration_seconds',
      help: '[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
    },
    labelNames: ['policy', 'policy_binding', 'error_type'],
    buckets,
  });
  return {
    family,
    recordChecks(checks) {
      for (const c of checks) family.observe([c.policy, c.binding, c.errorType], c.seconds);
    },
  };
}
