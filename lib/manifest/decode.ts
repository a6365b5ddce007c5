// Strict decoding of one document into an admissionregistration/v1 object, as the loaders' universal deserializer
// with serializer.EnableStrict does: unknown and duplicate fields are strict errors (all reported together), a wrong
// JSON type is a hard error worded as encoding/json words it, null leaves a field unset.
import { apiSchema } from '../api/schema.generated.js';
import type { ApiType } from '../api/schema.js';
import { DocumentSyntaxError, parseManifestDocument } from './document.js';
import type { JsonObject, JsonValue } from './document.js';
import { goTypeName, isRegistered, isV1Kind } from './scheme.js';
import type { V1Kind } from './scheme.js';

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export type DecodedDocument =
  | { readonly type: 'object'; readonly kind: V1Kind; readonly goType: string; readonly object: JsonObject }
  | { readonly type: 'list'; readonly goType: '*v1.List'; readonly items: readonly JsonValue[] }
  | { readonly type: 'foreign'; readonly goType: string };

/** The scheme name upstream's "no kind is registered" errors carry (the callsite that built the loader scheme). */
const schemeName = 'pkg/admission/plugin/manifest/loader/loader.go:44';
const interpretType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Decodes one document's text. Throws DecodeError with upstream's message (the caller adds `error loading <file>: `). */
export function decodeDocumentText(text: string): DecodedDocument {
  let parsed;
  try {
    parsed = parseManifestDocument(text);
  } catch (err) {
    if (err instanceof DocumentSyntaxError) throw new DecodeError(err.message);
    throw err;
  }
  return decodeValue(parsed.value, text, parsed.duplicateErrors);
}

/** Decodes an already-parsed value (a List item): `raw` is its text for the missing-kind messages. */
export function decodeDocumentValue(value: JsonValue, raw: string): DecodedDocument {
  return decodeValue(value, raw, []);
}

function decodeValue(value: JsonValue, raw: string, duplicateErrors: readonly string[]): DecodedDocument {
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(value)} into Go value of type ${interpretType}`);
  }
  const obj = value ?? {};
  for (const key of ['apiVersion', 'kind'] as const) {
    const v = obj[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new DecodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${key} of type string`);
    }
  }
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind === '') throw new DecodeError(`Object 'Kind' is missing in '${raw}'`);
  if (apiVersion === '') throw new DecodeError(`Object 'apiVersion' is missing in '${raw}'`);
  if (!isRegistered(apiVersion, kind)) {
    throw new DecodeError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "${schemeName}"`);
  }
  const goType = goTypeName(apiVersion, kind);
  if (apiVersion === 'v1' && kind === 'List') {
    const list = strictDecode(obj, listType, duplicateErrors);
    const items = list.items;
    return { type: 'list', goType: '*v1.List', items: Array.isArray(items) ? items : [] };
  }
  if (!isV1Kind(apiVersion, kind)) return { type: 'foreign', goType };
  return { type: 'object', kind, goType, object: strictDecode(obj, apiSchema[kind]!, duplicateErrors) };
}

const listType: ApiType = {
  go: 'List',
  fields: {
    kind: { type: 'string', go: 'string' },
    apiVersion: { type: 'string', go: 'string' },
    metadata: { type: 'metav1.ListMeta', go: 'v1.ListMeta' },
    items: { type: '[]runtime.RawExtension', go: '[]runtime.RawExtension' },
  },
};

function strictDecode(obj: JsonObject, type: ApiType, duplicateErrors: readonly string[]): JsonObject {
  const walker = new StrictWalker();
  const out = walker.object(obj, type, '', '');
  const strict = [...duplicateErrors, ...walker.unknown];
  if (walker.typeError) throw new DecodeError(walker.typeError);
  if (strict.length > 0) throw new DecodeError(`strict decoding error: ${strict.join(', ')}`);
  return out;
}

function jsonKind(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const rfc3339Pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

class StrictWalker {
  readonly unknown: string[] = [];
  /** the first hard error, as encoding/json reports only that one */
  typeError: string | undefined;

  private fail(value: JsonValue, structName: string, fieldPath: string, goType: string, detail?: string): void {
    if (this.typeError) return;
    const what = detail ?? jsonKind(value);
    this.typeError = fieldPath === ''
      ? `json: cannot unmarshal ${what} into Go value of type ${goType}`
      : `json: cannot unmarshal ${what} into Go struct field ${structName}.${fieldPath} of type ${goType}`;
  }

  /** `strictPath` has array indices (for unknown/duplicate field errors); `goPath` has field names only. */
  object(obj: JsonObject, type: ApiType, strictPath: string, goPath: string): JsonObject {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(obj)) {
      const field = type.fields[key];
      const childStrict = strictPath === '' ? key : `${strictPath}.${key}`;
      if (!field) {
        this.unknown.push(`unknown field "${childStrict}"`);
        continue;
      }
      const childGo = goPath === '' ? key : `${goPath}.${key}`;
      const converted = this.value(value, field.type, field.go, type.go, childStrict, childGo);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  }

  /** Returns undefined for null (the field stays unset). */
  private value(value: JsonValue, type: string, goType: string, structName: string, strictPath: string, goPath: string): JsonValue | undefined {
    if (value === null) return undefined;
    if (type.startsWith('*')) return this.value(value, type.slice(1), goType, structName, strictPath, goPath);
    if (type.startsWith('[]')) {
      if (!Array.isArray(value)) {
        this.fail(value, structName, goPath, goType);
        return undefined;
      }
      const elemType = type.slice(2);
      const elemGo = goType.startsWith('[]') ? goType.slice(2) : goType;
      return value.map((item, i) => this.value(item, elemType, elemGo, structName, `${strictPath}[${i}]`, goPath) ?? zeroValue(elemType));
    }
    if (type === 'map[string]string') {
      if (typeof value !== 'object' || Array.isArray(value)) {
        this.fail(value, structName, goPath, goType);
        return undefined;
      }
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === null) {
          out[k] = '';
        } else if (typeof v !== 'string') {
          this.fail(v, structName, `${goPath}.${k}`, 'string');
        } else {
          out[k] = v;
        }
      }
      return out;
    }
    switch (type) {
      case 'string':
      case 'types.UID':
        if (typeof value !== 'string') this.fail(value, structName, goPath, goType);
        return value;
      case 'bool':
        if (typeof value !== 'boolean') this.fail(value, structName, goPath, goType);
        return value;
      case 'int32':
      case 'int64': {
        if (typeof value !== 'number') {
          this.fail(value, structName, goPath, goType);
          return undefined;
        }
        const inRange = type === 'int32' ? value >= int32Min && value <= int32Max : Number.isSafeInteger(value);
        if (!Number.isInteger(value) || !inRange) this.fail(value, structName, goPath, goType, `number ${value}`);
        return value;
      }
      case 'bytes':
        if (typeof value !== 'string') {
          this.fail(value, structName, goPath, goType);
        } else if (!base64Pattern.test(value)) {
          if (!this.typeError) this.typeError = `illegal base64 data at input byte ${firstBadBase64Byte(value)}`;
        }
        return value;
      case 'metav1.Time':
        if (typeof value !== 'string') {
          this.fail(value, structName, goPath, 'v1.Time');
        } else if (!rfc3339Pattern.test(value) || Number.isNaN(Date.parse(value))) {
          if (!this.typeError) this.typeError = `parsing time "${value}" as "2006-01-02T15:04:05Z07:00": cannot parse "${value}" as "2006"`;
        }
        return value;
      case 'metav1.FieldsV1':
      case 'runtime.RawExtension':
        return value;
    }
    const struct = apiSchema[type];
    if (!struct) throw new Error(`schema has no type ${type}`);
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.fail(value, structName, goPath, goType);
      return undefined;
    }
    return this.object(value, struct, strictPath, goPath);
  }
}

function zeroValue(type: string): JsonValue {
  if (type === 'string' || type === 'bytes' || type === 'types.UID') return '';
  if (type === 'int32' || type === 'int64') return 0;
  if (type === 'bool') return false;
  if (type.startsWith('*')) return null;
  return {};
}

function firstBadBase64Byte(s: string): number {
  const i = s.search(/[^A-Za-z0-9+/=]/);
  return i === -1 ? s.length - (s.length % 4) : i;
}
