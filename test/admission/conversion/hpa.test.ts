// autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion, as kube-apiserver converts through its internal type.
// Upstream: kubernetes pkg/apis/autoscaling/v1/conversion.go (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_… and
// back), pkg/apis/autoscaling/v2/conversion.go (both directions drop the round-trip annotations),
// pkg/apis/autoscaling/helpers.go and annotations.go; JSON shapes from k8s.io/api autoscaling/v1 and v2 types.go.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { convertObject } from '../../../lib/admission/conversion/index.js';

const v1Kind = { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' };
const v2Kind = { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' };
const toV1 = (o: unknown): Record<string, unknown> => convertObject(o, v2Kind, v1Kind) as Record<string, unknown>;
const toV2 = (o: unknown): Record<string, unknown> => convertObject(o, v1Kind, v2Kind) as Record<string, unknown>;

const metadata = { name: 'web', namespace: 'default', creationTimestamp: null, annotations: { team: 'a' } };
const scaleTargetRef = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };

/** A v2 HPA as the apiserver writes one: CPU utilization, a pods metric, a behavior, status with conditions. */
const fullV2 = {
  kind: 'HorizontalPodAutoscaler',
  apiVersion: 'autoscaling/v2',
  metadata,
  spec: {
    scaleTargetRef,
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    },
  },
  status: {
    observedGeneration: 3,
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 70 } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ReadyForNewScale' }],
  },
};

describe('HorizontalPodAutoscaler v2 -> v1', () => {
  it('keeps the CPU target as targetCPUUtilizationPercentage and the rest in the autoscaling.alpha annotations', () => {
    assert.deepEqual(toV1(fullV2), {
      kind: 'HorizontalPodAutoscaler',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web', namespace: 'default', creationTimestamp: null,
        annotations: {
          // Go marshals the map with its keys sorted; the values are json.Marshal of v1 types (metrics, current
          // metrics, conditions) and of the internal behavior type, whose fields carry no json tags
          'autoscaling.alpha.kubernetes.io/behavior': '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}',
          'autoscaling.alpha.kubernetes.io/conditions': '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"ReadyForNewScale"}]',
          'autoscaling.alpha.kubernetes.io/current-metrics': '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":70,"currentAverageValue":"250m"}}]',
          'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"1k"}}]',
          team: 'a',
        },
      },
      spec: { scaleTargetRef, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 },
      // v1's currentReplicas/desiredReplicas are always written (no omitempty)
      status: { observedGeneration: 3, currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 70 },
    });
  });

  it('a bare v2 object: no annotations added; zero replicas written', () => {
    const bare = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', metadata: { name: 'h' }, spec: { scaleTargetRef, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] }, status: { desiredReplicas: 0, currentMetrics: null } };
    assert.deepEqual(toV1(bare), {
      kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h' },
      spec: { scaleTargetRef, maxReplicas: 3, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
  });

  it('round-trip annotations already on the object are dropped before the new ones are set', () => {
    const stale = { ...fullV2, metadata: { name: 'h', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[]', 'autoscaling.alpha.kubernetes.io/scale-up-tolerance': '0.1' } }, spec: { scaleTargetRef, maxReplicas: 1 }, status: { desiredReplicas: 0, currentMetrics: null } };
    assert.deepEqual(toV1(stale)['metadata'], { name: 'h' }, 'an emptied annotation map is omitted');
  });

  it('Go\'s HTML-safe escapes in annotation JSON', () => {
    const o = { ...fullV2, spec: { scaleTargetRef, maxReplicas: 1, metrics: [{ type: 'External', external: { metric: { name: 'a<b>&c' }, target: { type: 'Value', value: '1' } } }] }, status: { desiredReplicas: 0, currentMetrics: null } };
    const annotations = (toV1(o)['metadata'] as { annotations: Record<string, string> }).annotations;
    assert.equal(annotations['autoscaling.alpha.kubernetes.io/metrics'], '[{"type":"External","external":{"metricName":"a\\u003cb\\u003e\\u0026c","targetValue":"1"}}]');
  });
});

describe('HorizontalPodAutoscaler v1 -> v2', () => {
  it('v2 -> v1 -> v2 gives back the v2 object, the CPU target moved after the other metrics (as upstream)', () => {
    const [cpu, pods] = fullV2.spec.metrics;
    assert.deepEqual(toV2(toV1(fullV2)), { ...fullV2, spec: { ...fullV2.spec, metrics: [pods, cpu] } });
    const cpuLast = { ...fullV2, spec: { ...fullV2.spec, metrics: [pods, cpu] } };
    assert.deepEqual(toV2(toV1(cpuLast)), cpuLast, 'lossless when the CPU target is already last');
  });

  it('a plain v1 object: the CPU target becomes a Utilization metric; without one, the 80% default (DefaultCPUUtilization)', () => {
    const v1 = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: { name: 'h' }, spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 0, desiredReplicas: 0 } };
    assert.deepEqual(toV2(v1), {
      kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', metadata: { name: 'h' },
      spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      // v2: currentReplicas omitempty, desiredReplicas always, currentMetrics without omitempty (null)
      status: { desiredReplicas: 0, currentMetrics: null },
    });
    const noTarget = structuredClone(v1) as { spec: Record<string, unknown> };
    delete noTarget.spec['targetCPUUtilizationPercentage'];
    assert.deepEqual((toV2(noTarget)['spec'] as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  });

  it('the annotation metrics come first, the spec\'s CPU target after; a malformed annotation is ignored (json.Unmarshal failed)', () => {
    const v1 = {
      kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1',
      metadata: { name: 'h', annotations: { 'autoscaling.alpha.kubernetes.io/metrics': '[{"type":"External","external":{"metricName":"q","targetValue":"5"}}]', 'autoscaling.alpha.kubernetes.io/conditions': 'not json' } },
      spec: { scaleTargetRef, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 0, desiredReplicas: 0 },
    };
    const v2 = toV2(v1);
    assert.deepEqual((v2['spec'] as { metrics: unknown }).metrics, [
      { type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '5' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
    ]);
    assert.deepEqual(v2['metadata'], { name: 'h' }, 'every round-trip annotation is dropped, even one that did not decode');
    assert.equal((v2['status'] as { conditions?: unknown }).conditions, undefined);
  });
});
