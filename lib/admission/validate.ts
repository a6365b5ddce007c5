// The /validate chain for one request: the built-in static-name guard, then the ValidatingAdmissionPolicy plugin
// (the ValidatingAdmissionWebhook plugin joins here with the webhook milestone). One AdmissionResponse comes out.
import type { AdmissionRequest, AdmissionResponse } from '../api/admission.js';
import type { PolicyHook } from '../manifest/compile.js';
import { staticNameGuard } from './guard.js';
import { dispatchValidatingPolicies } from './validating/dispatcher.js';
import type { PolicyCheck } from './validating/dispatcher.js';

export interface ValidateInput {
  readonly request: AdmissionRequest;
  /** the ValidatingAdmissionPolicy snapshot's hooks (empty when the plugin is not configured) */
  readonly policies: readonly PolicyHook[];
  readonly manifestGateEnabled: boolean;
}

export interface ValidateOutcome {
  readonly response: AdmissionResponse;
  readonly checks: readonly PolicyCheck[];
}

/**
 * Audit annotation keys as a webhook must return them: the apiserver prefixes `<webhook name>/`, so a key may not
 * carry a `/` of its own. `<policy>/<key>` is answered as `<policy>_<key>`; `review` shows the same answer.
 */
export function webhookAnnotationKey(key: string): string {
  return key.replaceAll('/', '_');
}

export function validateRequest(input: ValidateInput): ValidateOutcome {
  const uid = input.request.uid ?? '';
  const guard = staticNameGuard(input.request, input.manifestGateEnabled);
  if (!guard.allowed) return { response: { uid, allowed: false, status: guard.status }, checks: [] };
  const verdict = dispatchValidatingPolicies(input.policies, input.request);
  const warnings = guard.warning === undefined ? [...verdict.warnings] : [guard.warning, ...verdict.warnings];
  const response: AdmissionResponse = { uid, allowed: verdict.allowed };
  if (verdict.status) response.status = verdict.status;
  if (warnings.length > 0) response.warnings = warnings;
  const keys = Object.keys(verdict.auditAnnotations);
  if (keys.length > 0) {
    response.auditAnnotations = Object.fromEntries(keys.map((k) => [webhookAnnotationKey(k), verdict.auditAnnotations[k]!]));
  }
  return { response, checks: verdict.checks };
}
