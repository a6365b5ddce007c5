import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createMutatingPolicyMetrics } from '../../lib/metrics/mutating-policy.js';

test('mutation checks render as upstream counter and histogram series (policy, policy_binding, error_type)', async () => {
  const registry = new Registry();
  const metrics = createMutatingPolicyMetrics(registry);
  const check = { policy: 'p.static.k8s.io', binding: 'b.static.k8s.io', errorType: 'no_error' };
  metrics.recordChecks([{ ...check, seconds: 0.0000001 }, { ...check, seconds: 0.005 }, { ...check, errorType: 'invalid_error', seconds: 2 }]);
  const text = await registry.metrics();
  const labels = 'policy="p.static.k8s.io",policy_binding="b.static.k8s.io",error_type="no_error"';
  const invalid = labels.replace('no_error', 'invalid_error');
  const lines = text.split('\n');
  for (const expected of [
    '# HELP apiserver_mutating_admission_policy_check_total [ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.',
    '# TYPE apiserver_mutating_admission_policy_check_total counter',
    `apiserver_mutating_admission_policy_check_total{${labels}} 2`,
    `apiserver_mutating_admission_policy_check_total{${invalid}} 1`,
    '# HELP apiserver_mutating_admission_policy_check_duration_seconds [ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
    '# TYPE apiserver_mutating_admission_policy_check_duration_seconds histogram',
    `apiserver_mutating_admission_policy_check_duration_seconds_bucket{${labels},le="5e-7"} 1`,
    `apiserver_mutating_admission_policy_check_duration_seconds_bucket{${labels},le="0.01"} 2`,
    `apiserver_mutating_admission_policy_check_duration_seconds_bucket{${labels},le="+Inf"} 2`,
    `apiserver_mutating_admission_policy_check_duration_seconds_sum{${labels}} 0.0050001`,
    `apiserver_mutating_admission_policy_check_duration_seconds_count{${labels}} 2`,
    `apiserver_mutating_admission_policy_check_duration_seconds_bucket{${invalid},le="1"} 0`,
    `apiserver_mutating_admission_policy_check_duration_seconds_bucket{${invalid},le="+Inf"} 1`,
  ]) assert.ok(lines.includes(expected), `missing: ${expected}\n${text}`);
});
