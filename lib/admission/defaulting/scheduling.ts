// The scheme's defaulting of scheduling.k8s.io/v1 PriorityClasses (kube-apiserver 1.36): kubernetes
// pkg/apis/scheduling/v1/defaults.go SetDefaults_PriorityClass.
import { setIfMissing } from './object.js';
import type { JsonObject } from './object.js';

export function priorityClass(o: JsonObject): void {
  setIfMissing(o, 'preemptionPolicy', 'PreemptLowerPriority');
}
