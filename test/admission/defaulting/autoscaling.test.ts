// The scheme's defaulting of HorizontalPodAutoscalers after a MutatingAdmissionPolicy's mutation, as kube-apiserver
// 1.36 does it. Each expected object is upstream-oracle's `mutate` answer for the minimal object given (a policy
// setting a label), tools/upstream-oracle/PROTOCOL.md.
// upstream: k8s.io/kubernetes pkg/apis/autoscaling/v1/defaults.go SetDefaults_HorizontalPodAutoscaler,
// pkg/apis/autoscaling/v2/defaults.go SetDefaults_HorizontalPodAutoscaler, SetDefaults_HorizontalPodAutoscalerBehavior
// (GenerateHPAScaleUpRules, GenerateHPAScaleDownRules, copyHPAScalingRules)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultObject } from '../../../lib/admission/defaulting/index.js';
import { loadHooks, mutate, policy, requestFor } from '../mutating/helpers.js';

const d = (o: Record<string, unknown>): Record<string, unknown> =>
  defaultObject(o, { apiVersion: String(o['apiVersion']), kind: String(o['kind']) }) as Record<string, unknown>;

const scaleTargetRef = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };
const hpa = (apiVersion: string, spec: Record<string, unknown>): Record<string, unknown> =>
  ({ apiVersion, kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default' }, spec: { scaleTargetRef, ...spec } });
const cpu80 = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
const scaleUpDefaults = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const scaleDownDefaults = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

describe('autoscaling/v1 HorizontalPodAutoscaler', () => {
  it('minReplicas defaults to 1', () => {
    assert.deepEqual(d(hpa('autoscaling/v1', { maxReplicas: 5, targetCPUUtilizationPercentage: 80 }))['spec'], { scaleTargetRef, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 });
    assert.equal((d(hpa('autoscaling/v1', { minReplicas: 3, maxReplicas: 5 }))['spec'] as Record<string, unknown>)['minReplicas'], 3);
  });

  it('the 80% CPU target is a conversion, not a default: defaulting leaves it absent', () => {
    // upstream adds it converting v1 to the internal type (pkg/apis/autoscaling/v1/conversion.go), which an object
    // the apiserver sends has already been through
    const out = d(hpa('autoscaling/v1', { minReplicas: 1, maxReplicas: 5 }));
    assert.equal(Object.hasOwn(out['spec'] as object, 'targetCPUUtilizationPercentage'), false);
  });
});

describe('autoscaling/v2 HorizontalPodAutoscaler', () => {
  it('minReplicas 1 and a CPU utilization metric of 80% when there are no metrics', () => {
    assert.deepEqual(d(hpa('autoscaling/v2', { maxReplicas: 5 }))['spec'], { scaleTargetRef, minReplicas: 1, maxReplicas: 5, metrics: cpu80 });
    assert.deepEqual((d(hpa('autoscaling/v2', { minReplicas: 2, maxReplicas: 5, metrics: [] }))['spec'] as Record<string, unknown>)['metrics'], cpu80, 'len(metrics) == 0: an empty list too');
    const memory = [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } }];
    assert.deepEqual((d(hpa('autoscaling/v2', { minReplicas: 2, maxReplicas: 5, metrics: memory }))['spec'] as Record<string, unknown>)['metrics'], memory);
  });

  it('a behavior gets both rules, each field it sets kept (tolerance has no default)', () => {
    assert.deepEqual(d(hpa('autoscaling/v2', { minReplicas: 2, maxReplicas: 5, metrics: cpu80, behavior: { scaleDown: { stabilizationWindowSeconds: 300, tolerance: '50m' } } }))['spec'], {
      scaleTargetRef, minReplicas: 2, maxReplicas: 5, metrics: cpu80,
      behavior: { scaleUp: scaleUpDefaults, scaleDown: { stabilizationWindowSeconds: 300, ...scaleDownDefaults, tolerance: '50m' } },
    });
    const disabled = { selectPolicy: 'Disabled', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] };
    assert.deepEqual((d(hpa('autoscaling/v2', { minReplicas: 1, maxReplicas: 5, metrics: cpu80, behavior: { scaleUp: disabled } }))['spec'] as Record<string, unknown>)['behavior'], {
      scaleUp: { stabilizationWindowSeconds: 0, ...disabled }, scaleDown: scaleDownDefaults,
    });
  });

  it('no behavior, no rules', () => {
    const spec = d(hpa('autoscaling/v2', { minReplicas: 1, maxReplicas: 5, metrics: cpu80 }))['spec'] as Record<string, unknown>;
    assert.equal(Object.hasOwn(spec, 'behavior'), false);
  });
});

describe('after a MutatingAdmissionPolicy mutation', () => {
  it('a mutated v2 HPA is answered defaulted, and a later policy sees the defaults', async () => {
    const hooks = loadHooks(
      policy('a-label', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}' }], { group: 'autoscaling', versions: 'v2', resources: 'horizontalpodautoscalers' }) +
      policy('b-read', [{ applyConfiguration: 'Object{metadata: Object.metadata{labels: {"min": string(object.spec.minReplicas), "cpu": string(object.spec.metrics[0].resource.target.averageUtilization)}}}' }], { group: 'autoscaling', versions: 'v2', resources: 'horizontalpodautoscalers' }),
    );
    // sent without its defaults, so only the defaulting after the mutation can add them
    const request = { ...requestFor(hpa('autoscaling/v2', { maxReplicas: 5 })), object: hpa('autoscaling/v2', { maxReplicas: 5 }), resource: { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' } };
    const { response, patched } = await mutate(hooks, request);
    assert.equal(response.allowed, true);
    assert.deepEqual(patched, {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'default', labels: { mutated: 'yes', min: '1', cpu: '80' } },
      spec: { scaleTargetRef, minReplicas: 1, maxReplicas: 5, metrics: cpu80 },
    });
  });
});
