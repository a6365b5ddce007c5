// The metric specs, metric statuses and conditions of a HorizontalPodAutoscaler in autoscaling/v1 and v2 JSON, and
// the conversions between them (kubernetes pkg/apis/autoscaling/v1/conversion.go: Convert_autoscaling_*MetricSource_
// To_v1_* and back, with k8s.io/api autoscaling/v1 and v2 types.go for the JSON shapes). Used by hpa.ts.
import { isObject, present, quantity, setOmitEmpty, setPointer, str, struct, time } from './json.js';
import type { JsonObject } from './json.js';

/** encoding/json matches keys exactly, then case-insensitively. */
export function field(o: JsonObject, name: string): unknown {
  if (Object.hasOwn(o, name)) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

export const ref = (r: unknown): JsonObject => {
  const o = struct(r);
  const out: JsonObject = { kind: str(o['kind']), name: str(o['name']) };
  setOmitEmpty(out, 'apiVersion', o['apiVersion']);
  return out;
};

export const identifier = (name: unknown, selector: unknown): JsonObject => {
  const out: JsonObject = { name: str(name) };
  setPointer(out, 'selector', selector);
  return out;
};

export function target(type: string, value: unknown, averageValue: unknown, averageUtilization: unknown): JsonObject {
  const out: JsonObject = { type };
  setPointer(out, 'value', value);
  setPointer(out, 'averageValue', averageValue);
  setPointer(out, 'averageUtilization', averageUtilization);
  return out;
}

export function valueStatus(value: unknown, averageValue: unknown, averageUtilization: unknown): JsonObject {
  const out: JsonObject = {};
  setPointer(out, 'value', value);
  setPointer(out, 'averageValue', averageValue);
  setPointer(out, 'averageUtilization', averageUtilization);
  return out;
}

export const isCPUUtilization = (m: JsonObject, side: 'target' | 'current'): boolean => {
  const r = m['resource'];
  return m['type'] === 'Resource' && isObject(r) && r['name'] === 'cpu' && present(struct(r[side])['averageUtilization']);
};

export function metricSpecToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m['type']) };
  if (isObject(m['object'])) {
    const s = m['object'];
    const t = struct(s['target']);
    const metric = struct(s['metric']);
    const o: JsonObject = { target: ref(s['describedObject']), metricName: str(metric['name']), targetValue: quantity(t['value']) };
    setPointer(o, 'selector', metric['selector']);
    setPointer(o, 'averageValue', t['averageValue']);
    out['object'] = o;
  }
  if (isObject(m['pods'])) {
    const s = m['pods'];
    const metric = struct(s['metric']);
    const o: JsonObject = { metricName: str(metric['name']), targetAverageValue: quantity(struct(s['target'])['averageValue']) };
    setPointer(o, 'selector', metric['selector']);
    out['pods'] = o;
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isObject(m[key])) continue;
    const s = m[key] as JsonObject;
    const t = struct(s['target']);
    const o: JsonObject = { name: str(s['name']) };
    setPointer(o, 'targetAverageUtilization', t['averageUtilization']);
    setPointer(o, 'targetAverageValue', t['averageValue']);
    if (key === 'containerResource') o['container'] = str(s['container']);
    out[key] = o;
  }
  if (isObject(m['external'])) {
    const s = m['external'];
    const t = struct(s['target']);
    const metric = struct(s['metric']);
    const o: JsonObject = { metricName: str(metric['name']) };
    setPointer(o, 'metricSelector', metric['selector']);
    setPointer(o, 'targetValue', t['value']);
    setPointer(o, 'targetAverageValue', t['averageValue']);
    out['external'] = o;
  }
  return out;
}

export function metricStatusToV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(m['type']) };
  if (isObject(m['object'])) {
    const s = m['object'];
    const c = struct(s['current']);
    const metric = struct(s['metric']);
    const o: JsonObject = { target: ref(s['describedObject']), metricName: str(metric['name']), currentValue: quantity(c['value']) };
    setPointer(o, 'selector', metric['selector']);
    setPointer(o, 'averageValue', c['averageValue']);
    out['object'] = o;
  }
  if (isObject(m['pods'])) {
    const s = m['pods'];
    const metric = struct(s['metric']);
    const o: JsonObject = { metricName: str(metric['name']), currentAverageValue: quantity(struct(s['current'])['averageValue']) };
    setPointer(o, 'selector', metric['selector']);
    out['pods'] = o;
  }
  for (const key of ['resource', 'containerResource'] as const) {
    if (!isObject(m[key])) continue;
    const s = m[key] as JsonObject;
    const c = struct(s['current']);
    const o: JsonObject = { name: str(s['name']) };
    setPointer(o, 'currentAverageUtilization', c['averageUtilization']);
    o['currentAverageValue'] = quantity(c['averageValue']);
    if (key === 'containerResource') o['container'] = str(s['container']);
    out[key] = o;
  }
  if (isObject(m['external'])) {
    const s = m['external'];
    const c = struct(s['current']);
    const metric = struct(s['metric']);
    const o: JsonObject = { metricName: str(metric['name']) };
    setPointer(o, 'metricSelector', metric['selector']);
    o['currentValue'] = quantity(c['value']);
    setPointer(o, 'currentAverageValue', c['averageValue']);
    out['external'] = o;
  }
  return out;
}

export function condition(c: JsonObject): JsonObject {
  const out: JsonObject = { type: str(c['type']), status: str(c['status']), lastTransitionTime: time(c['lastTransitionTime']) };
  setOmitEmpty(out, 'reason', c['reason']);
  setOmitEmpty(out, 'message', c['message']);
  return out;
}

export function metricSpecFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(field(m, 'type')) };
  const object = field(m, 'object');
  if (isObject(object)) {
    const averageValue = field(object, 'averageValue');
    out['object'] = {
      describedObject: ref(field(object, 'target')),
      target: target(present(averageValue) ? 'AverageValue' : 'Value', quantity(field(object, 'targetValue')), averageValue, undefined),
      metric: identifier(field(object, 'metricName'), field(object, 'selector')),
    };
  }
  const pods = field(m, 'pods');
  if (isObject(pods)) {
    out['pods'] = {
      metric: identifier(field(pods, 'metricName'), field(pods, 'selector')),
      target: target('AverageValue', undefined, quantity(field(pods, 'targetAverageValue')), undefined),
    };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const s = field(m, key);
    if (!isObject(s)) continue;
    const utilization = field(s, 'targetAverageUtilization');
    const o: JsonObject = {
      name: str(field(s, 'name')),
      target: target(present(utilization) ? 'Utilization' : 'AverageValue', undefined, field(s, 'targetAverageValue'), utilization),
    };
    if (key === 'containerResource') o['container'] = str(field(s, 'container'));
    out[key] = o;
  }
  const external = field(m, 'external');
  if (isObject(external)) {
    const value = field(external, 'targetValue');
    out['external'] = {
      metric: identifier(field(external, 'metricName'), field(external, 'metricSelector')),
      target: target(present(value) ? 'Value' : 'AverageValue', value, field(external, 'targetAverageValue'), undefined),
    };
  }
  return out;
}

export function metricStatusFromV1(m: JsonObject): JsonObject {
  const out: JsonObject = { type: str(field(m, 'type')) };
  const object = field(m, 'object');
  if (isObject(object)) {
    out['object'] = {
      metric: identifier(field(object, 'metricName'), field(object, 'selector')),
      current: valueStatus(quantity(field(object, 'currentValue')), field(object, 'averageValue'), undefined),
      describedObject: ref(field(object, 'target')),
    };
  }
  const pods = field(m, 'pods');
  if (isObject(pods)) {
    out['pods'] = {
      metric: identifier(field(pods, 'metricName'), field(pods, 'selector')),
      current: valueStatus(undefined, quantity(field(pods, 'currentAverageValue')), undefined),
    };
  }
  for (const key of ['resource', 'containerResource'] as const) {
    const s = field(m, key);
    if (!isObject(s)) continue;
    const o: JsonObject = {
      name: str(field(s, 'name')),
      current: valueStatus(undefined, quantity(field(s, 'currentAverageValue')), field(s, 'currentAverageUtilization')),
    };
    if (key === 'containerResource') o['container'] = str(field(s, 'container'));
    out[key] = o;
  }
  const external = field(m, 'external');
  if (isObject(external)) {
    out['external'] = {
      metric: identifier(field(external, 'metricName'), field(external, 'metricSelector')),
      current: valueStatus(quantity(field(external, 'currentValue')), field(external, 'currentAverageValue'), undefined),
    };
  }
  return out;
}
