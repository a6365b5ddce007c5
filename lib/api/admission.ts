// admission.k8s.io/v1 types (AdmissionReview, AdmissionRequest, AdmissionResponse, Status), generated from the
// 1.36.3 field lists.
export type * from './admission.generated.js';
