// Custom resources' schemas from their CustomResourceDefinitions (`kubectl get crd -o yaml`), as upstream's type
// checker would resolve them through the apiserver's published OpenAPI (resolver.ClientDiscoveryResolver): the
// version's structural schema with `kind` and `apiVersion` strings and `metadata` as the built-in ObjectMeta, turned
// into CEL types by common.SchemaDeclType (apiserver/pkg/cel/common/schemas.go), ported here: int-or-string is dyn,
// an embedded resource gets kind, apiVersion and metadata {name, generateName} (WithTypeAndObjectMeta), an array
// without items, a map whose values have no type, or a property with no type has no type (left out), formats byte,
// duration, date and date-time are bytes, duration and timestamp.

import type { GroupVersionKind, KindSchema, ObjectSchema, SchemaSource, SchemaType } from './kinds.js';
import { BUILTIN_SCHEMAS, groupVersion, gvkString } from './kinds.js';

/** The part of a JSON schema SchemaDeclType reads. */
interface JSONSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, JSONSchema>>;
  readonly items?: JSONSchema;
  readonly additionalProperties?: JSONSchema | boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
}

/** apiserver/pkg/cel/escaping.go celReservedSymbols: property names CEL escapes as `__name__` */
export const CEL_RESERVED_SYMBOLS: ReadonlySet<string> = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** apiserver/pkg/cel/escaping.go Escape: the property's CEL field name, or undefined where it has none. */
export function escapeFieldName(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (CEL_RESERVED_SYMBOLS.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (s) => ({ __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' })[s]!);
}

class Converter {
  readonly objects: ObjectSchema[];
  constructor(
    base: readonly ObjectSchema[],
    private readonly objectMeta: SchemaType,
  ) {
    this.objects = [...base];
  }

  private object(fields: Record<string, SchemaType | readonly string[]>): number {
    this.objects.push(fields);
    return this.objects.length - 1;
  }

  /** common.SchemaDeclType; `root`: a resource root, whose metadata is ObjectMeta as the published schema has it. */
  convert(s: JSONSchema | undefined, resource: 'root' | 'embedded' | false): SchemaType | undefined {
    if (s === undefined) return undefined;
    if (s['x-kubernetes-int-or-string'] === true || s.format === 'int-or-string') return 'dyn';
    switch (s.type) {
      case 'array': {
        if (s.items === undefined) return undefined;
        const items = this.convert(s.items, s.items['x-kubernetes-embedded-resource'] === true ? 'embedded' : false);
        return items === undefined ? undefined : ['list', items];
      }
      case 'object':
        return this.convertObject(s, resource);
      case 'string':
        switch (s.format) {
          case 'byte':
            return 'bytes';
          case 'duration':
            return 'duration';
          case 'date':
          case 'date-time':
            return 'timestamp';
          default:
            return 'string';
        }
      case 'boolean':
        return 'bool';
      case 'number':
        return 'double';
      case 'integer':
        return 'int';
      default:
        return undefined;
    }
  }

  private convertObject(s: JSONSchema, resource: 'root' | 'embedded' | false): SchemaType | undefined {
    const additional = s.additionalProperties;
    if (typeof additional === 'object') {
      const values = this.convert(additional, additional['x-kubernetes-embedded-resource'] === true ? 'embedded' : false);
      return values === undefined ? undefined : ['map', values];
    }
    const fields: Record<string, SchemaType | readonly string[]> = {};
    const untyped: string[] = [];
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      const escaped = escapeFieldName(name);
      if (escaped === undefined) continue;
      const t = this.convert(prop, prop['x-kubernetes-embedded-resource'] === true ? 'embedded' : false);
      if (t === undefined) untyped.push(escaped);
      else fields[escaped] = t;
    }
    if (resource !== false) {
      fields['kind'] = 'string';
      fields['apiVersion'] = 'string';
      // a custom resource's published schema refers to ObjectMeta; an embedded one gets WithTypeAndObjectMeta's
      fields['metadata'] = resource === 'root' ? this.objectMeta : this.object({ name: 'string', generateName: 'string' });
    }
    if (untyped.length > 0) fields['~'] = untyped.sort();
    return this.object(fields);
  }
}

/** A CustomResourceDefinition as decoded from YAML or JSON (the fields read here). */
export interface CustomResourceDefinition {
  readonly kind?: string;
  readonly spec?: {
    readonly group?: string;
    readonly names?: { readonly kind?: string; readonly plural?: string; readonly singular?: string };
    readonly versions?: ReadonlyArray<{ readonly name?: string; readonly served?: boolean; readonly schema?: { readonly openAPIV3Schema?: unknown } }>;
  };
}

/** The custom resources of the given CRDs: their REST mapping, and a schema for each served version that has one. */
export function crdSchemas(crds: readonly CustomResourceDefinition[]): SchemaSource {
  const objectMeta = BUILTIN_SCHEMAS.schemaOf({ group: '', version: 'v1', kind: 'ConfigMap' });
  const metaType = typeof objectMeta?.root === 'number' ? objectMeta.objects[objectMeta.root]!['metadata'] : undefined;
  const converter = new Converter(objectMeta?.objects ?? [], (metaType as SchemaType | undefined) ?? 'dyn');
  const resources = new Map<string, string>();
  const kinds = new Map<string, SchemaType>();
  for (const crd of crds) {
    const group = crd.spec?.group ?? '';
    const names = crd.spec?.names;
    const kind = names?.kind ?? '';
    if (kind === '') continue;
    for (const v of crd.spec?.versions ?? []) {
      if (v.served === false || v.name === undefined) continue;
      for (const resource of [names?.plural, names?.singular ?? kind.toLowerCase()]) {
        if (resource) resources.set(`${groupVersion(group, v.name)}/${resource}`, kind);
      }
      const root = converter.convert(v.schema?.openAPIV3Schema as JSONSchema | undefined, 'root');
      if (root !== undefined) kinds.set(gvkString({ group, version: v.name, kind }), root);
    }
  }
  const objects = converter.objects;
  return {
    kindsFor(group, version, resource): readonly GroupVersionKind[] | undefined {
      const kind = resources.get(`${groupVersion(group, version)}/${resource.toLowerCase()}`);
      return kind === undefined ? undefined : [{ group, version, kind }];
    },
    schemaOf(gvk): KindSchema | undefined {
      const root = kinds.get(gvkString(gvk));
      return root === undefined ? undefined : { objects, root };
    },
  };
}
