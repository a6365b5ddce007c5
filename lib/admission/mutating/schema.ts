// The structured-merge schema an ApplyConfiguration is merged with: the merge markers of the core, apps and batch
// types (list-types.generated.ts, from scripts/gen-list-types.mjs), and how an object's apiVersion/kind finds its
// root type. A kind the data does not hold is merged as structured-merge-diff merges an object it has no schema for
// (DeducedParseableType): maps merged key by key, lists and scalars replaced, with only `metadata` typed.
import { ownValue } from '../../json/own.js';
import { mergeSchema } from './list-types.generated.js';

/** One field's shape: `s` scalar, `a` opaque JSON (replaced whole), `o` a named struct, `m` a map, `l` a list. */
export type FieldShape =
  | { readonly t: 's' }
  | { readonly t: 'a' }
  | { readonly t: 'o'; readonly n: string }
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

/** A value's shape for the merge: a schema shape, `d` deduced (no schema), or `u` a root of an unknown kind. */
export type Shape = FieldShape | { readonly t: 'd' } | { readonly t: 'u' };

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
  return ownValue(mergeSchema.types, name);
}

/** The shape of an object of this apiVersion/kind: its root struct, or an unknown root. */
export function rootShape(apiVersion: string, kind: string): Shape {
  const name = ownValue(mergeSchema.roots, `${apiVersion} ${kind}`);
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
  if (shape.t === 'o') return structSchema(shape.n)?.atomic === true;
  return shape.t === 'm' && shape.a === 1;
}
