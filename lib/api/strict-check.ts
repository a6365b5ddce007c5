// A fast yes for the strict decoder (strict-walker.ts) in its common case: a value that decodes without any error.
// The walker builds field paths and messages as it goes, for the error it may have to report; most values have
// none. This checks the same rules over a table built once per type, without paths, and answers only "decodes
// cleanly" or "don't know" — on "don't know" (an error, or a type it leaves to the walker, such as bytes) the caller
// runs the walker, which finds the error and words it. So a yes here must imply the walker finds nothing; a no
// costs only the walk that would have happened anyway.
//
// Given an earlier version of the value that decoded (successive versions of an object being mutated share the parts
// no mutation touched, at the place they were, and are never changed in place), a check walks the two side by side
// and passes over every subtree they share: only the parts a mutation built are walked again.
import { ownValue } from '../json/own.js';
import type { ApiSchema } from './schema.js';
import { int32Max, int32Min, rfc3339Pattern } from './strict-walker.js';
import type { ScalarChecks } from './strict-walker.js';

type Check =
  | { readonly t: 'string' | 'bool' | 'int32' | 'int64' | 'float64' | 'any' | 'intstr' | 'time' | 'unknown' }
  | { readonly t: 'scalar'; readonly check: (value: never) => string | undefined }
  | { readonly t: 'list' | 'map'; readonly element: Check }
  | { readonly t: 'struct'; readonly fields: ReadonlyMap<string, Check> };

const simple = (t: 'string' | 'bool' | 'int32' | 'int64' | 'float64' | 'any' | 'intstr' | 'time' | 'unknown'): Check => ({ t });
const leaves: Readonly<Record<string, Check>> = {
  string: simple('string'), 'types.UID': simple('string'), bool: simple('bool'), int32: simple('int32'), int64: simple('int64'),
  float64: simple('float64'), 'metav1.FieldsV1': simple('any'), 'runtime.RawExtension': simple('any'),
  'intstr.IntOrString': simple('intstr'), 'metav1.Time': simple('time'), 'metav1.MicroTime': simple('time'),
};
const unknownCheck = simple('unknown');

/** The checks of one schema with its scalar checks, by type name, built on first use. */
export class StrictCheck {
  readonly #checks = new Map<string, Check>();

  constructor(private readonly schema: ApiSchema, private readonly scalars: ScalarChecks = {}) {}

  /** The check of a type name as the walker reads it (`*T`, `[]T`, `map[string]T`, a scalar or a schema type). */
  #check(type: string): Check {
    const t = type.startsWith('*') ? type.slice(1) : type;
    let known = this.#checks.get(t);
    if (known !== undefined) return known;
    const scalar = ownValue(this.scalars, t);
    if (t.startsWith('[]')) known = { t: 'list', element: this.#check(t.slice(2)) };
    else if (t.startsWith('map[string]')) known = { t: 'map', element: this.#check(t.slice('map[string]'.length)) };
    // the walker reads a type that is both a scalar check and a struct by the value's JSON type: left to it
    else if (scalar !== undefined) known = Object.hasOwn(this.schema, t) ? unknownCheck : { t: 'scalar', check: scalar };
    else if (Object.hasOwn(leaves, t)) known = leaves[t]!;
    else if (Object.hasOwn(this.schema, t)) {
      // registered before its fields, which may lead back to it (recursive types)
      const fields = new Map<string, Check>();
      known = { t: 'struct', fields };
      this.#checks.set(t, known);
      for (const [name, field] of Object.entries(this.schema[t]!.fields)) fields.set(name, this.#check(field.type));
    } else known = unknownCheck;
    this.#checks.set(t, known);
    return known;
  }

  /**
   * Whether `value`, of schema type `type`, decodes without any error (false: not known, ask the walker).
   * `previous`: an earlier version of the value, of the same type, that decodes; what `value` shares with it at the
   * same place is not checked again.
   */
  decodes(value: unknown, type: string, previous?: unknown): boolean {
    return passes(value, this.#check(type), previous);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `previous`: what stands at the same place in the earlier version that decodes (undefined: nothing). */
function passes(value: unknown, check: Check, previous: unknown): boolean {
  // null leaves any field unset
  if (value === null) return true;
  switch (check.t) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int32':
      return typeof value === 'number' && Number.isInteger(value) && value >= int32Min && value <= int32Max;
    case 'int64':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'float64':
      return typeof value === 'number';
    case 'any':
      return true;
    case 'intstr':
      return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value) && value >= int32Min && value <= int32Max);
    case 'time':
      return typeof value === 'string' && rfc3339Pattern.test(value) && !Number.isNaN(Date.parse(value));
    case 'scalar':
      return check.check(value as never) === undefined;
    case 'unknown':
      return false;
    default:
  }
  if (typeof value !== 'object') return false;
  // the same subtree at the same place, hence of the same type, in a version that decodes
  if (value === previous) return true;
  return check.t === 'list' ? listPasses(value, check.element, previous) : isObject(value) && mapPasses(value, check, previous);
}

// Plain loops, not every() with a closure per container: this runs for every map and list of the object.
function listPasses(value: object, element: Check, previous: unknown): boolean {
  if (!Array.isArray(value)) return false;
  const before: readonly unknown[] | undefined = Array.isArray(previous) ? previous : undefined;
  for (let i = 0; i < value.length; i++) if (!passes(value[i], element, before?.[i])) return false;
  return true;
}

function mapPasses(value: Record<string, unknown>, check: Extract<Check, { t: 'struct' }> | Extract<Check, { t: 'list' | 'map' }>, previous: unknown): boolean {
  // `before[k]` needs no own-property test: what it may inherit (Object.prototype's members) is never a JSON value,
  // so it is the same object as `value[k]` only where `before` holds it as its own field
  const before: Readonly<Record<string, unknown>> | undefined = isObject(previous) ? previous : undefined;
  // for…in, not Object.keys: no array per map (a JSON object has no enumerable inherited keys)
  if (check.t === 'struct') {
    for (const k in value) {
      const field = check.fields.get(k);
      if (field === undefined || !passes(value[k], field, before?.[k])) return false;
    }
    return true;
  }
  for (const k in value) if (!passes(value[k], check.element, before?.[k])) return false;
  return true;
}
