// autoscaling/v1 <-> autoscaling/v2 HorizontalPodAutoscaler, as kube-apiserver converts through its internal type.
//
// Upstream: kubernetes pkg/apis/autoscaling/v1/conversion.go (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_…
// and back, the per-metric functions), pkg/apis/autoscaling/v2/conversion.go (v2 is the internal type field for
// field; both directions drop the round-trip annotations), pkg/apis/autoscaling/helpers.go
// (DropRoundTripHorizontalPodAutoscalerAnnotations) and annotations.go (the keys, DefaultCPUUtilization).
//
// v1 has only a CPU utilization target; everything else v2 holds travels in `autoscaling.alpha.kubernetes.io/*`
// annotations: the other metric specs and all current metrics as v1 JSON, the conditions, and the behavior as the
// internal Go struct marshalled without json tags (Go field names). v2 -> v1 -> v2 gives back the v2 object.
// Quantities are copied as written (the apiserver writes them canonical; upstream re-canonicalizes a quantity
// parsed from an annotation, which only differs for one a client wrote by hand in non-canonical form).
import { condition, field, isCPUUtilization, metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1, ref, target, valueStatus } from './hpa-metrics.js';
import { goMarshal, int, isObject, present, setOmitEmpty, setPointer, sortedMap, str, struct } from './json.js';
import type { JsonObject } from './json.js';
import { setOwn } from '../../json/own.js';

export const metricSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/metrics';
export const metricStatusesAnnotation = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const conditionsAnnotation = 'autoscaling.alpha.kubernetes.io/conditions';
export const behaviorSpecsAnnotation = 'autoscaling.alpha.kubernetes.io/behavior';
export const toleranceScaleDownAnnotation = 'autoscaling.alpha.kubernetes.io/scale-down-tolerance';
export const toleranceScaleUpAnnotation = 'autoscaling.alpha.kubernetes.io/scale-up-tolerance';
const roundTripAnnotations = [
  metricSpecsAnnotation, behaviorSpecsAnnotation, toleranceScaleDownAnnotation, toleranceScaleUpAnnotation, metricStatusesAnnotation, conditionsAnnotation,
];
/** autoscaling.DefaultCPUUtilization */
const defaultCPUUtilization = 80;

/** The metadata with the round-trip annotations removed (an emptied map is omitted, as omitempty does). */
function dropRoundTripAnnotations(metadata: JsonObject): JsonObject {
  const annotations = metadata['annotations'];
  if (!isObject(annotations) || !roundTripAnnotations.some((k) => Object.hasOwn(annotations, k))) return { ...metadata };
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations)) if (!roundTripAnnotations.includes(k)) setOwn(kept, k, String(v));
  const out = { ...metadata };
  if (Object.keys(kept).length === 0) delete out['annotations'];
  else out['annotations'] = kept;
  return out;
}

function withAnnotations(metadata: JsonObject, added: Readonly<Record<string, string>>): JsonObject {
  if (Object.keys(added).length === 0) return metadata;
  const existing = isObject(metadata['annotations']) ? (metadata['annotations'] as Record<string, string>) : {};
  return { ...metadata, annotations: sortedMap({ ...existing, ...added }) };
}

/** The internal HorizontalPodAutoscalerBehavior as json.Marshal writes it: Go field names, nil pointers as null. */
function internalBehaviorJSON(b: JsonObject): unknown {
  const rules = (r: unknown): unknown => {
    if (!isObject(r)) return null;
    const policies = Array.isArray(r['policies'])
      ? r['policies'].map((p) => ({ Type: str(struct(p)['type']), Value: int(struct(p)['value']), PeriodSeconds: int(struct(p)['periodSeconds']) }))
      : null;
    return {
      StabilizationWindowSeconds: r['stabilizationWindowSeconds'] ?? null,
      SelectPolicy: r['selectPolicy'] ?? null,
      Policies: policies,
      Tolerance: r['tolerance'] ?? null,
    };
  };
  return { ScaleUp: rules(b['scaleUp']), ScaleDown: rules(b['scaleDown']) };
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler, from the v2 JSON. */
export function hpaV2ToV1(v2: JsonObject): JsonObject {
  const spec = struct(v2['spec']);
  const status = struct(v2['status']);
  const metrics = Array.isArray(spec['metrics']) ? spec['metrics'].filter(isObject) : [];
  const currentMetrics = Array.isArray(status['currentMetrics']) ? status['currentMetrics'].filter(isObject) : [];
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : [];

  const added: Record<string, string> = {};
  const other = metrics.filter((m) => !isCPUUtilization(m, 'target')).map(metricSpecToV1);
  if (other.length > 0) added[metricSpecsAnnotation] = goMarshal(other);
  if (currentMetrics.length > 0) added[metricStatusesAnnotation] = goMarshal(currentMetrics.map(metricStatusToV1));
  if (isObject(spec['behavior'])) added[behaviorSpecsAnnotation] = goMarshal(internalBehaviorJSON(spec['behavior']));
  if (conditions.length > 0) added[conditionsAnnotation] = goMarshal(conditions.map(condition));

  const v1Spec: JsonObject = { scaleTargetRef: ref(spec['scaleTargetRef']) };
  setPointer(v1Spec, 'minReplicas', spec['minReplicas']);
  v1Spec['maxReplicas'] = int(spec['maxReplicas']);
  const cpu = metrics.find((m) => isCPUUtilization(m, 'target'));
  if (cpu !== undefined) v1Spec['targetCPUUtilizationPercentage'] = struct(struct(cpu['resource'])['target'])['averageUtilization'];

  const v1Status: JsonObject = {};
  setPointer(v1Status, 'observedGeneration', status['observedGeneration']);
  setPointer(v1Status, 'lastScaleTime', status['lastScaleTime']);
  v1Status['currentReplicas'] = int(status['currentReplicas']);
  v1Status['desiredReplicas'] = int(status['desiredReplicas']);
  // every CPU utilization status, the last one winning (no break upstream)
  for (const m of currentMetrics) {
    if (isCPUUtilization(m, 'current')) v1Status['currentCPUUtilizationPercentage'] = struct(struct(m['resource'])['current'])['averageUtilization'];
  }

  return {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v1',
    metadata: withAnnotations(dropRoundTripAnnotations(struct(v2['metadata'])), added),
    spec: v1Spec,
    status: v1Status,
  };
}

/** json.Unmarshal of an annotation into a slice of structs: undefined when it is not a JSON array of objects. */
function annotationList(annotations: JsonObject, key: string): JsonObject[] | undefined {
  const raw = annotations[key];
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null) return [];
    if (!Array.isArray(parsed) || !parsed.every((x) => x === null || isObject(x))) return undefined;
    return parsed.map((x) => struct(x));
  } catch {
    return undefined;
  }
}

const isInt32 = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2 ** 31);
const isString = (v: unknown): boolean => v === null || typeof v === 'string';

/** The behavior annotation unmarshalled into the internal type (Go field names, matched case-insensitively);
 * undefined when it does not decode or decodes to the zero value. */
function behaviorFromAnnotation(raw: unknown): JsonObject | undefined {
  if (typeof raw !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const rules = (r: unknown): JsonObject | undefined | 'bad' => {
    if (r === undefined || r === null) return undefined;
    if (!isObject(r)) return 'bad';
    const window = field(r, 'StabilizationWindowSeconds');
    const select = field(r, 'SelectPolicy');
    const policies = field(r, 'Policies');
    const tolerance = field(r, 'Tolerance');
    if (!isInt32(window ?? null) || !isString(select ?? null)) return 'bad';
    if (tolerance !== undefined && tolerance !== null && typeof tolerance !== 'string' && typeof tolerance !== 'number') return 'bad';
    if (policies !== undefined && policies !== null && !Array.isArray(policies)) return 'bad';
    const out: JsonObject = {};
    setPointer(out, 'stabilizationWindowSeconds', window);
    setPointer(out, 'selectPolicy', select);
    if (Array.isArray(policies)) {
      const list: JsonObject[] = [];
      for (const p of policies) {
        if (p !== null && !isObject(p)) return 'bad';
        const o = struct(p);
        const [type, value, period] = [field(o, 'Type'), field(o, 'Value'), field(o, 'PeriodSeconds')];
        if (!isString(type ?? null) || !isInt32(value ?? null) || !isInt32(period ?? null)) return 'bad';
        list.push({ type: str(type), value: int(value), periodSeconds: int(period) });
      }
      setOmitEmpty(out, 'policies', list);
    }
    if (tolerance !== undefined && tolerance !== null) out['tolerance'] = typeof tolerance === 'number' ? String(tolerance) : tolerance;
    return out;
  };
  const up = rules(field(parsed, 'ScaleUp'));
  const down = rules(field(parsed, 'ScaleDown'));
  if (up === 'bad' || down === 'bad' || (up === undefined && down === undefined)) return undefined;
  const out: JsonObject = {};
  if (up !== undefined) out['scaleUp'] = up;
  if (down !== undefined) out['scaleDown'] = down;
  return out;
}

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler, as v2 JSON. */
export function hpaV1ToV2(v1: JsonObject): JsonObject {
  const metadata = struct(v1['metadata']);
  const annotations = struct(metadata['annotations']);
  const spec = struct(v1['spec']);
  const status = struct(v1['status']);

  let metrics: JsonObject[] | undefined;
  if (present(spec['targetCPUUtilizationPercentage'])) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: target('Utilization', undefined, undefined, spec['targetCPUUtilizationPercentage']) } }];
  }
  const other = annotationList(annotations, metricSpecsAnnotation);
  // the spec's own CPU metric goes after the annotation's
  if (other !== undefined) metrics = [...other.map(metricSpecFromV1), ...(metrics ?? [])];
  const behavior = behaviorFromAnnotation(annotations[behaviorSpecsAnnotation]);

  let currentMetrics: JsonObject[] | null = null;
  if (present(status['currentCPUUtilizationPercentage'])) {
    currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: valueStatus(undefined, undefined, status['currentCPUUtilizationPercentage']) } }];
  }
  const statuses = annotationList(annotations, metricStatusesAnnotation);
  if (statuses !== undefined) currentMetrics = statuses.map(metricStatusFromV1);

  // autoscaling/v1's implicit default, made explicit now that the annotation's metrics are known
  if (metrics === undefined || metrics.length === 0) {
    metrics = [{ type: 'Resource', resource: { name: 'cpu', target: target('Utilization', undefined, undefined, defaultCPUUtilization) } }];
  }
  const conditions = annotationList(annotations, conditionsAnnotation)?.map(condition);

  const v2Spec: JsonObject = { scaleTargetRef: ref(spec['scaleTargetRef']) };
  setPointer(v2Spec, 'minReplicas', spec['minReplicas']);
  v2Spec['maxReplicas'] = int(spec['maxReplicas']);
  setOmitEmpty(v2Spec, 'metrics', metrics);
  setPointer(v2Spec, 'behavior', behavior);

  const v2Status: JsonObject = {};
  setPointer(v2Status, 'observedGeneration', status['observedGeneration']);
  setPointer(v2Status, 'lastScaleTime', status['lastScaleTime']);
  setOmitEmpty(v2Status, 'currentReplicas', status['currentReplicas']);
  v2Status['desiredReplicas'] = int(status['desiredReplicas']);
  v2Status['currentMetrics'] = currentMetrics;
  setOmitEmpty(v2Status, 'conditions', conditions);

  return {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v2',
    metadata: dropRoundTripAnnotations(metadata),
    spec: v2Spec,
    status: v2Status,
  };
}
