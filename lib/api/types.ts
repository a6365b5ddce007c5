// The admissionregistration.k8s.io/v1 types as decoded from manifests (generated from the 1.36.3 field lists).
export type * from './types.generated.js';
