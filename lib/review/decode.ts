// Decoding an AdmissionReview request (the request path's first step after the transport has the body): parse once,
// reject malformed input with a message naming the fault.
//
// Faults are ReviewErrors carrying HTTP 400 for a body that is not an AdmissionReview this daemon can answer (syntax,
// nesting past kube-apiserver's depth, envelope fields of the wrong type in Go's wording).
import type { AdmissionRequest, AdmissionReview, GroupVersionKind, GroupVersionResource } from '../api/admission.js';
import { depthErrorMessage, describeJSONSyntaxError, excessiveNesting, lineAndColumn, maxObjectDepth, maxReviewDepth } from './decode-syntax.js';
import { admissionReviewTypeError } from './decode-types.js';
import { badRequest } from './answer.js';
import type { ReviewError } from './answer.js';

export { describeJSONSyntaxError } from './decode-syntax.js';

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


function syntaxFault(text: string, fault: { readonly position: number; readonly message: string }): ReviewError {
  return badRequest(`request body is not valid JSON: ${fault.message} at position ${fault.position} (${lineAndColumn(text, fault.position)})`);
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
  // Nesting is looked for before the parse: JSON.parse of a body nested millions of levels deep builds a value ~27×
  // its size (190 MB for 7 MiB of '['), which a refused request must not cost. The answer is the one the parse would
  // have led to: a syntax fault anywhere in the text first, the nesting otherwise.
  const tooDeep = excessiveNesting(text, maxReviewDepth);
  if (tooDeep !== undefined) {
    const fault = describeJSONSyntaxError(text);
    if (fault !== undefined) throw syntaxFault(text, fault);
    throw badRequest(`request body nests deeper than kube-apiserver decodes: ${depthErrorMessage(text, tooDeep)} at position ${tooDeep} (${lineAndColumn(text, tooDeep)}): an object may nest ${maxObjectDepth} levels (${maxReviewDepth} in the AdmissionReview around it)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const fault = describeJSONSyntaxError(text);
    throw fault === undefined ? badRequest(`request body is not valid JSON: ${(err as Error).message}`) : syntaxFault(text, fault);
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
