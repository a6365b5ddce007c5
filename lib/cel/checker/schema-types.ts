// A kind's schema as checker types, as upstream's type checker declares them (validating/typechecking.go declType:
// common.SchemaDeclType, then MaybeAssignTypeName): every object is a struct named by its path from the kind
// (`Deployment.spec.template`, list elements `….@idx`, map values `….@elem`), resolved lazily as the checker asks for
// its fields. Upstream appends the clock's nanoseconds to the kind (`Deployment741079423.spec`); these names leave
// them out, so a message that spells a struct type differs from upstream's in those digits only.
//
// Fields named by a CEL keyword are declared escaped (`__namespace__`) and found by either name, as the provider
// finds them from compatibility version 1.31 (apiserver/pkg/cel/types.go FindStructFieldType).
//
// For MutatingAdmissionPolicy apply configurations (not type-checked upstream; see lib/manifest/type-check.ts) the
// `Object…` types are declared from the same schema: a construction may name only the kind's fields, every field
// is dyn (its value is only checked at admission), and a path upstream cannot type stays dynamic.

import { CEL_RESERVED_SYMBOLS } from '../schemas/crd.js';
import type { KindSchema, ObjectSchema, SchemaType } from '../schemas/kinds.js';
import type { StructFields } from './environment.js';
import { OBJECT_TYPE } from './environment.js';
import { BOOL, BYTES, DOUBLE, DURATION, DYN, INT, listOf, mapOf, STRING, structType, TIMESTAMP } from './types.js';
import type { Type } from './types.js';

/** What a typed environment declares for `object` and `oldObject`, and the struct types they lead to. */
export interface ObjectTypes {
  /** the type of `object` and `oldObject` */
  readonly object: Type;
  /** fields of a struct type this schema declares; undefined for a name it does not know */
  structFields(name: string): StructFields | undefined;
}

const SCALARS: Readonly<Record<string, Type>> = {
  string: STRING,
  int: INT,
  bool: BOOL,
  double: DOUBLE,
  bytes: BYTES,
  timestamp: TIMESTAMP,
  duration: DURATION,
  dyn: DYN,
};


const UNTYPED = '~';

/** The keyword a field name escapes (`namespace` of `__namespace__`), if it is one. */
function unescapedKeyword(name: string): string | undefined {
  if (!name.startsWith('__') || !name.endsWith('__')) return undefined;
  const inner = name.slice(2, -2);
  return CEL_RESERVED_SYMBOLS.has(inner) ? inner : undefined;
}

function typedFields(object: ObjectSchema): Array<[string, SchemaType]> {
  return Object.entries(object).filter((e): e is [string, SchemaType] => e[0] !== UNTYPED);
}

class KindTypes implements ObjectTypes {
  readonly object: Type;
  /** struct name → index of its object type */
  private readonly structs = new Map<string, number>();
  private readonly fields = new Map<string, StructFields>();

  constructor(
    private readonly schema: KindSchema,
    kind: string,
    private readonly applyConfigurations: boolean,
  ) {
    this.object = this.declare(schema.root, kind);
  }

  /** The checker type of a schema type named `name`, its object types registered under their path names. */
  private declare(t: SchemaType, name: string): Type {
    if (typeof t === 'number') {
      this.structs.set(name, t);
      return structType(name);
    }
    if (typeof t === 'string') return SCALARS[t] ?? DYN;
    return t[0] === 'list' ? listOf(this.declare(t[1], `${name}.@idx`)) : mapOf(STRING, this.declare(t[1], `${name}.@elem`));
  }

  structFields(name: string): StructFields | undefined {
    const cached = this.fields.get(name);
    if (cached !== undefined) return cached;
    let fields: StructFields | undefined;
    const index = this.structs.get(name);
    if (index !== undefined) fields = this.declareFields(name, this.schema.objects[index]!);
    else if (this.applyConfigurations && (name === OBJECT_TYPE || name.startsWith(`${OBJECT_TYPE}.`))) fields = this.applyConfigurationFields(name);
    if (fields !== undefined) this.fields.set(name, fields);
    return fields;
  }

  private declareFields(name: string, object: ObjectSchema): ReadonlyMap<string, Type> {
    const fields = new Map<string, Type>();
    for (const [field, t] of typedFields(object)) {
      const type = this.declare(t, `${name}.${field}`);
      fields.set(field, type);
      const keyword = unescapedKeyword(field);
      if (keyword !== undefined && !(keyword in object)) fields.set(keyword, type);
    }
    return fields;
  }

  /** `Object.spec.template`: the object at that path, lists and maps stepped through; every field dyn. */
  private applyConfigurationFields(name: string): StructFields {
    let t: SchemaType | undefined = this.schema.root;
    for (const segment of name.split('.').slice(1)) {
      while (Array.isArray(t)) t = (t as readonly [string, SchemaType])[1];
      if (typeof t !== 'number') return 'dynamic';
      const field: SchemaType | readonly string[] | undefined = this.schema.objects[t]![segment] ?? this.schema.objects[t]![`__${segment}__`];
      if (field === undefined || segment === UNTYPED) return 'dynamic';
      t = field as SchemaType;
    }
    while (Array.isArray(t)) t = (t as readonly [string, SchemaType])[1];
    if (typeof t !== 'number') return 'dynamic';
    const object = this.schema.objects[t]!;
    const fields = new Map<string, Type>();
    for (const [field] of typedFields(object)) {
      fields.set(field, DYN);
      const keyword = unescapedKeyword(field);
      if (keyword !== undefined) fields.set(keyword, DYN);
    }
    for (const field of (object[UNTYPED] as readonly string[] | undefined) ?? []) fields.set(field, DYN);
    return fields;
  }
}

/** The checker types of one kind (`kind` names its root struct); `applyConfigurations` also declares `Object…`. */
export function kindObjectTypes(schema: KindSchema, kind: string, applyConfigurations = false): ObjectTypes {
  return new KindTypes(schema, kind, applyConfigurations);
}
