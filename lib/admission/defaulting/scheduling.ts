// The scheme's defaulting of scheduling.k8s.io/v1 PriorityClasses (kube-apiserver 1.36): kubernetes
// pkg/apis/scheduling/v1/defaults.go SetDefaults_PriorityClass.
import type { Draft } from './object.js';

export function priorityClass(o: Draft): void {
  o.setIfMissing('preemptionPolicy', 'PreemptLowerPriority');
}
