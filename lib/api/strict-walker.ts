// Strict decoding of a JSON value into a Go type described by a generated field schema, as sigs.k8s.io/json
// UnmarshalStrict (the serializer's strict mode) does it: unknown fields are strict errors (all reported together);
// a JSON value of the wrong type is a hard error worded as its encoding/json fork words it (the first one in
// document order: `json: cannot unmarshal <value> into Go struct field <Struct>.<path> of type <Go type>`), which
// wins over the strict errors; a type with its own UnmarshalJSON (metav1.Time, intstr.IntOrString,
// resource.Quantity) fails with that method's error and stops the decoding. null leaves a field unset.
//
// Upstream: sigs.k8s.io/json internal/golang/encoding/json/decode.go (literalStore, object, array, addErrorContext),
// k8s.io/apimachinery pkg/runtime/serializer/json/json.go (unmarshal: a type error is returned, strict errors only
// without one), pkg/apis/meta/v1/time.go and micro_time.go, pkg/util/intstr/intstr.go (UnmarshalJSON).
import { goQuote } from '../validation/go-format.js';
import { ownValue, setOwn } from '../json/own.js';
import type { ApiSchema, ApiType } from './schema.js';

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

/** Checks for scalar types whose UnmarshalJSON the walker cannot judge alone: the error, or undefined. */
export type ScalarChecks = Readonly<Record<string, (value: JsonValue) => string | undefined>>;

export const int32Min = -(2 ** 31);
export const int32Max = 2 ** 31 - 1;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const rfc3339Pattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The JSON value's kind as encoding/json names it in UnmarshalTypeError.Value. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function firstBadBase64Byte(s: string): number {
  const i = s.search(/[^A-Za-z0-9+/=]/);
  return i === -1 ? s.length - (s.length % 4) : i;
}

function zeroValue(type: string): JsonValue {
  if (type === 'string' || type === 'bytes' || type === 'types.UID') return '';
  if (type === 'int32' || type === 'int64' || type === 'float64') return 0;
  if (type === 'bool') return false;
  if (type.startsWith('*')) return null;
  return {};
}

const interpretType = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * The serializer's first step (runtime/serializer/json/meta.go SimpleMetaFactory.Interpret): apiVersion and kind
 * read with encoding/json into an anonymous struct. Its error, or undefined.
 */
export function interpretError(value: unknown): string | undefined {
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(value)} into Go value of type ${interpretType}`;
  }
  const obj = (value ?? {}) as Record<string, unknown>;
  for (const key of ['apiVersion', 'kind'] as const) {
    const v = obj[key];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      return `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${key} of type string`;
    }
  }
  return undefined;
}

const shapes = new Map<string, 'string' | 'other' | ApiType>();
let shapesSchema: ApiSchema | undefined;

export class StrictWalker {
  readonly unknown: string[] = [];
  /** the first type error (encoding/json keeps only that one) */
  #saved: string | undefined;
  /** an UnmarshalJSON error: decoding stops there and it is the answer */
  #fatal: string | undefined;

  /**
   * `sortKeys`: walk object keys in sorted order, the document order of JSON a patch produced (evanphx/json-patch
   * v4 writes the objects it touched as Go maps, keys sorted). `check`: only find the errors (object() returns its
   * input instead of the decoded copy).
   */
  constructor(
    private readonly schema: ApiSchema,
    private readonly options: {
      readonly sortKeys?: boolean;
      readonly scalars?: ScalarChecks;
      readonly check?: boolean;
      /**
       * false: a map element's type error names the map's field only, as the manifest loader's decoder
       * (sigs.k8s.io/json) does; default true, as the decoder after a JSON Patch names the key too
       */
      readonly mapKeysInPath?: boolean;
    } = {},
  ) {
    if (shapesSchema !== schema) {
      shapes.clear();
      shapesSchema = schema;
    }
  }

  /** The hard error decoding returns, if any (an UnmarshalJSON error, else the first type error). */
  get typeError(): string | undefined {
    return this.#fatal ?? this.#saved;
  }

  private fail(value: JsonValue, structName: string, fieldPath: string, goType: string, detail?: string): void {
    if (this.#saved !== undefined || this.#fatal !== undefined) return;
    const what = detail ?? jsonKind(value);
    this.#saved = fieldPath === ''
      ? `json: cannot unmarshal ${what} into Go value of type ${goType}`
      : `json: cannot unmarshal ${what} into Go struct field ${structName}.${fieldPath} of type ${goType}`;
  }

  private fatal(message: string): void {
    this.#fatal ??= message;
  }

  /**
   * `strictPath` has array indices (for unknown field errors); `goPath` has field names only. `known` (check mode): a
   * value at the same place that decoded without error; every part of `obj` that is that very part of `known` is
   * not walked again (JSON values are never changed in place, so identity means the same content).
   */
  object(obj: JsonObject, type: ApiType, strictPath: string, goPath: string, known?: unknown): JsonObject {
    const check = this.options.check === true;
    const knownObj = check && isJsonObject(known) ? known : undefined;
    const out: JsonObject = check ? obj : {};
    const keys = this.options.sortKeys === true ? Object.keys(obj).sort() : Object.keys(obj);
    for (const key of keys) {
      if (this.#fatal !== undefined) break;
      const value = obj[key]!;
      const field = ownValue(type.fields, key);
      const childStrict = strictPath === '' ? key : `${strictPath}.${key}`;
      if (!field) {
        this.unknown.push(`unknown field ${goQuote(childStrict)}`);
        continue;
      }
      const goName = embeddedPath(type.go, key);
      const childGo = goPath === '' ? goName : `${goPath}.${goName}`;
      const was = knownObj !== undefined && Object.hasOwn(knownObj, key) ? knownObj[key] : undefined;
      if (was !== undefined && was === value) continue;
      const converted = this.value(value, field.type, field.go, type.go, childStrict, childGo, was);
      if (!check && converted !== undefined) setOwn(out, key, converted);
    }
    return out;
  }

  /** Returns undefined for null (the field stays unset). */
  private value(value: JsonValue, type: string, goType: string, structName: string, strictPath: string, goPath: string, known?: unknown): JsonValue | undefined {
    if (value === null) return undefined;
    const shape = shapeOf(type);
    // a plain string or struct field: the common case, decided without the general path
    if (shape === 'string' && typeof value === 'string') return value;
    if (shape !== 'other' && shape !== 'string' && typeof value === 'object' && !Array.isArray(value) && this.options.check === true) {
      return this.object(value, shape, strictPath, goPath, known);
    }
    if (type.startsWith('*')) return this.value(value, type.slice(1), goType, structName, strictPath, goPath, known);
    if (type.startsWith('[]')) {
      if (!Array.isArray(value)) {
        this.fail(value, structName, goPath, goType);
        return undefined;
      }
      const elemType = type.slice(2);
      const elemGo = goType.startsWith('[]') ? goType.slice(2) : goType;
      if (this.options.check === true) {
        const was = Array.isArray(known) ? known : undefined;
        for (let i = 0; i < value.length; i++) {
          if (was !== undefined && was[i] === value[i] && typeof value[i] === 'object' && value[i] !== null) continue;
          this.value(value[i]!, elemType, elemGo, structName, `${strictPath}[${i}]`, goPath, was?.[i]);
        }
        return value;
      }
      return value.map((item, i) => this.value(item, elemType, elemGo, structName, `${strictPath}[${i}]`, goPath) ?? zeroValue(elemType));
    }
    if (type.startsWith('map[string]')) {
      if (typeof value !== 'object' || Array.isArray(value)) {
        this.fail(value, structName, goPath, goType);
        return undefined;
      }
      const elemType = type.slice('map[string]'.length);
      const elemGo = /^map\[[^\]]+\](.+)$/.exec(goType)?.[1] ?? ownValue(elemGoTypes, elemType) ?? elemType;
      const out: JsonObject = {};
      const keys = this.options.sortKeys === true ? Object.keys(value).sort() : Object.keys(value);
      for (const k of keys) {
        const v = this.value(value[k]!, elemType, elemGo, structName, `${strictPath}.${k}`, this.options.mapKeysInPath === false ? goPath : `${goPath}.${k}`);
        setOwn(out, k, v ?? zeroValue(elemType));
      }
      return out;
    }
    const check = this.options.scalars === undefined ? undefined : ownValue(this.options.scalars, type);
    if (check !== undefined) {
      const error = check(value);
      if (error !== undefined) this.fatal(error);
      return value;
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
      case 'float64':
        if (typeof value !== 'number') this.fail(value, structName, goPath, goType);
        return value;
      case 'bytes':
        if (typeof value !== 'string') {
          this.fail(value, structName, goPath, goType);
        } else if (!base64Pattern.test(value)) {
          if (this.#saved === undefined) this.#saved = `illegal base64 data at input byte ${firstBadBase64Byte(value)}`;
        }
        return value;
      case 'metav1.Time':
      case 'metav1.MicroTime': {
        // Time.UnmarshalJSON: encoding/json into a string, then time.Parse
        const layout = type === 'metav1.Time' ? '2006-01-02T15:04:05Z07:00' : '2006-01-02T15:04:05.000000Z07:00';
        if (typeof value !== 'string') this.fatal(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
        else if (!rfc3339Pattern.test(value) || Number.isNaN(Date.parse(value))) this.fatal(`parsing time "${value}" as "${layout}": cannot parse "${value}" as "2006"`);
        return value;
      }
      case 'intstr.IntOrString':
        // IntOrString.UnmarshalJSON: a string, else encoding/json into an int32
        if (typeof value === 'string') return value;
        if (typeof value !== 'number') this.fatal(`json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
        else if (!Number.isInteger(value) || value < int32Min || value > int32Max) this.fatal(`json: cannot unmarshal number ${value} into Go value of type int32`);
        return value;
      case 'metav1.FieldsV1':
      case 'runtime.RawExtension':
        return value;
    }
    const struct = ownValue(this.schema, type);
    if (!struct) throw new Error(`schema has no type ${type}`);
    if (typeof value !== 'object' || Array.isArray(value)) {
      this.fail(value, structName, goPath, goType);
      return undefined;
    }
    return this.object(value, struct, strictPath, goPath, known);
  }
}

function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A field type's fast-path shape for the current schema: a string, a struct (its ApiType, pointer or not), or other. */
function shapeOf(type: string): 'string' | 'other' | ApiType {
  let shape = shapes.get(type);
  if (shape === undefined) {
    const bare = type.startsWith('*') ? type.slice(1) : type;
    shape = bare === 'string' ? 'string' : (shapesSchema === undefined ? undefined : ownValue(shapesSchema, bare)) ?? 'other';
    shapes.set(type, shape);
  }
  return shape;
}

/** Go names of map element types a schema may leave implicit (a named map type such as v1.ResourceList). */
const elemGoTypes: Readonly<Record<string, string>> = { 'resource.Quantity': 'resource.Quantity', bytes: '[]uint8', string: 'string' };

/**
 * A field's name in encoding/json's error path: a field of an inline (embedded) struct is named through it, as Go
 * walks it (k8s.io/api admissionregistration/v1 types.go: NamedRuleWithOperations embeds RuleWithOperations, which
 * embeds Rule), e.g. `resourceRules.RuleWithOperations.Rule.apiVersions`. The schema has them flattened.
 */
function embeddedPath(structName: string, key: string): string {
  const inRule = key === 'apiGroups' || key === 'apiVersions' || key === 'resources' || key === 'scope';
  if (structName === 'NamedRuleWithOperations') {
    if (key === 'operations') return `RuleWithOperations.${key}`;
    if (inRule) return `RuleWithOperations.Rule.${key}`;
  } else if (structName === 'RuleWithOperations' && inRule) {
    return `Rule.${key}`;
  }
  return key;
}
