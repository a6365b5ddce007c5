// Dispatches an object of an accepted kind to its REST validation and renders the result as upstream's
// errs.ToAggregate() text, or undefined when the object is valid.
import type {
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from '../api/types.js';
import type { JsonObject } from './document.js';
import type { V1Kind } from './scheme.js';
import {
  aggregate,
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateMutatingWebhookConfiguration,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingWebhookConfiguration,
} from './validation/index.js';
import type { FieldError } from './validation/index.js';

export function validateObject(kind: V1Kind, object: JsonObject): string | undefined {
  let errors: FieldError[];
  switch (kind) {
    case 'ValidatingWebhookConfiguration': errors = validateValidatingWebhookConfiguration(object as ValidatingWebhookConfiguration); break;
    case 'MutatingWebhookConfiguration': errors = validateMutatingWebhookConfiguration(object as MutatingWebhookConfiguration); break;
    case 'ValidatingAdmissionPolicy': errors = validateValidatingAdmissionPolicy(object as ValidatingAdmissionPolicy); break;
    case 'ValidatingAdmissionPolicyBinding': errors = validateValidatingAdmissionPolicyBinding(object as ValidatingAdmissionPolicyBinding); break;
    case 'MutatingAdmissionPolicy': errors = validateMutatingAdmissionPolicy(object as MutatingAdmissionPolicy); break;
    case 'MutatingAdmissionPolicyBinding': errors = validateMutatingAdmissionPolicyBinding(object as MutatingAdmissionPolicyBinding); break;
    default: return undefined;
  }
  return errors.length > 0 ? aggregate(errors) : undefined;
}
