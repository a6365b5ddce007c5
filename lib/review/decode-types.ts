// The AdmissionReview envelope checked as a Go webhook built on k8s.io/apimachinery decodes it into the typed struct
// (k8s.io/api/admission/v1 AdmissionReview; the json serializer calls sigs.k8s.io/json
// UnmarshalCaseSensitivePreserveInts): a value of the wrong JSON type fails the decode with encoding/json's
// UnmarshalTypeError, `json: cannot unmarshal <value> into Go struct field <Struct>.<field path> of type <Go type>`.
// Keys match case-sensitively, unknown keys are ignored, null is accepted everywhere, and the first fault in
// document order is the one reported (decodeState.saveError keeps the first). object, oldObject and options are
// runtime.RawExtension, whose UnmarshalJSON takes any JSON: they are never walked here, so this check costs a walk
// over the small envelope only.
//
// Known difference: JSON.parse has already turned number literals into doubles, so an integer field given `1.0`
// passes (Go's strconv.ParseInt refuses it) and a number is quoted as JavaScript prints it.

/** A Go type, as far as decoding the envelope needs it; `name` is reflect.Type.String(). */
type GoType =
  | { readonly k: 'string'; readonly name: string }
  | { readonly k: 'bool'; readonly name: string }
  | { readonly k: 'int'; readonly name: string; readonly min: number; readonly max: number }
  | { readonly k: 'bytes'; readonly name: string }
  | { readonly k: 'slice'; readonly name: string; readonly elem: GoType }
  | { readonly k: 'map'; readonly name: string; readonly elem: GoType }
  | { readonly k: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, GoType>> }
  | { readonly k: 'raw' };

const str = (name = 'string'): GoType => ({ k: 'string', name });
const bool: GoType = { k: 'bool', name: 'bool' };
const int32: GoType = { k: 'int', name: 'int32', min: -(2 ** 31), max: 2 ** 31 - 1 };
const int64: GoType = { k: 'int', name: 'int64', min: -(2 ** 63), max: 2 ** 63 - 1 };
const uint8: GoType = { k: 'int', name: 'uint8', min: 0, max: 255 };
const raw: GoType = { k: 'raw' };
const struct = (name: string, fields: Record<string, GoType>): GoType => ({ k: 'struct', name, fields });
const slice = (elem: GoType, name = `[]${(elem as { name: string }).name}`): GoType => ({ k: 'slice', name, elem });
const map = (elem: GoType): GoType => ({ k: 'map', name: `map[string]${(elem as { name: string }).name}`, elem });

// Field lists: /work/shared/reference/k8s-api/admission-v1-fields.json (k8s.io/api v0.36.3). Package names as
// reflect prints them: admission/v1, authentication/v1 and meta/v1 are all `v1`; types.UID is apimachinery's.
const groupVersionKind = struct('v1.GroupVersionKind', { group: str(), version: str(), kind: str() });
const groupVersionResource = struct('v1.GroupVersionResource', { group: str(), version: str(), resource: str() });
const extraValue = slice(str(), 'v1.ExtraValue');
const userInfo = struct('v1.UserInfo', { username: str(), uid: str(), groups: slice(str()), extra: map(extraValue) });
const statusCause = struct('v1.StatusCause', { reason: str('v1.CauseType'), message: str(), field: str() });
const status = struct('v1.Status', {
  kind: str(),
  apiVersion: str(),
  metadata: struct('v1.ListMeta', {
    selfLink: str(), resourceVersion: str(), continue: str(), remainingItemCount: int64, shardInfo: struct('v1.ShardInfo', { selector: str() }),
  }),
  status: str(),
  message: str(),
  reason: str('v1.StatusReason'),
  details: struct('v1.StatusDetails', {
    name: str(), group: str(), kind: str(), uid: str('types.UID'), causes: slice(statusCause), retryAfterSeconds: int32,
  }),
  code: int32,
});
const admissionRequest = struct('v1.AdmissionRequest', {
  uid: str('types.UID'),
  kind: groupVersionKind,
  resource: groupVersionResource,
  subResource: str(),
  requestKind: groupVersionKind,
  requestResource: groupVersionResource,
  requestSubResource: str(),
  name: str(),
  namespace: str(),
  operation: str('v1.Operation'),
  userInfo,
  object: raw,
  oldObject: raw,
  dryRun: bool,
  options: raw,
});
const admissionResponse = struct('v1.AdmissionResponse', {
  uid: str('types.UID'),
  allowed: bool,
  status,
  patch: { k: 'bytes', name: '[]uint8' },
  patchType: str('v1.PatchType'),
  auditAnnotations: map(str()),
  warnings: slice(str()),
});
const admissionReview = struct('v1.AdmissionReview', { kind: str(), apiVersion: str(), request: admissionRequest, response: admissionResponse });

/**
 * Where a value sits, as decodeState.errorContext tracks it: the innermost struct and the JSON field names from the
 * root (one array, pushed and popped as the walk goes, so that a walk without faults allocates nothing).
 */
interface Context {
  struct: string;
  readonly fields: string[];
}

function jsonKind(v: unknown): 'bool' | 'string' | 'number' | 'array' | 'object' {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return Array.isArray(v) ? 'array' : 'object';
}

function typeError(value: string, type: GoType, ctx: Context): string {
  const name = (type as { name: string }).name;
  // addErrorContext: Struct is the struct type's bare name, Field the JSON names joined by dots
  return ctx.fields.length === 0
    ? `json: cannot unmarshal ${value} into Go value of type ${name}`
    : `json: cannot unmarshal ${value} into Go struct field ${ctx.struct.slice(ctx.struct.indexOf('.') + 1)}.${ctx.fields.join('.')} of type ${name}`;
}

const base64Alphabet = /[A-Za-z0-9+/]/;

/**
 * encoding/base64 StdEncoding.Decode's error for `s` (decodeQuantum, one 4-character quantum at a time; \r and \n
 * skipped): `illegal base64 data at input byte <n>`, or undefined when it decodes.
 */
export function base64DecodeError(s: string): string | undefined {
  const src = Buffer.from(s, 'utf8');
  const corrupt = (n: number): string => `illegal base64 data at input byte ${n}`;
  const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;
  let si = 0;
  while (si < src.length) {
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return corrupt(si - j); // StdEncoding pads: a short final quantum is corrupt
      }
      const c = src[si++]!;
      if (c < 0x80 && base64Alphabet.test(String.fromCharCode(c))) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) return corrupt(si - 1);
      // padding: only after two or three characters of the quantum
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== 0x3d) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? corrupt(si) : undefined;
    }
  }
  return undefined;
}

/** The first decoding fault of `value` as type `type`, in document order; undefined when it decodes. */
function check(value: unknown, type: GoType, ctx: Context): string | undefined {
  if (value === null || type.k === 'raw') return undefined;
  const kind = jsonKind(value);
  switch (type.k) {
    case 'string':
      return kind === 'string' ? undefined : typeError(kind, type, ctx);
    case 'bool':
      return kind === 'bool' ? undefined : typeError(kind, type, ctx);
    case 'int': {
      if (kind !== 'number') return typeError(kind, type, ctx);
      const n = value as number;
      return Number.isInteger(n) && n >= type.min && n <= type.max ? undefined : typeError(`number ${String(n)}`, type, ctx);
    }
    case 'bytes':
      // a []byte takes a base64 string, or (being a slice) an array of uint8
      if (kind === 'string') return base64DecodeError(value as string);
      if (kind === 'array') return checkAll(value as unknown[], uint8, ctx);
      return typeError(kind, type, ctx);
    case 'slice':
      return kind === 'array' ? checkAll(value as unknown[], type.elem, ctx) : typeError(kind, type, ctx);
    case 'map': {
      if (kind !== 'object') return typeError(kind, type, ctx);
      // map values keep the context of the field holding the map
      for (const v of Object.values(value as Record<string, unknown>)) {
        const fault = check(v, type.elem, ctx);
        if (fault !== undefined) return fault;
      }
      return undefined;
    }
    case 'struct': {
      if (kind !== 'object') return typeError(kind, type, ctx);
      const obj = value as Record<string, unknown>;
      const outer = ctx.struct;
      for (const key in obj) {
        const field = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
        if (field === undefined || (field.k !== 'raw' && obj[key] === null)) continue;
        ctx.struct = type.name;
        ctx.fields.push(key);
        const fault = check(obj[key], field, ctx);
        if (fault !== undefined) return fault;
        ctx.fields.pop();
        ctx.struct = outer;
      }
      return undefined;
    }
  }
}

function checkAll(items: readonly unknown[], elem: GoType, ctx: Context): string | undefined {
  for (const item of items) {
    const fault = check(item, elem, ctx);
    if (fault !== undefined) return fault;
  }
  return undefined;
}

/**
 * The fault a Go webhook would report decoding `review` (an object JSON.parse returned) into admission/v1
 * AdmissionReview, or undefined when it decodes. `review.request` must be an object.
 */
export function admissionReviewTypeError(review: Record<string, unknown>): string | undefined {
  return check(review, admissionReview, { struct: '', fields: [] });
}
