// What one checker environment declares: the function table (cel-go's standard library and extensions and
// Kubernetes' libraries, by profile), the identifiers (variables and type names) and the struct types with their
// fields. Function tables are built once per profile; identifiers and structs per compile request (the
// `variables` object type changes with each policy's variables).

import { KUBERNETES_LIBRARIES, LISTS_EXTENSION, JSON_PATCH_LIBRARY } from './kubernetes-library.js';
import { declareFunctions, parseType } from './signatures.js';
import type { FunctionDecl } from './signatures.js';
import { OPTIONALS, SETS, STANDARD, stringsExtension, TYPE_IDENTIFIERS } from './stdlib.js';
import { DYN, SCALAR_KINDS, typeOf } from './types.js';
import type { Type } from './types.js';

/** Declarations the checker uses internally for macro expansions (cel-go ext/comprehensions.go). */
const MACRO_HELPERS: readonly string[] = ['cel.@mapInsert(map(K, V), K, V) map(K, V)', 'cel.@mapInsert(map(K, V), map(K, V)) map(K, V)'];

export interface FunctionProfile {
  /** cel-go ext.Strings version (Kubernetes: 2) */
  readonly stringsVersion: number;
  /** library.JSONPatch (`jsonpatch.escapeKey`), declared for mutations */
  readonly jsonPatch: boolean;
}

const tables = new Map<string, ReadonlyMap<string, FunctionDecl>>();

/** The function table of a profile (built once). */
export function functionTable(profile: FunctionProfile): ReadonlyMap<string, FunctionDecl> {
  const key = `${profile.stringsVersion}/${profile.jsonPatch}`;
  let table = tables.get(key);
  if (table === undefined) {
    table = declareFunctions([
      ...STANDARD,
      ...OPTIONALS,
      ...stringsExtension(profile.stringsVersion),
      ...SETS,
      ...KUBERNETES_LIBRARIES,
      ...LISTS_EXTENSION,
      ...(profile.jsonPatch ? JSON_PATCH_LIBRARY : []),
      ...MACRO_HELPERS,
    ]);
    tables.set(key, table);
  }
  return table;
}

/** Field types of a struct, or 'dynamic' for a struct whose every field is dyn (the mutation `Object` types). */
export type StructFields = ReadonlyMap<string, Type> | 'dynamic';

export interface CheckEnvironment {
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  /** identifiers: variables (qualified ones such as `authorizer.requestResource` included) and type names */
  readonly identifiers: ReadonlyMap<string, Type>;
  /** struct type name → its fields; undefined for a struct type without field information */
  structFields(name: string): StructFields | undefined;
  /** cel.HomogeneousAggregateLiterals (Kubernetes' base environment): the literal validator runs after checking */
  readonly homogeneousLiterals: boolean;
  /** ext.Strings' format validator (versions 1 to 3, Kubernetes' 2): literal format calls checked after checking */
  readonly formatValidation: boolean;
}

const fields = (entries: Record<string, string>): ReadonlyMap<string, Type> => new Map(Object.entries(entries).map(([k, v]) => [k, parseType(v)]));

/** compile.go BuildRequestType / BuildNamespaceType. */
export const KUBERNETES_STRUCTS: ReadonlyMap<string, ReadonlyMap<string, Type>> = new Map([
  ['kubernetes.GroupVersionKind', fields({ group: 'string', version: 'string', kind: 'string' })],
  ['kubernetes.GroupVersionResource', fields({ group: 'string', version: 'string', resource: 'string' })],
  ['kubernetes.UserInfo', fields({ username: 'string', uid: 'string', groups: 'list(string)', extra: 'map(string, list(string))' })],
  [
    'kubernetes.AdmissionRequest',
    fields({
      kind: 'kubernetes.GroupVersionKind',
      resource: 'kubernetes.GroupVersionResource',
      subResource: 'string',
      requestKind: 'kubernetes.GroupVersionKind',
      requestResource: 'kubernetes.GroupVersionResource',
      requestSubResource: 'string',
      name: 'string',
      namespace: 'string',
      operation: 'string',
      userInfo: 'kubernetes.UserInfo',
      dryRun: 'bool',
      options: 'dyn',
    }),
  ],
  ['kubernetes.NamespaceSpec', fields({ finalizers: 'list(string)' })],
  ['kubernetes.NamespaceCondition', fields({ status: 'string', type: 'string', lastTransitionTime: 'timestamp', message: 'string', reason: 'string' })],
  ['kubernetes.NamespaceStatus', fields({ conditions: 'list(kubernetes.NamespaceCondition)', phase: 'string' })],
  [
    'kubernetes.NamespaceMetadata',
    fields({
      name: 'string',
      generateName: 'string',
      namespace: 'string',
      labels: 'map(string, string)',
      annotations: 'map(string, string)',
      UID: 'string',
      creationTimestamp: 'timestamp',
      deletionGracePeriodSeconds: 'int',
      deletionTimestamp: 'timestamp',
      generation: 'int',
      resourceVersion: 'string',
      finalizers: 'list(string)',
    }),
  ],
  ['kubernetes.Namespace', fields({ metadata: 'kubernetes.NamespaceMetadata', spec: 'kubernetes.NamespaceSpec', status: 'kubernetes.NamespaceStatus' })],
]);

/** library.JSONPatch's JSONPatch type (declared for mutations only). */
export const JSON_PATCH_FIELDS: ReadonlyMap<string, Type> = fields({ op: 'string', path: 'string', from: 'string', value: 'dyn' });

/** composition.go's `variables` object type. */
export const VARIABLES_TYPE_NAME = 'kubernetes.variables';
/** mutation.DynamicTypeResolver's root type for ApplyConfiguration (`Object`, `Object.spec`…). */
export const OBJECT_TYPE = 'Object';
/** library.JSONPatch's type, what a JSONPatch mutation returns a list of. */
export const JSON_PATCH_TYPE = 'JSONPatch';

/** The type names every environment declares; library.IP / library.CIDR add theirs (`type(ip('…')) == net.IP`). */
const TYPE_NAMES: ReadonlyMap<string, Type> = new Map([...TYPE_IDENTIFIERS, 'net.IP', 'net.CIDR'].map((name) => [name, typeOf(parseType(name))]));

/** The identifiers every environment declares (the type names), in a map the caller may add variables to. */
export function typeIdentifiers(): Map<string, Type> {
  return new Map(TYPE_NAMES);
}

/**
 * convertCelTypeToDeclType (composition.go): how a variable's output type is declared as a field of `variables`.
 * Primitives, null, timestamp and duration keep their type, lists and maps are converted element-wise, and every
 * other type (structs, optionals, types, library objects) becomes dyn.
 */
export function variableFieldType(outputType: Type): Type {
  if (SCALAR_KINDS.has(outputType.kind)) return outputType;
  switch (outputType.kind) {
    case 'any':
    case 'dyn':
      return outputType;
    case 'null':
      // declared through apiservercel.NullType, which the checker then names `null_type` in its messages
      return NULL_FIELD;
    case 'list':
      return { kind: 'list', name: 'list', params: [variableFieldType(outputType.params[0]!)] };
    case 'map':
      return { kind: 'map', name: 'map', params: [variableFieldType(outputType.params[0]!), variableFieldType(outputType.params[1]!)] };
    default:
      return DYN;
  }
}

/** A `variables` field of null type, as upstream's DeclType provider hands it to the checker. */
const NULL_FIELD: Type = Object.freeze({ kind: 'opaque', name: 'null_type', params: [] });
