// apiserver_validating_admission_policy_check_total / _check_duration_seconds with kube-apiserver's names, labels
// and buckets (staging/.../policy/validating/metrics), so dashboards built for the apiserver work on this daemon.
// Unlike upstream, allows are recorded too (kubernetes#124064).
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export interface PolicyCheckRecord {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: string;
  readonly enforcementAction: string;
  readonly seconds: number;
}

export interface PolicyMetrics {
  recordChecks(checks: readonly PolicyCheckRecord[]): void;
}

export function createValidatingPolicyMetrics(registry: Registry): PolicyMetrics {
  const labelNames = ['policy', 'policy_binding', 'error_type', 'enforcement_action'] as const;
  const total = new Counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: '[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: '[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    labelNames,
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0],
    registers: [registry],
  });
  return {
    recordChecks(checks) {
      for (const c of checks) {
        const labels = { policy: c.policy, policy_binding: c.binding, error_type: c.errorType, enforcement_action: c.enforcementAction };
        total.inc(labels);
        duration.observe(labels, c.seconds);
      }
    },
  };
}
