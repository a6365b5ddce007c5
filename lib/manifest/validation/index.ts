// REST validation of the six admissionregistration.k8s.io/v1 kinds, as kube-apiserver runs it on create
// (pkg/apis/admissionregistration/validation). Inputs are strictly decoded and already defaulted; each function
// returns upstream's field errors in upstream's order, and aggregate() renders them as errs.ToAggregate().Error().
// The reserved ".static.k8s.io" suffix rule (static_suffix.go) belongs to the REST strategy, not to these
// functions, and is deliberately absent: static manifests must use that suffix.
export {
  aggregate,
  duplicate,
  FieldError,
  forbidden,
  internalError,
  invalid,
  Named,
  notFound,
  notSupported,
  OMIT_VALUE,
  Path,
  required,
  tooLong,
  tooMany,
} from './field-error.js';
export type { FieldErrorType, PathLike } from './field-error.js';
export type { ExpressionCompiler, ValidationOptions } from './cel.js';
export { validateValidatingWebhookConfiguration, validateMutatingWebhookConfiguration } from './webhooks.js';
export {
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
} from './policies.js';
