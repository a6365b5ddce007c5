// The scheme's defaulting of resource.k8s.io/v1 kinds (kube-apiserver 1.36): kubernetes
// pkg/apis/resource/v1/defaults.go (SetDefaults_ExactDeviceRequest, _DeviceSubRequest, _Device, _DeviceTaint) and
// the `+default="Equal"` marker of DeviceToleration.operator (k8s.io/api resource/v1 types.go), as
// zz_generated.defaults.go calls them.
import type { Draft } from './object.js';

function tolerations(parent: Draft | undefined): void {
  for (const t of parent?.objects('tolerations') ?? []) t.setIfMissing('operator', 'Equal', '');
}

/** SetDefaults_ExactDeviceRequest / SetDefaults_DeviceSubRequest: ExactCount of one device */
function deviceRequest(r: Draft): void {
  r.setIfMissing('allocationMode', 'ExactCount', '');
  if (r.get('allocationMode') === 'ExactCount') r.setIfMissing('count', 1, 0);
  tolerations(r);
}

/** A DeviceClaim's requests: the exact one and each of the first available */
function deviceClaimSpec(spec: Draft): void {
  for (const request of spec.structField('devices').objects('requests')) {
    const exactly = request.object('exactly');
    if (exactly !== undefined) deviceRequest(exactly);
    for (const sub of request.objects('firstAvailable')) deviceRequest(sub);
  }
}

export function resourceClaim(o: Draft): void {
  deviceClaimSpec(o.structField('spec'));
  const devices = o.object('status')?.object('allocation')?.object('devices');
  for (const result of devices?.objects('results') ?? []) tolerations(result);
}

export function resourceClaimTemplate(o: Draft): void {
  deviceClaimSpec(o.structField('spec').structField('spec'));
}

/** metav1.Time of time.Now().Truncate(time.Second), as it is written: RFC 3339 in UTC, whole seconds */
const nowToTheSecond = (): string => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** SetDefaults_Device (a mapping's multiplier is 1) and SetDefaults_DeviceTaint (added now: upstream's clock too) */
function device(d: Draft): void {
  const mappings = d.object('nodeAllocatableResourceMappings');
  if (mappings !== undefined) for (const name of Object.keys(mappings.value)) mappings.object(name)?.setIfMissing('allocationMultiplier', '1');
  for (const taint of d.objects('taints')) taint.setIfMissing('timeAdded', nowToTheSecond());
}

export function resourceSlice(o: Draft): void {
  for (const d of o.object('spec')?.objects('devices') ?? []) device(d);
}
