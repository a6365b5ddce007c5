// The AdmissionReview a webhook is sent and the checks its answer must pass, as upstream builds and verifies them
// (S/admission/plugin/webhook/request/admissionreview.go: CreateAdmissionObjects, CreateV1AdmissionReview,
// VerifyAdmissionResponse). The version is the first of the webhook's admissionReviewVersions this side knows
// (v1, v1beta1). The review is serialized here once; the caller sends the same bytes to every validating webhook
// with the same version and matched kind (so they share one uid, checked on every answer).
import { randomUUID } from 'node:crypto';
import type { AdmissionRequest, GroupVersionKind, GroupVersionResource, Status } from '../api/admission.js';
import { stringifyJson } from '../json/index.js';
import { CallingWebhookError, serviceUnavailable } from './errors.js';
import type { RawResponse } from './client.js';

export type ReviewVersion = 'v1' | 'v1beta1';

/** CreateAdmissionObjects' negotiation: the first version of the webhook's list this side can send. */
export function negotiateVersion(versions: readonly string[] | null | undefined): ReviewVersion | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export const noKnownVersionMessage = 'webhook does not accept known AdmissionReview versions (v1, v1beta1)';

export function newReviewUID(): string {
  return randomUUID();
}

/**
 * The serialized AdmissionReview request (CreateV1AdmissionReview / CreateV1beta1AdmissionReview): `kind`,
 * `resource`, `subResource` are the matched ones; `requestKind`/`requestResource`/`requestSubResource` the original
 * request's; `object` is the object as it stands (a mutating chain passes the object modified so far).
 */
/** The kind/resource the webhook matched, sent as the review's kind/resource (requestKind keeps the original). */
export interface ReviewTarget {
  readonly kind: Readonly<GroupVersionKind>;
  readonly resource: Readonly<GroupVersionResource>;
  readonly subResource: string;
}

export function serializeReview(request: AdmissionRequest, target: ReviewTarget, object: unknown, version: ReviewVersion, uid: string): Buffer {
  const user = request.userInfo ?? {};
  const userInfo: Record<string, unknown> = {};
  if (user.username) userInfo.username = user.username;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups && user.groups.length > 0) userInfo.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
  const out: Record<string, unknown> = {
    uid,
    kind: { group: target.kind.group ?? '', version: target.kind.version ?? '', kind: target.kind.kind ?? '' },
    resource: { group: target.resource.group ?? '', version: target.resource.version ?? '', resource: target.resource.resource ?? '' },
  };
  if (target.subResource) out.subResource = target.subResource;
  const rk = request.requestKind ?? request.kind ?? {};
  const rr = request.requestResource ?? request.resource ?? {};
  out.requestKind = { group: rk.group ?? '', version: rk.version ?? '', kind: rk.kind ?? '' };
  out.requestResource = { group: rr.group ?? '', version: rr.version ?? '', resource: rr.resource ?? '' };
  const requestSubResource = request.requestSubResource ?? request.subResource ?? '';
  if (requestSubResource) out.requestSubResource = requestSubResource;
  if (request.name) out.name = request.name;
  if (request.namespace) out.namespace = request.namespace;
  out.operation = request.operation ?? '';
  out.userInfo = userInfo;
  out.object = object ?? null;
  out.oldObject = request.oldObject ?? null;
  out.dryRun = request.dryRun === true;
  out.options = request.options ?? null;
  return Buffer.from(stringifyJson({ kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request: out }));
}

/** The fields upstream takes from a verified answer. */
export interface VerifiedResponse {
  readonly allowed: boolean;
  readonly result: Status | undefined;
  /** the decoded (not yet parsed) JSON patch of a mutating webhook */
  readonly patch: Buffer | undefined;
  readonly patchType: string;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function malformed(webhookName: string, message: string): CallingWebhookError {
  return new CallingWebhookError(webhookName, 'malformed', `failed to call webhook: ${message}`, serviceUnavailable('error calling webhook'));
}

function invalid(webhookName: string, kind: 'invalid_response' | 'wrong_uid' | 'forbidden_patch', message: string): CallingWebhookError {
  return new CallingWebhookError(webhookName, kind, `received invalid webhook response: ${message}`, serviceUnavailable('error validating webhook response'));
}

/** Go's JSON type name for an UnmarshalTypeError; a number shows its text only when an integer field rejects it. */
function goValue(v: unknown, integerTarget = false): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' && integerTarget) return `number ${String(v)}`;
  return typeof v;
}

const int32 = (v: number): boolean => Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;

/**
 * response.status decoded as metav1.Status is: a field of the wrong type fails the whole answer (the rest client's
 * Into), with encoding/json's message; null leaves a field unset; unknown fields are dropped.
 */
function decodeStatus(webhookName: string, raw: Record<string, unknown>): Status {
  const fail = (struct: string, path: string, value: unknown, goType: string): never => {
    throw malformed(webhookName, `json: cannot unmarshal ${goValue(value, goType.startsWith('int'))} into Go struct field ${struct}.response.status.${path} of type ${goType}`);
  };
  const str = (struct: string, obj: Record<string, unknown>, key: string, prefix: string, goType = 'string'): string | undefined => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') fail(struct, `${prefix}${key}`, v, goType);
    return v as string;
  };
  const int = (struct: string, obj: Record<string, unknown>, key: string, prefix: string, goType: 'int32' | 'int64'): number | undefined => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    const ok = typeof v === 'number' && (goType === 'int32' ? int32(v) : Number.isSafeInteger(v));
    if (!ok) fail(struct, `${prefix}${key}`, v, goType);
    return v as number;
  };
  const obj = (struct: string, parent: Record<string, unknown>, key: string, prefix: string, goType: string): Record<string, unknown> | undefined => {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) fail(struct, `${prefix}${key}`, v, goType);
    return v as Record<string, unknown>;
  };
  const status: Status = {};
  const kind = str('Status', raw, 'kind', '');
  if (kind !== undefined) status.kind = kind;
  const apiVersion = str('Status', raw, 'apiVersion', '');
  if (apiVersion !== undefined) status.apiVersion = apiVersion;
  const metadata = obj('Status', raw, 'metadata', '', 'v1.ListMeta');
  if (metadata !== undefined) {
    const meta: NonNullable<Status['metadata']> = {};
    for (const k of ['selfLink', 'resourceVersion', 'continue'] as const) {
      const v = str('ListMeta', metadata, k, 'metadata.');
      if (v !== undefined) meta[k] = v;
    }
    const remaining = int('ListMeta', metadata, 'remainingItemCount', 'metadata.', 'int64');
    if (remaining !== undefined) meta.remainingItemCount = remaining;
    status.metadata = meta;
  }
  const st = str('Status', raw, 'status', '');
  if (st !== undefined) status.status = st;
  const message = str('Status', raw, 'message', '');
  if (message !== undefined) status.message = message;
  const reason = str('Status', raw, 'reason', '', 'v1.StatusReason');
  if (reason !== undefined) status.reason = reason;
  const details = obj('Status', raw, 'details', '', 'v1.StatusDetails');
  if (details !== undefined) {
    const d: NonNullable<Status['details']> = {};
    for (const k of ['name', 'group', 'kind'] as const) {
      const v = str('StatusDetails', details, k, 'details.');
      if (v !== undefined) d[k] = v;
    }
    const uid = str('StatusDetails', details, 'uid', 'details.', 'types.UID');
    if (uid !== undefined) d.uid = uid;
    const causes = details.causes;
    if (causes !== undefined && causes !== null) {
      if (!Array.isArray(causes)) fail('StatusDetails', 'details.causes', causes, '[]v1.StatusCause');
      d.causes = (causes as unknown[]).map((c) => {
        if (c === null) return {};
        if (!isObject(c)) return fail('StatusDetails', 'details.causes', c, 'v1.StatusCause');
        const cause: NonNullable<NonNullable<Status['details']>['causes']>[number] = {};
        const r = str('StatusCause', c, 'reason', 'details.causes.', 'v1.CauseType');
        if (r !== undefined) cause.reason = r;
        const m = str('StatusCause', c, 'message', 'details.causes.');
        if (m !== undefined) cause.message = m;
        const f = str('StatusCause', c, 'field', 'details.causes.');
        if (f !== undefined) cause.field = f;
        return cause;
      });
    }
    const retry = int('StatusDetails', details, 'retryAfterSeconds', 'details.', 'int32');
    if (retry !== undefined) d.retryAfterSeconds = retry;
    status.details = d;
  }
  const code = int('Status', raw, 'code', '', 'int32');
  if (code !== undefined) status.code = code;
  return status;
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes the answer (Into) and checks it (VerifyAdmissionResponse). Throws CallingWebhookError. */
export function verifyResponse(webhookName: string, uid: string, mutating: boolean, version: ReviewVersion, raw: RawResponse): VerifiedResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch (err) {
    throw malformed(webhookName, `couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (!isObject(parsed)) throw malformed(webhookName, `couldn't get version/kind; json parse error: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into an AdmissionReview`);
  if (typeof parsed.kind !== 'string' || parsed.kind === '') throw malformed(webhookName, `Object 'Kind' is missing in '${raw.body.trim()}'`);
  const response = parsed.response;
  if (response !== undefined && response !== null && !isObject(response)) throw malformed(webhookName, 'json: cannot unmarshal response into Go struct field AdmissionReview.response');
  const r = (response ?? undefined) as Record<string, unknown> | undefined;
  const fieldType = (field: string, ok: boolean, goType: string): void => {
    if (!ok) throw malformed(webhookName, `json: cannot unmarshal ${typeof r![field]} into Go struct field AdmissionResponse.response.${field} of type ${goType}`);
  };
  if (r) {
    fieldType('uid', r.uid === undefined || typeof r.uid === 'string', 'types.UID');
    fieldType('allowed', r.allowed === undefined || typeof r.allowed === 'boolean', 'bool');
    fieldType('patch', r.patch === undefined || r.patch === null || (typeof r.patch === 'string' && base64.test(r.patch)), '[]uint8');
    fieldType('patchType', r.patchType === undefined || r.patchType === null || typeof r.patchType === 'string', 'v1.PatchType');
    fieldType('status', r.status === undefined || r.status === null || isObject(r.status), 'v1.Status');
    fieldType('warnings', r.warnings === undefined || r.warnings === null || (Array.isArray(r.warnings) && r.warnings.every((w) => typeof w === 'string')), '[]string');
    fieldType('auditAnnotations', r.auditAnnotations === undefined || r.auditAnnotations === null || (isObject(r.auditAnnotations) && Object.values(r.auditAnnotations).every((v) => typeof v === 'string')), 'map[string]string');
  }
  const result = r !== undefined && isObject(r.status) ? decodeStatus(webhookName, r.status) : undefined;
  if (r === undefined) throw invalid(webhookName, 'invalid_response', 'webhook response was absent');
  const patchBytes = typeof r.patch === 'string' && r.patch !== '' ? Buffer.from(r.patch, 'base64') : undefined;
  const hasPatchType = r.patchType !== undefined && r.patchType !== null;
  let patch: Buffer | undefined;
  let patchType = '';
  if (version === 'v1') {
    const responseUID = (r.uid as string | undefined) ?? '';
    if (responseUID !== uid) throw invalid(webhookName, 'wrong_uid', `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(responseUID)}`);
    const gv = typeof parsed.apiVersion === 'string' ? parsed.apiVersion : '';
    if (gv !== 'admission.k8s.io/v1' || parsed.kind !== 'AdmissionReview') {
      const slash = gv.indexOf('/');
      const [group, ver] = slash < 0 ? ['', gv] : [gv.slice(0, slash), gv.slice(slash + 1)];
      throw invalid(webhookName, 'invalid_response', `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${ver}, Kind=${String(parsed.kind)}`);
    }
    if (mutating) {
      if (patchBytes !== undefined && !hasPatchType) throw invalid(webhookName, 'forbidden_patch', 'webhook returned response.patch but not response.patchType');
      if (patchBytes === undefined && hasPatchType) throw invalid(webhookName, 'forbidden_patch', 'webhook returned response.patchType but not response.patch');
      patch = patchBytes;
      if (hasPatchType) {
        patchType = r.patchType as string;
        if (patchType === '') throw invalid(webhookName, 'forbidden_patch', `webhook returned invalid response.patchType of ""`);
      }
    } else {
      if (patchBytes !== undefined) throw invalid(webhookName, 'forbidden_patch', 'validating webhook may not return response.patch');
      if (hasPatchType) throw invalid(webhookName, 'forbidden_patch', 'validating webhook may not return response.patchType');
    }
  } else if (mutating) {
    // v1beta1 answers were never checked for uid, kind or patchType: a patch is a JSONPatch
    patch = patchBytes;
    if (patchBytes !== undefined) patchType = 'JSONPatch';
  }
  return {
    allowed: r.allowed === true,
    result,
    patch,
    patchType,
    warnings: (r.warnings ?? []) as string[],
    auditAnnotations: (r.auditAnnotations ?? {}) as Record<string, string>,
  };
}
