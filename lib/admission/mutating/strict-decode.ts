// After a JSONPatch, upstream decodes the patched object strictly into its Go type (patch/json_patch.go: the
// strict json serializer's Decode into a new object of the versioned kind), and a failure is an internal error
// whatever the failure policy:
//   - apiVersion/kind that are not strings, or a document that is not an object: the serializer's Interpret error
//     (`couldn't get version/kind; json parse error: …`);
//   - a field of the wrong JSON type: `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
//     of type int32` (sigs.k8s.io/json, field names from the root; the first such error in document order), or the
//     error of a type's own UnmarshalJSON (resource.Quantity, metav1.Time, intstr.IntOrString);
//   - otherwise fields the type does not have: `strict decoding error: unknown field "spec.x"`.
// Checked for every built-in kind kube-apiserver 1.36 serves (decode-types.generated.ts, from
// scripts/gen-decode-types.mjs); custom resources accept any field (upstream decodes them as unstructured).
import { StrictCheck } from '../../api/strict-check.js';
import { interpretError, StrictWalker } from '../../api/strict-walker.js';
import type { ScalarChecks } from '../../api/strict-walker.js';
import { parseQuantity } from '../../cel/runtime/k8s/quantity.js';
import { ownValue, stringifyJson } from '../../json/index.js';
import { decodeTypes } from './decode-types.generated.js';

type JsonObject = { [key: string]: Parameters<StrictWalker['object']>[0][string] };

/**
 * What quantityError said of recent quantity texts: a pure function of the text, and a request's object repeats the
 * same few quantities (each container's requests and limits, after every JSON Patch). Bounded: cleared when full.
 */
const quantityErrors = new Map<string, string | undefined>();
const quantityErrorsLimit = 1024;

/** resource.Quantity UnmarshalJSON: the value's JSON text, unquoted and trimmed, through ParseQuantity. */
function quantityError(value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : stringifyJson(value);
  if (quantityErrors.has(text)) return quantityErrors.get(text);
  let error: string | undefined;
  try {
    parseQuantity(text);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (quantityErrors.size >= quantityErrorsLimit) quantityErrors.clear();
  quantityErrors.set(text, error);
  return error;
}

/** apiextensions/v1 JSONSchemaPropsOrBool UnmarshalJSON (marshal.go): a schema object, true or false. */
function schemaOrBoolError(value: unknown): string | undefined {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value)) ? undefined : 'boolean or JSON schema expected';
}

export const decodeScalars: ScalarChecks = { 'resource.Quantity': quantityError, 'apiextensions.JSONSchemaPropsOrBool': schemaOrBoolError };

let check: StrictCheck | undefined;

/** What a request's earlier decodes proved. */
export interface Decoded {
  /** an object of the same kind that decoded (an earlier version of this one) */
  readonly known?: unknown;
}

/**
 * The decoding error for `object` (of the versioned kind `apiVersion`/`kind`), or undefined when it decodes. The
 * parts `object` shares with `decoded.known` at the same place are not checked again.
 */
export function decodeError(apiVersion: string, kind: string, object: unknown, decoded: Decoded = {}): string | undefined {
  const interpret = interpretError(object);
  if (interpret !== undefined) return interpret;
  const { roots, types } = decodeTypes();
  const root = ownValue(roots, `${apiVersion} ${kind}`);
  const type = root === undefined ? undefined : ownValue(types, root);
  if (type === undefined) return undefined;
  // the common case, an object that decodes, without building the walker's paths and messages
  check ??= new StrictCheck(types, decodeScalars);
  const known = decoded.known;
  if (check.decodes(object, root!, known)) return undefined;
  const walk = (sortKeys: boolean, skip: unknown): StrictWalker => {
    const walker = new StrictWalker(types, { sortKeys, scalars: decodeScalars, check: true });
    walker.object((object ?? {}) as JsonObject, type, '', '', skip);
    return walker;
  };
  // in the object's own key order first; only an error needs the document order (sorted, the whole object) to pick
  // the first one
  let walker = walk(false, known);
  if (walker.typeError !== undefined || walker.unknown.length > 0) walker = walk(true, undefined);
  if (walker.typeError !== undefined) return walker.typeError;
  return walker.unknown.length === 0 ? undefined : `strict decoding error: ${walker.unknown.join(', ')}`;
}
