// Strict decoding of one document into an admissionregistration/v1 object, as the loaders' universal deserializer
// with serializer.EnableStrict does: unknown and duplicate fields are strict errors (all reported together), a wrong
// JSON type is a hard error worded as encoding/json words it, null leaves a field unset.
import { apiSchema } from '../api/schema.generated.js';
import type { ApiSchema, ApiType } from '../api/schema.js';
import { schemaForVersion } from '../api/version-schemas.js';
import { interpretError, StrictWalker } from '../api/strict-walker.js';
import { DocumentSyntaxError, parseManifestDocument } from './document.js';
import { goJsonMarshal, goQuote } from '../validation/go-format.js';
import { setOwn } from '../json/own.js';
import type { JsonObject, JsonValue } from './document.js';
import { goTypeName, isList, isRegistered, isV1Kind } from './scheme.js';
import type { V1Kind } from './scheme.js';
import type { PluginFamily } from './plugins.js';

export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

export type DecodedDocument =
  | { readonly type: 'object'; readonly kind: V1Kind; readonly goType: string; readonly object: JsonObject }
  | { readonly type: 'list'; readonly goType: '*v1.List'; readonly items: readonly JsonValue[]; readonly keyOrder: KeyOrder }
  | { readonly type: 'foreign'; readonly goType: string };

/**
 * The scheme name upstream's "no kind is registered" errors carry: runtime.NewScheme names a scheme after its caller
 * (apimachinery util/naming/from_stack.go GetNameFromCallsite, the path cut at its last "/pkg/"). Each plugin family
 * decodes with its own loader package's scheme in k8s.io/kubernetes v1.36.3: `scheme = runtime.NewScheme()` at
 * pkg/admission/plugin/policy/manifest/loader/validating_loader.go:35 (both policy plugins) and
 * pkg/admission/plugin/webhook/manifest/loader/loader.go:41 (both webhook plugins). A release build (-trimpath, so
 * apimachinery's own frame is skipped as upstream intends) names them so.
 */
export const loaderSchemeNames: Readonly<Record<PluginFamily, string>> = {
  policy: 'pkg/admission/plugin/policy/manifest/loader/validating_loader.go:35',
  webhook: 'pkg/admission/plugin/webhook/manifest/loader/loader.go:41',
};

/**
 * The order upstream's strict JSON decoder meets an object's keys in: a YAML document reaches it through
 * sigs.k8s.io/yaml's YAMLToJSON, which marshals Go maps, so with every object's keys sorted; JSON as written.
 */
export type KeyOrder = 'sorted' | 'document';

/** Decodes one document's text (`bytes`: its bytes where they are not UTF-8). Throws DecodeError with upstream's message (the caller adds `error loading <file>: `). */
export function decodeDocumentText(text: string, family: PluginFamily, bytes?: Uint8Array): DecodedDocument {
  let parsed;
  try {
    parsed = parseManifestDocument(text, bytes);
  } catch (err) {
    if (err instanceof DocumentSyntaxError) throw new DecodeError(err.message);
    throw err;
  }
  return decodeValue(parsed.value, text, parsed.duplicateErrors, family, parsed.format === 'yaml' ? 'sorted' : 'document');
}

/**
 * A List item's text as upstream holds it (its RawExtension) and quotes it in missing-kind messages: for a YAML
 * document, encoding/json's output of what YAMLToJSON built, so keys sorted and <, >, & escaped; for JSON, the item.
 */
export function listItemText(item: JsonValue, keyOrder: KeyOrder): string {
  return keyOrder === 'sorted' ? goJsonMarshal(withSortedKeys(item)) : JSON.stringify(item);
}

/** Decodes an already-parsed value (a List item): `raw` is its text for the missing-kind messages. */
export function decodeDocumentValue(value: JsonValue, raw: string, family: PluginFamily, keyOrder: KeyOrder): DecodedDocument {
  return decodeValue(value, raw, [], family, keyOrder);
}

function decodeValue(value: JsonValue, raw: string, duplicateErrors: readonly string[], family: PluginFamily, keyOrder: KeyOrder): DecodedDocument {
  const interpret = interpretError(value);
  if (interpret !== undefined) throw new DecodeError(interpret);
  const obj = (value ?? {}) as JsonObject;
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind === '') throw new DecodeError(`Object 'Kind' is missing in '${raw}'`);
  if (apiVersion === '') throw new DecodeError(`Object 'apiVersion' is missing in '${raw}'`);
  if (!isRegistered(apiVersion, kind)) {
    throw new DecodeError(`no kind ${goQuote(kind)} is registered for version ${goQuote(apiVersion)} in scheme ${goQuote(loaderSchemeNames[family])}`);
  }
  const goType = goTypeName(apiVersion, kind);
  if (isList(kind)) {
    const list = strictDecode(obj, listType, duplicateErrors, keyOrder);
    const items = list.items;
    return { type: 'list', goType: '*v1.List', items: Array.isArray(items) ? items : [], keyOrder };
  }
  if (!isV1Kind(apiVersion, kind)) {
    // the scheme decodes every version it registers strictly, so an object the loader will not accept still has
    // its strict errors reported first; admissionregistration's other versions have v1's fields
    const schema = schemaForVersion(apiVersion);
    const sameKind = apiVersion.startsWith('admissionregistration.k8s.io/') && Object.hasOwn(schema, kind) ? schema[kind] : undefined;
    if (sameKind !== undefined) strictDecode(obj, sameKind, duplicateErrors, keyOrder, schema);
    else if (duplicateErrors.length > 0) throw new DecodeError(`strict decoding error: ${duplicateErrors.join(', ')}`);
    return { type: 'foreign', goType };
  }
  return { type: 'object', kind, goType, object: strictDecode(obj, apiSchema[kind]!, duplicateErrors, keyOrder) };
}

/** The loader's decoder (sigs.k8s.io/json via apimachinery's serializer) names struct fields only in a type error. */
const LOADER_DECODER = { mapKeysInPath: false } as const;

const listType: ApiType = {
  go: 'List',
  fields: {
    kind: { type: 'string', go: 'string' },
    apiVersion: { type: 'string', go: 'string' },
    metadata: { type: 'metav1.ListMeta', go: 'v1.ListMeta' },
    items: { type: '[]runtime.RawExtension', go: '[]runtime.RawExtension' },
  },
};

function strictDecode(obj: JsonObject, type: ApiType, duplicateErrors: readonly string[], keyOrder: KeyOrder, schema: ApiSchema = apiSchema): JsonObject {
  let walker = new StrictWalker(schema, LOADER_DECODER);
  const out = walker.object(obj, type, '', '');
  if (keyOrder === 'sorted' && (walker.typeError !== undefined || walker.unknown.length > 1)) {
    // which error comes first depends on the order the keys are met: walked again as upstream meets them
    walker = new StrictWalker(schema, LOADER_DECODER);
    walker.object(withSortedKeys(obj) as JsonObject, type, '', '');
  }
  const strict = [...duplicateErrors, ...walker.unknown];
  if (walker.typeError) throw new DecodeError(walker.typeError);
  if (strict.length > 0) throw new DecodeError(`strict decoding error: ${strict.join(', ')}`);
  return out;
}

/** `value` with every object's keys in Go's sorted order (byte order; an explicit stack, so any depth is fine). */
function withSortedKeys(value: JsonValue): JsonValue {
  const root: { v: JsonValue } = { v: value };
  const stack: Array<[holder: Record<string, JsonValue> | JsonValue[], key: string | number]> = [[root as unknown as Record<string, JsonValue>, 'v']];
  while (stack.length > 0) {
    const [holder, key] = stack.pop()!;
    const v = (holder as Record<string | number, JsonValue>)[key]!;
    if (Array.isArray(v)) {
      const copy = [...v];
      (holder as Record<string | number, JsonValue>)[key] = copy;
      for (let i = 0; i < copy.length; i++) stack.push([copy, i]);
    } else if (v !== null && typeof v === 'object') {
      const copy: Record<string, JsonValue> = {};
      for (const k of Object.keys(v).sort(byBytes)) setOwn(copy, k, (v as Record<string, JsonValue>)[k]!);
      (holder as Record<string | number, JsonValue>)[key] = copy;
      for (const k of Object.keys(copy)) stack.push([copy, k]);
    }
  }
  return root.v;
}

/** Go's string order: by UTF-8 bytes (code points), where JavaScript's default compares UTF-16 units. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
