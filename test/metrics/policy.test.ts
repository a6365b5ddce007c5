import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createValidatingPolicyMetrics } from '../../lib/metrics/policy.js';

test('policy checks render as upstream counter and histogram series, cumulative buckets, per label set', async () => {
  const registry = new Registry();
  const metrics = createValidatingPolicyMetrics(registry);
  const check = { policy: 'p.static.k8s.io', binding: 'b.static.k8s.io', errorType: 'no_error', enforcementAction: 'deny' };
  metrics.recordChecks([{ ...check, seconds: 0.0000001 }, { ...check, seconds: 0.005 }, { ...check, errorType: 'invalid_error', seconds: 2 }]);
  const text = await registry.metrics();
  const labels = 'policy="p.static.k8s.io",policy_binding="b.static.k8s.io",error_type="no_error",enforcement_action="deny"';
  const lines = text.split('\n');
  for (const expected of [
    '# TYPE apiserver_validating_admission_policy_check_total counter',
    `apiserver_validating_admission_policy_check_total{${labels}} 2`,
    '# TYPE apiserver_validating_admission_policy_check_duration_seconds histogram',
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels},le="5e-7"} 1`,
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels},le="0.001"} 1`,
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels},le="0.01"} 2`,
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels},le="+Inf"} 2`,
    `apiserver_validating_admission_policy_check_duration_seconds_sum{${labels}} 0.0050001`,
    `apiserver_validating_admission_policy_check_duration_seconds_count{${labels}} 2`,
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels.replace('no_error', 'invalid_error')},le="1"} 0`,
    `apiserver_validating_admission_policy_check_duration_seconds_bucket{${labels.replace('no_error', 'invalid_error')},le="+Inf"} 1`,
  ]) assert.ok(lines.includes(expected), `missing: ${expected}\n${text}`);
});
