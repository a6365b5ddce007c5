// The scheme's defaulting of discovery.k8s.io/v1 EndpointSlices (kube-apiserver 1.36): kubernetes
// pkg/apis/discovery/v1/defaults.go SetDefaults_EndpointPort.
import type { Draft } from './object.js';

/** Each port's name ("") and protocol (TCP) */
export function endpointSlice(o: Draft): void {
  for (const port of o.objects('ports')) {
    port.setIfMissing('name', '');
    port.setIfMissing('protocol', 'TCP');
  }
}
