// Strict decoding of one document into an admissionregistration/v1 object, as the loaders' universal deserializer
// with serializer.EnableStrict does: unknown and duplicate fields are strict errors (all reported together), a wrong
// JSON type is a hard error worded as encoding/json words it, null leaves a field unset.
import { apiSchema } from '../api/schema.generated.js';
import type { ApiType } from '../api/schema.js';
import { interpretError, StrictWalker } from '../api/strict-walker.js';
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
  const interpret = interpretError(value);
  if (interpret !== undefined) throw new DecodeError(interpret);
  const obj = (value ?? {}) as JsonObject;
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
  const walker = new StrictWalker(apiSchema);
  const out = walker.object(obj, type, '', '');
  const strict = [...duplicateErrors, ...walker.unknown];
  if (walker.typeError) throw new DecodeError(walker.typeError);
  if (strict.length > 0) throw new DecodeError(`strict decoding error: ${strict.join(', ')}`);
  return out;
}
