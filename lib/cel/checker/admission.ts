// The checker environment of one admission compile (compile.go createEnvForOpts + composition.go): object,
// oldObject (dyn), namespaceObject and request (their struct types), params (dyn, only with a paramKind), the
// authorizer variables where HasAuthorizer, and `variables` typed by the variables' output types.

import { AUTHORIZER_VARIABLES, DECLARATIONS } from '../declarations.js';
import type { CelEnvironment, CompileRequest } from '../types.js';
import { functionTable, JSON_PATCH_FIELDS, JSON_PATCH_TYPE, KUBERNETES_STRUCTS, OBJECT_TYPE, typeIdentifiers, VARIABLES_TYPE_NAME, variableFieldType } from './environment.js';
import type { CheckEnvironment, FunctionProfile, StructFields } from './environment.js';
import type { ObjectTypes } from './schema-types.js';
import { parseType } from './signatures.js';
import { DYN, structType } from './types.js';
import type { Type } from './types.js';

const ROOT_TYPES: Readonly<Record<string, Type>> = {
  object: DYN,
  oldObject: DYN,
  params: DYN,
  namespaceObject: structType('kubernetes.Namespace'),
  request: structType('kubernetes.AdmissionRequest'),
  variables: structType(VARIABLES_TYPE_NAME),
};

/** Root variables a compile request leaves undeclared. */
export function excludedRoots(request: CompileRequest): ReadonlySet<string> {
  const excluded = new Set<string>();
  if (request.params === false) excluded.add('params');
  if (request.composition === false) excluded.add('variables');
  return excluded;
}

function rootType(name: string): Type {
  const authorizer = AUTHORIZER_VARIABLES[name];
  return authorizer !== undefined ? structType(authorizer) : (ROOT_TYPES[name] ?? DYN);
}

/** The fields of `variables`: every variable declared so far, typed by its output type. */
const NO_FIELDS: ReadonlyMap<string, Type> = new Map();

function variableFields(request: CompileRequest): ReadonlyMap<string, Type> {
  if ((request.variableNames ?? []).length === 0) return NO_FIELDS;
  const fields = new Map<string, Type>();
  for (const name of request.variableNames ?? []) {
    const spelled = request.variableTypes?.[name];
    let type: Type = DYN;
    if (spelled !== undefined) {
      try {
        type = variableFieldType(parseType(spelled));
      } catch {
        type = DYN;
      }
    }
    fields.set(name, type);
  }
  return fields;
}

function profileOf(kind: CelEnvironment): FunctionProfile {
  return { stringsVersion: 2, jsonPatch: kind === 'mutatingPolicy' };
}

/** The functions an environment declares, by their last name segment (`range` for `lists.range`), internal ones left out. */
export function checkerFunctionNames(kind: CelEnvironment): string[] {
  return [...functionTable(profileOf(kind)).keys()].filter((n) => !n.includes('@')).map((n) => n.slice(n.lastIndexOf('.') + 1));
}

/**
 * The checker environment of a standalone compile (tools, conformance): the given variables, every library lib/cel
 * implements, no homogeneous-literal validation (cel-go's default environment).
 */
export function standaloneCheckEnvironment(variables: Readonly<Record<string, string>>): CheckEnvironment {
  const identifiers = typeIdentifiers();
  for (const [name, engineType] of Object.entries(variables)) identifiers.set(name, parseType(engineType.replaceAll('<', '(').replaceAll('>', ')')));
  return {
    functions: functionTable({ stringsVersion: Number.POSITIVE_INFINITY, jsonPatch: true }),
    identifiers,
    homogeneousLiterals: false,
    formatValidation: false,
    structFields: (name) => KUBERNETES_STRUCTS.get(name),
  };
}

const identifiersByDeclarations = new Map<string, ReadonlyMap<string, Type>>();

/** The type names and root variables of an environment, built once per environment and exclusions. */
function rootIdentifiers(kind: CelEnvironment, excluded: ReadonlySet<string>): ReadonlyMap<string, Type> {
  const key = `${kind}\u0000${[...excluded].join(',')}`;
  let identifiers = identifiersByDeclarations.get(key);
  if (identifiers === undefined) {
    const built = typeIdentifiers();
    for (const name of DECLARATIONS[kind].variables) if (!excluded.has(name)) built.set(name, rootType(name));
    identifiers = built;
    identifiersByDeclarations.set(key, identifiers);
  }
  return identifiers;
}

const typedIdentifiers = new WeakMap<ObjectTypes, Map<string, ReadonlyMap<string, Type>>>();

/** The root identifiers with `object` and `oldObject` of the given types (typechecking.go createVariableOpts). */
function withObjectTypes(identifiers: ReadonlyMap<string, Type>, key: string, types: ObjectTypes): ReadonlyMap<string, Type> {
  let byKey = typedIdentifiers.get(types);
  if (byKey === undefined) typedIdentifiers.set(types, (byKey = new Map()));
  let typed = byKey.get(key);
  if (typed === undefined) {
    const built = new Map(identifiers);
    for (const name of ['object', 'oldObject']) if (built.has(name)) built.set(name, types.object);
    byKey.set(key, (typed = built));
  }
  return typed;
}

/**
 * The checker environment of a compile request; with `objectTypes`, the type checker's environment
 * (validating/typechecking.go buildEnvSet): `object` and `oldObject` of a kind's schema type.
 */
export function admissionEnvironment(request: CompileRequest, objectTypes?: ObjectTypes): CheckEnvironment {
  const kind: CelEnvironment = request.environment;
  const excluded = excludedRoots(request);
  const roots = rootIdentifiers(kind, excluded);
  const identifiers = objectTypes === undefined ? roots : withObjectTypes(roots, `${kind}\u0000${[...excluded].join(',')}`, objectTypes);
  const variables = variableFields(request);
  const mutating = kind === 'mutatingPolicy';
  return {
    functions: functionTable(profileOf(kind)),
    identifiers,
    homogeneousLiterals: true,
    formatValidation: true,
    structFields(name: string): StructFields | undefined {
      if (name === VARIABLES_TYPE_NAME) return variables;
      const typed = objectTypes?.structFields(name);
      if (typed !== undefined) return typed;
      if (mutating && (name === OBJECT_TYPE || name.startsWith(`${OBJECT_TYPE}.`))) return 'dynamic';
      if (mutating && name === JSON_PATCH_TYPE) return JSON_PATCH_FIELDS;
      return KUBERNETES_STRUCTS.get(name);
    },
  };
}
