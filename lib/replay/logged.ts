// What the apiserver answered a logged write, read as kube-apiserver words it, so that replay decides the writes that
// admission decided and only those. The code alone cannot tell: an admission denial can be 401, 403, 413 or 422 (a
// policy's `reason`), and 403, 409 and 422 also come from authorization, storage and field validation.
//
// At level Request and above, the event's responseStatus is the answer's Status: its status, message, reason, details
// and code (S/audit/context.go LogResponseObject); a write that succeeded has its code only (S/endpoints/filters/
// audit.go). The messages that admission's decisions carry:
// - a webhook's denial: `admission webhook "<name>" denied the request: <its message>` (or `… denied the request
//   without explanation`), its code, reason and details those of the webhook's Status
//   (S/admission/plugin/webhook/errors/statuserror.go ToStatusErr) — how this daemon's answers reach the log when it
//   is registered as a webhook;
// - an in-tree ValidatingAdmissionPolicy denial: `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>'
//   with binding '<b>' denied request: <message>` (or without the binding), with the policy's reason and its code
//   (S/admission/plugin/policy/validating/dispatcher.go, policy_decision.go reasonToCode) — the apiserver running the
//   same set from its own staticManifestsDir (KEP-5793);
// - an in-tree MutatingAdmissionPolicy denial: `policy '<p>' with binding '<b>' denied request: <message>` (or
//   `policy "<p>" denied request: …`; S/admission/plugin/policy/generic/policy_dispatcher.go).
// Everything else that failed (authorization's 403 `User "…" cannot …`, storage's 409 `already exists`, field
// validation's 422 `<Kind> "<name>" is invalid: …`, a webhook that could not be called, 5xx) was not decided by a
// policy or webhook: it is not replayed.

/** The fields of an audit Event's responseStatus (a metav1.Status) that replay reads. */
export interface LoggedStatus {
  readonly code?: number;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly name?: string; readonly kind?: string } | null;
}

/** A write admission denied, as the log tells it. */
export interface LoggedDenial {
  readonly code: number;
  readonly reason: string;
  /** the denial's message without the webhook plugin's prefix: what the daemon (or the in-tree plugin) said */
  readonly message: string;
  /** the webhook that denied it, when it came through a webhook */
  readonly webhook?: string;
  /** details.name: the name admission saw (a generated one on validation) */
  readonly name: string;
}

export type LoggedAnswer =
  | { readonly admitted: true }
  | { readonly denied: LoggedDenial }
  /** failed before, after or outside admission's decisions */
  | { readonly failed: string };

const webhookDenial = /^admission webhook "((?:[^"\\]|\\.)*)" denied the request(?:: ([\s\S]*)| without explanation)$/;
const policyDenial = /(?:^|: )(?:ValidatingAdmissionPolicy '[^']*'(?: with binding '[^']*')? denied request: |policy '[^']*' with binding '[^']*' denied request: |policy "(?:[^"\\]|\\.)*" denied request: )/;

/** How the apiserver answered the write whose event carries `status`. */
export function loggedAnswer(status: LoggedStatus | null | undefined): LoggedAnswer {
  const code = typeof status?.code === 'number' ? status.code : 200;
  if (code < 400) return { admitted: true };
  const message = typeof status?.message === 'string' ? status.message : '';
  const reason = typeof status?.reason === 'string' ? status.reason : '';
  const name = typeof status?.details?.name === 'string' ? status.details.name : '';
  const webhook = webhookDenial.exec(message);
  if (webhook !== null) return { denied: { code, reason, message: webhook[2] ?? '', webhook: JSON.parse(`"${webhook[1]!}"`) as string, name } };
  if (policyDenial.test(message)) return { denied: { code, reason, message, name } };
  return { failed: `${code}${reason === '' ? '' : ' ' + reason}` };
}

/** names.SimpleNameGenerator (k8s.io/apiserver/pkg/storage/names/generate.go): the prefix cut to 58, then 5 characters. */
const maxGeneratedNameLength = 63 - 5;

/** Whether `name` is one kube-apiserver generated from `generateName`. */
export function isGeneratedName(name: string, generateName: string): boolean {
  const base = generateName.length > maxGeneratedNameLength ? generateName.slice(0, maxGeneratedNameLength) : generateName;
  return name.length === base.length + 5 && name.startsWith(base);
}
