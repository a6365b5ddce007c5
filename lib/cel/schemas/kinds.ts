// The schemas a type check gives `object`: per kind, the CEL type tree upstream's common.SchemaDeclType builds from
// its OpenAPI schema, in the compact form tools/kind-schemas writes (object types in one shared table), and the REST
// mapping matchConstraints are resolved with. The built-in kinds come from kinds.generated.ts, parsed on first use;
// custom resources from CRD manifests (crd.ts).

import { KIND_SCHEMAS_JSON } from './kinds.generated.js';

/** A scalar CEL type (`dyn` for int-or-string), an index into the object table, or a list / map of a type. */
export type SchemaType = ScalarSchema | number | readonly ['list', SchemaType] | readonly ['map', SchemaType];
export type ScalarSchema = 'string' | 'int' | 'bool' | 'double' | 'bytes' | 'timestamp' | 'duration' | 'dyn';

/** An object type's fields by their escaped names (`__namespace__`); `~` lists the properties upstream leaves untyped. */
export type ObjectSchema = Readonly<Record<string, SchemaType | readonly string[]>>;

/** One kind's type: its root in a table of object types. */
export interface KindSchema {
  readonly objects: readonly ObjectSchema[];
  readonly root: SchemaType;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** apimachinery's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=ConfigMap`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** `group/version` as the REST mapping keys it (`v1` for the core group). */
export function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** Where schemas and the REST mapping come from: the built-in kinds, and custom resources where given. */
export interface SchemaSource {
  /**
   * The kinds a rule's group, version and resource map to (RESTMapper.KindsFor: the resource lowercased, and the
   * core group's "" read as any group), in KindsFor's order; undefined where the resource is unknown.
   */
  kindsFor(group: string, version: string, resource: string): readonly GroupVersionKind[] | undefined;
  /** the kind's schema; undefined where there is none (resolver.ErrSchemaNotFound) */
  schemaOf(gvk: GroupVersionKind): KindSchema | undefined;
}

interface GeneratedSchemas {
  readonly version: string;
  readonly resources: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  readonly objects: readonly ObjectSchema[];
  readonly kinds: Readonly<Record<string, SchemaType>>;
}

let generated: GeneratedSchemas | undefined;

function builtins(): GeneratedSchemas {
  generated ??= JSON.parse(KIND_SCHEMAS_JSON) as GeneratedSchemas;
  return generated;
}

/** The kinds Kubernetes 1.36.3 serves by default, with the schemas its type checker resolves. */
/** The inverse of gvkString. */
export function parseGVK(text: string): GroupVersionKind {
  const match = /^([^/]*)\/(.*), Kind=(.*)$/.exec(text);
  if (match === null) throw new Error(`not a GroupVersionKind: ${text}`);
  return { group: match[1]!, version: match[2]!, kind: match[3]! };
}

export const BUILTIN_SCHEMAS: SchemaSource = {
  kindsFor(group, version, resource) {
    return builtins().resources[groupVersion(group, version)]?.[resource.toLowerCase()]?.map(parseGVK);
  },
  schemaOf(gvk) {
    const data = builtins();
    const root = data.kinds[gvkString(gvk)];
    return root === undefined ? undefined : { objects: data.objects, root };
  },
};

/** The first source that knows a resource decides it (built-ins first: a CRD cannot redefine them). */
export function combineSources(...sources: readonly SchemaSource[]): SchemaSource {
  return {
    kindsFor(group, version, resource) {
      for (const s of sources) {
        const gvks = s.kindsFor(group, version, resource);
        if (gvks !== undefined) return gvks;
      }
      return undefined;
    },
    schemaOf(gvk) {
      for (const s of sources) {
        const schema = s.schemaOf(gvk);
        if (schema !== undefined) return schema;
      }
      return undefined;
    },
  };
}
