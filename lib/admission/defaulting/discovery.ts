// The scheme's defaulting of discovery.k8s.io/v1 EndpointSlices (kube-apiserver 1.36): kubernetes
// pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort.
import { setIfMissing } from './object.js';
import type { JsonObject } from './object.js';
import { objectItems } from './items.js';

/** Each port's name ("") and protocol (TCP) */
export function endpointSlice(o: JsonObject): void {
  for (const port of objectItems(o['ports'])) {
    setIfMissing(port, 'name', '');
    setIfMissing(port, 'protocol', 'TCP');
  }
}
