// The scheme's defaulting of resource.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/resource/v1/defaults.go (SetDefaults_ExactDeviceRequest, _DeviceSubRequest, _Device, _DeviceTaint) and
// the `+default="Equal"` marker of DeviceToleration.operator (k8s.io/api resource/v1 types.go), as
// zz_generated.defaults.go calls them.
import { isObject, setIfMissing, structField } from './object.js';
import type { JsonObject } from './object.js';
import { objectItems } from './items.js';

function tolerations(list: unknown): void {
  for (const t of objectItems(list)) setIfMissing(t, 'operator', 'Equal', '');
}

/** SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: ExactCount of one device */
function deviceRequest(r: JsonObject): void {
  setIfMissing(r, 'allocationMode', 'ExactCount', '');
  if (r['allocationMode'] === 'ExactCount') setIfMissing(r, 'count', 1, 0);
  tolerations(r['tolerations']);
}

/** A DeviceClaim's requests: the exact one and each of the first available */
function deviceClaimSpec(spec: JsonObject): void {
  for (const request of objectItems(structField(spec, 'devices')['requests'])) {
    if (isObject(request['exactly'])) deviceRequest(request['exactly']);
    for (const sub of objectItems(request['firstAvailable'])) deviceRequest(sub);
  }
}

export function resourceClaim(o: JsonObject): void {
  deviceClaimSpec(structField(o, 'spec'));
  const status = o['status'];
  const allocation = isObject(status) ? status['allocation'] : undefined;
  const devices = isObject(allocation) ? allocation['devices'] : undefined;
  if (isObject(devices)) for (const result of objectItems(devices['results'])) tolerations(result['tolerations']);
}

export function resourceClaimTemplate(o: JsonObject): void {
  deviceClaimSpec(structField(structField(o, 'spec'), 'spec'));
}

/** metav1.Time of time.Now().Truncate(time.Second), as it is written: RFC 3339 in UTC, whole seconds */
const nowToTheSecond = (): string => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** SetDefaults_Device (a mapping's multiplier is 1) and SetDefaults_DeviceTaint (added now: upstream's clock too) */
function device(d: JsonObject): void {
  const mappings = d['nodeAllocatableResourceMappings'];
  if (isObject(mappings)) for (const m of Object.values(mappings)) if (isObject(m)) setIfMissing(m, 'allocationMultiplier', '1');
  for (const taint of objectItems(d['taints'])) setIfMissing(taint, 'timeAdded', nowToTheSecond());
}

export function resourceSlice(o: JsonObject): void {
  const spec = o['spec'];
  if (isObject(spec)) for (const d of objectItems(spec['devices'])) device(d);
}
