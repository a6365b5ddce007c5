// The wire format of the admission listener: what an incoming AdmissionReview must look like (hot path step 1:
// parse once, reject malformed input with a message naming the fault), how an answer is encoded, and the
// request deadline kube-apiserver announces in `?timeout=`.
//
// Faults are ReviewErrors carrying the HTTP status to answer with: 400 for a body that is not an AdmissionReview
// this daemon can answer (syntax, nesting past kube-apiserver's depth, envelope fields of the wrong type in Go's
// wording), 405 for a method other than POST, 413 for a body over the limit, 415 for a content type or encoding other
// than UTF-8 JSON (optionally gzip-compressed).
import type { AdmissionRequest, AdmissionResponse, AdmissionReview, GroupVersionKind, GroupVersionResource, Status } from '../api/admission.js';
import { depthErrorMessage, describeJSONSyntaxError, excessiveNesting, lineAndColumn, maxObjectDepth, maxReviewDepth } from './json-syntax.js';
import { admissionReviewTypeError } from './review-types.js';

export { describeJSONSyntaxError } from './json-syntax.js';

export const admissionReviewVersions = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type AdmissionReviewVersion = (typeof admissionReviewVersions)[number];

export const admissionOperations = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/** An AdmissionRequest whose identifying fields have been checked. */
export type CheckedAdmissionRequest = AdmissionRequest & {
  uid: string;
  operation: (typeof admissionOperations)[number];
  kind: GroupVersionKind & { version: string; kind: string };
  resource: GroupVersionResource & { version: string; resource: string };
};

/** One parsed AdmissionReview request, as the endpoint handlers get it. */
export interface ParsedReview {
  /** the version the apiserver sent; the answer is encoded in the same one */
  readonly apiVersion: AdmissionReviewVersion;
  readonly request: CheckedAdmissionRequest;
  /** the body as received (gunzipped when it came compressed): pass these bytes on instead of re-serializing */
  readonly body: Buffer;
}

/** A fault in the request; `status` is the HTTP status to answer with. */
export class ReviewError extends Error {
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.name = 'ReviewError';
    this.status = status;
    this.reason = reason;
  }
}

export const badRequest = (message: string): ReviewError => new ReviewError(400, 'BadRequest', message);

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function requireString(obj: Record<string, unknown>, field: string, path: string): string {
  const v = obj[field];
  if (v === undefined || v === null || v === '') throw badRequest(`invalid AdmissionReview: ${path}: Required value`);
  if (typeof v !== 'string') throw badRequest(`invalid AdmissionReview: ${path}: Invalid value: ${typeName(v)}: must be a string`);
  return v;
}

function optionalString(obj: Record<string, unknown>, field: string, path: string): void {
  const v = obj[field];
  if (v !== undefined && v !== null && typeof v !== 'string') throw badRequest(`invalid AdmissionReview: ${path}: Invalid value: ${typeName(v)}: must be a string`);
}

function requireObject(obj: Record<string, unknown>, field: string, path: string): Record<string, unknown> {
  const v = obj[field];
  if (v === undefined || v === null) throw badRequest(`invalid AdmissionReview: ${path}: Required value`);
  if (!isObject(v)) throw badRequest(`invalid AdmissionReview: ${path}: Invalid value: ${typeName(v)}: must be an object`);
  return v;
}

/**
 * Parses a request body as an AdmissionReview request (admission.k8s.io/v1 or v1beta1): JSON.parse exactly once,
 * then the checks that let every later step rely on uid, operation, kind and resource, then the rest of the envelope
 * typed as a Go webhook decodes it (review-types.ts). Bodies long enough to nest past kube-apiserver's depth limit
 * are scanned for it (an object may nest maxObjectDepth levels). Throws ReviewError(400) naming the fault.
 */
export function parseAdmissionReview(body: Buffer): ParsedReview {
  if (body.length === 0) throw badRequest('request body is empty: expected an AdmissionReview');
  const text = body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const fault = describeJSONSyntaxError(text);
    throw badRequest(fault === undefined
      ? `request body is not valid JSON: ${(err as Error).message}`
      : `request body is not valid JSON: ${fault.message} at position ${fault.position} (${lineAndColumn(text, fault.position)})`);
  }
  const tooDeep = excessiveNesting(text, maxReviewDepth);
  if (tooDeep !== undefined) {
    throw badRequest(`request body nests deeper than kube-apiserver decodes: ${depthErrorMessage(text, tooDeep)} at position ${tooDeep} (${lineAndColumn(text, tooDeep)}): an object may nest ${maxObjectDepth} levels (${maxReviewDepth} in the AdmissionReview around it)`);
  }
  if (!isObject(parsed)) throw badRequest(`invalid AdmissionReview: expected a JSON object, got ${typeName(parsed)}`);
  const review = parsed as Record<string, unknown> & AdmissionReview;

  const kind = review.kind;
  if (kind !== 'AdmissionReview') {
    throw badRequest(kind === undefined || kind === '' ? 'invalid AdmissionReview: kind: Required value: expected "AdmissionReview"' : `invalid AdmissionReview: kind: Unsupported value: ${JSON.stringify(kind)}: expected "AdmissionReview"`);
  }
  const apiVersion = review.apiVersion;
  if (!(admissionReviewVersions as readonly unknown[]).includes(apiVersion)) {
    const supported = admissionReviewVersions.map((v) => JSON.stringify(v)).join(', ');
    throw badRequest(apiVersion === undefined || apiVersion === '' ? `invalid AdmissionReview: apiVersion: Required value: supported values: ${supported}` : `invalid AdmissionReview: apiVersion: Unsupported value: ${JSON.stringify(apiVersion)}: supported values: ${supported}`);
  }

  const request = review.request as unknown;
  if (request === undefined || request === null) throw badRequest('invalid AdmissionReview: request: Required value: an AdmissionReview sent for admission must carry a request');
  if (!isObject(request)) throw badRequest(`invalid AdmissionReview: request: Invalid value: ${typeName(request)}: must be an object`);
  requireString(request, 'uid', 'request.uid');
  const operation = requireString(request, 'operation', 'request.operation');
  if (!(admissionOperations as readonly string[]).includes(operation)) {
    throw badRequest(`invalid AdmissionReview: request.operation: Unsupported value: ${JSON.stringify(operation)}: supported values: ${admissionOperations.map((o) => JSON.stringify(o)).join(', ')}`);
  }
  const gvk = requireObject(request, 'kind', 'request.kind');
  optionalString(gvk, 'group', 'request.kind.group');
  requireString(gvk, 'version', 'request.kind.version');
  requireString(gvk, 'kind', 'request.kind.kind');
  const gvr = requireObject(request, 'resource', 'request.resource');
  optionalString(gvr, 'group', 'request.resource.group');
  requireString(gvr, 'version', 'request.resource.version');
  requireString(gvr, 'resource', 'request.resource.resource');
  const typeFault = admissionReviewTypeError(review);
  if (typeFault !== undefined) throw badRequest(typeFault);

  return { apiVersion: apiVersion as AdmissionReviewVersion, request: request as unknown as CheckedAdmissionRequest, body };
}

/**
 * Encodes the answer to `review`: `{"apiVersion":<as asked>,"kind":"AdmissionReview","response":{"uid":…,
 * "allowed":…,"status":…,"warnings":…,"auditAnnotations":…,"patch":…,"patchType":…}}`. `uid` is always the
 * request's; optional fields are left out when empty (as Go's omitempty does); a patch without a patchType gets
 * "JSONPatch", the only type kube accepts.
 */
export function encodeAdmissionReviewResponse(review: Pick<ParsedReview, 'apiVersion' | 'request'>, response: AdmissionResponse): Buffer {
  const out: AdmissionResponse = { uid: review.request.uid, allowed: response.allowed === true };
  if (response.status) out.status = response.status;
  if (response.warnings && response.warnings.length > 0) out.warnings = response.warnings;
  if (response.auditAnnotations && Object.keys(response.auditAnnotations).length > 0) out.auditAnnotations = response.auditAnnotations;
  if (response.patch) {
    out.patch = response.patch;
    out.patchType = response.patchType || 'JSONPatch';
  }
  return Buffer.from(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: out }));
}

/** A metav1.Status body for answers other than 200; kube-apiserver shows its message when a webhook call fails. */
export function encodeStatus(code: number, reason: string, message: string): Buffer {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  return Buffer.from(JSON.stringify(status));
}

/**
 * Checks Content-Type: application/json, with any parameters, but a charset other than UTF-8 (JSON's only encoding,
 * RFC 8259 §8.1) is refused like any other type; otherwise 415.
 */
export function checkContentType(contentType: string | undefined): void {
  const [type, ...parameters] = (contentType ?? '').split(';');
  const mediaType = type!.trim().toLowerCase();
  const charset = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/^"(.*)"$/, '$1');
  if (mediaType !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new ReviewError(415, 'UnsupportedMediaType', contentType === undefined || contentType === ''
      ? 'Content-Type: Required value: expected application/json'
      : `Content-Type: Unsupported value: ${JSON.stringify(contentType)}: expected application/json`);
  }
}

/** Checks Content-Encoding: none, identity or gzip; returns whether the body must be gunzipped; otherwise 415. */
export function checkContentEncoding(contentEncoding: string | undefined): boolean {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return false;
  if (encoding === 'gzip' || encoding === 'x-gzip') return true;
  throw new ReviewError(415, 'UnsupportedMediaType', `Content-Encoding: Unsupported value: ${JSON.stringify(contentEncoding)}: supported values: "gzip", "identity"`);
}

const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (unsigned), in milliseconds; throws on malformed input. */
export function parseGoDuration(s: string): number {
  if (s === '0') return 0;
  if (s === '') throw new Error('time: invalid duration ""');
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) throw new Error(`time: invalid duration ${JSON.stringify(s)}`);
    total += Number(m[1]) * durationUnits[m[2]!]!;
    i = re.lastIndex;
  }
  return total;
}

export interface TimeoutLimits {
  /** used when the request has no `?timeout=` (kube's default webhook timeoutSeconds: 10s) */
  readonly defaultTimeoutMs: number;
  /** the largest timeout honoured (kube's maximum webhook timeoutSeconds: 30s) */
  readonly maxTimeoutMs: number;
}

/**
 * The time the apiserver gives this call: its `?timeout=` (a Go duration, `5s`, `500ms`), the default when absent,
 * capped at the maximum. A malformed or non-positive value is a 400.
 */
export function requestTimeoutMs(timeoutParam: string | null, limits: TimeoutLimits): number {
  if (timeoutParam === null || timeoutParam === '') return Math.min(limits.defaultTimeoutMs, limits.maxTimeoutMs);
  let ms: number;
  try {
    ms = parseGoDuration(timeoutParam);
  } catch (err) {
    throw badRequest(`invalid timeout query parameter: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw badRequest(`invalid timeout query parameter ${JSON.stringify(timeoutParam)}: must be greater than zero`);
  return Math.min(ms, limits.maxTimeoutMs);
}
