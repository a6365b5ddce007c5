// Matching stays on the main thread: a request no policy applies to is answered at once and never reaches the
// pool; one that a policy applies to is one task, whatever the number of policies and bindings it matched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createValidateHandler } from '../../../lib/review/validate-handler.js';
import { benchPod, binding, capture, context, metricValue, packageRoot, policy, review, snapshotDir, snapshotOf, startPool } from './helpers.js';

test('a request nothing matches never reaches the pool', async (t) => {
  const snapshot = snapshotDir(`${packageRoot}/testdata/bench/policies`);
  const { pool, registry } = await startPool(t, { snapshot });
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });

  // a ConfigMap (the 20 policies match pods only), a pod in kube-system (every binding excludes it), a DELETE
  for (const request of [capture('002-validate-CREATE-ConfigMap-cm1'), (() => {
    const r = benchPod();
    r.namespace = 'kube-system';
    return r;
  })(), capture('020-validate-DELETE-Pod-p3')]) {
    const response = await handler.handle(review(request), context());
    assert.deepEqual(response, { uid: request.uid, allowed: true });
  }
  assert.equal(pool.tasksSent, 0);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_pool_tasks_total'), 0);

  // the 4 KB pod matches all 20 policies: one task
  assert.equal((await handler.handle(review(benchPod()), context())).allowed, true);
  assert.equal(pool.tasksSent, 1);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_pool_tasks_total'), 1);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_task_duration_seconds_count'), 1);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_pool_threads'), 1);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_pool_queue_depth'), 0);
  assert.equal(await metricValue(registry, 'static_admissiond_policy_pool_tasks_in_flight'), 0);
  const utilization = await metricValue(registry, 'static_admissiond_policy_pool_utilization');
  assert.ok(utilization !== undefined && utilization >= 0 && utilization <= 1, `utilization ${utilization}`);
});

test('a policy whose bindings do not match, or are undecidable, is decided without the pool', async (t) => {
  const snapshot = snapshotOf(t, {
    'p.yaml': policy('p.static.k8s.io', '  validations:\n  - expression: "false"\n') +
      binding('b.static.k8s.io', 'p.static.k8s.io', '[Deny]', '  matchResources:\n    namespaceSelector:\n      matchLabels: {kubernetes.io/metadata.name: elsewhere}\n') +
      binding('undecidable.static.k8s.io', 'p.static.k8s.io', '[Deny]', '  matchResources:\n    namespaceSelector:\n      matchLabels: {team: a}\n'),
  });
  const { pool } = await startPool(t, { snapshot });
  const handler = createValidateHandler({ snapshot: () => snapshot, pool });
  const response = await handler.handle(review(capture('002-validate-CREATE-ConfigMap-cm1')), context());
  assert.equal(response.allowed, false);
  assert.match(response.status?.message ?? '', /with binding 'undecidable\.static\.k8s\.io' denied request: failed to configure binding/);
  assert.equal(pool.tasksSent, 0);
});
