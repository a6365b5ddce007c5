// The scheme's defaulting of autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscalers (kube-apiserver 1.36):
// kubernetes pkg/apis/autoscaling/v1/defaults.go and pkg/apis/autoscaling/v2/defaults.go, as their
// zz_generated.defaults.go call them.
//
// autoscaling/v1 has one default only: minReplicas. Its CPU target of 80% is not a default but a conversion
// (pkg/apis/autoscaling/v1/conversion.go, Convert_v1_HorizontalPodAutoscaler_To_autoscaling_…): the apiserver adds it
// when it converts the admitted object to its internal type, after every admission plugin, and a later policy in the
// same plugin still sees the object without it (mutating/dispatcher.go keeps the versioned object until the end).
import type { Draft, JsonObject } from './object.js';

/** autoscaling.DefaultCPUUtilization */
const defaultCPUUtilization = 80;

/** SetDefaults_HorizontalPodAutoscaler (v1) */
export function horizontalPodAutoscalerV1(o: Draft): void {
  o.structField('spec').setIfMissing('minReplicas', 1);
}

/** defaultHPAScaleUpRules: at most 4 pods or 100% per 15 s, the larger; no stabilization window */
const scaleUpDefaults = (): JsonObject => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** defaultHPAScaleDownRules: 100% per 15 s; the window stays unset (the controller's flag decides it) */
const scaleDownDefaults = (): JsonObject => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: the defaults, with every field the rules set kept */
function scalingRules(behavior: Draft, key: 'scaleUp' | 'scaleDown', defaults: JsonObject): void {
  const rules = behavior.object(key);
  if (rules === undefined) {
    behavior.write(key, defaults);
    return;
  }
  // copyHPAScalingRules: a field the rules set (non-nil) wins; tolerance has no default
  for (const [field, value] of Object.entries(defaults)) rules.setIfMissing(field, value);
}

/** SetDefaults_HorizontalPodAutoscaler (v2), with SetDefaults_HorizontalPodAutoscalerBehavior */
export function horizontalPodAutoscalerV2(o: Draft): void {
  const spec = o.structField('spec');
  spec.setIfMissing('minReplicas', 1);
  const metrics = spec.get('metrics');
  if (!Array.isArray(metrics) || metrics.length === 0) {
    spec.write('metrics', [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: defaultCPUUtilization } } }]);
  }
  const behavior = spec.object('behavior');
  if (behavior !== undefined) {
    scalingRules(behavior, 'scaleUp', scaleUpDefaults());
    scalingRules(behavior, 'scaleDown', scaleDownDefaults());
  }
}
