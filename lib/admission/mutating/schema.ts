// The structured-merge schema an ApplyConfiguration is merged with: every built-in kind kube-apiserver 1.36 serves,
// converted from its OpenAPI v3 as its type converter converts it (merge-schema.generated.ts, from
// scripts/gen-merge-schema.mjs), and how an object's apiVersion/kind finds its root type. A kind the data does not
// hold (a custom resource: this daemon has no API access to read its schema) is merged as structured-merge-diff
// merges an object it has no schema for (DeducedParseableType): maps merged key by key, lists and scalars replaced,
// with only `metadata` typed.
import { ownValue } from '../../json/own.js';
import { mergeSchema } from './merge-schema.generated.js';

/**
 * One field's shape: `s` scalar, `a` opaque JSON (replaced whole), `d` untyped (merged as deduced: maps key by
 * key), `o` a named struct (`a` overriding its atomicity where the field says so), `m` a map, `l` a list.
 */
export type FieldShape =
  | { readonly t: 's' }
  | { readonly t: 'a' }
  | { readonly t: 'd' }
  | { readonly t: 'o'; readonly n: string; readonly a?: 0 | 1 }
  | { readonly t: 'm'; readonly v: FieldShape; readonly a?: 1 }
  | {
      readonly t: 'l';
      /** +listType: atomic (replaced), set (union of scalars), map (merged by `k`) */
      readonly lt: 'atomic' | 'set' | 'map';
      readonly e: FieldShape;
      /** +listMapKey */
      readonly k?: readonly string[];
      /** defaults of key fields an element may omit (structured-merge schema `default`) */
      readonly d?: Readonly<Record<string, string | number | boolean>>;
    };

/** A value's shape for the merge: a schema shape (`d` also where there is no schema), or `u` a root of an unknown kind. */
export type Shape = FieldShape | { readonly t: 'u' };

export interface StructSchema {
  /** +structType=atomic: replaced whole, never merged */
  readonly atomic?: boolean;
  readonly fields: Readonly<Record<string, FieldShape>>;
}

export interface MergeSchema {
  /** `<apiVersion> <kind>` → root type name */
  readonly roots: Readonly<Record<string, string>>;
  readonly types: Readonly<Record<string, StructSchema>>;
}

export const deduced: Shape = Object.freeze({ t: 'd' });
const unknownRoot: Shape = Object.freeze({ t: 'u' });
const objectMeta: FieldShape = Object.freeze({ t: 'o', n: 'metav1.ObjectMeta' });

export function structSchema(name: string): StructSchema | undefined {
  return ownValue(mergeSchema().types, name);
}

/** The shape of an object of this apiVersion/kind: its root struct, or an unknown root. */
export function rootShape(apiVersion: string, kind: string): Shape {
  const name = ownValue(mergeSchema().roots, `${apiVersion} ${kind}`);
  return name === undefined ? unknownRoot : { t: 'o', n: name };
}

/** The shape of a field of a map-like value of shape `parent`, or undefined for a field the schema does not declare. */
export function fieldShape(parent: Shape, key: string): Shape | undefined {
  switch (parent.t) {
    case 'o':
      const fields = structSchema(parent.n)?.fields;
      return fields === undefined ? undefined : ownValue(fields, key);
    case 'm':
      return parent.v;
    case 'u':
      return key === 'metadata' ? objectMeta : deduced;
    case 'd':
      return deduced;
    default:
      return undefined;
  }
}

/** A schema that declares its fields: an unknown one is an error in an apply configuration. */
export function declaresFields(shape: Shape): boolean {
  return shape.t === 'o';
}

/** Whether a map-like shape is atomic (replaced whole). */
export function isAtomicMap(shape: Shape): boolean {
  if (shape.t === 'o') return shape.a === undefined ? structSchema(shape.n)?.atomic === true : shape.a === 1;
  return shape.t === 'm' && shape.a === 1;
}
