// Run-time side of CEL message construction (`JSONPatch{op: …}`, `Object{spec: Object.spec{…}}`), which the engine
// cannot parse: rewrite.ts turns every construction into a call of CONSTRUCT_FUNCTION with the type name, a map
// literal of the fields and the names of the optional (`?field`) ones. The call returns a plain object, as a map
// literal would, and remembers which type built it.

import { CelOptional, CelRuntimeError, setOwn } from './runtime/values.js';

/** The engine function a construction is rewritten into; only callable from rewritten text (references.ts). */
export const CONSTRUCT_FUNCTION = '__static_admissiond_construct';

/** Its engine signature: (type name, fields, optional field names) → map. */
export const CONSTRUCT_SIGNATURE = `${CONSTRUCT_FUNCTION}(string, map<string, dyn>, list<string>): map<string, dyn>`;

const constructed = new WeakMap<object, string>();

function describe(value: unknown): string {
  return typeof value === 'object' && value !== null ? '' : ` ${String(value)}`;
}

/**
 * Builds the value of `Type{fields}`: the fields as a plain object, where an optional field takes the value of its
 * optional and is left out when that is empty (cel-go: `?field: optional.none()` sets nothing).
 */
export function construct(typeName: string, fields: Readonly<Record<string, unknown>>, optionalFields: readonly string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  // for…in, not Object.entries: no pair per field (the fields are a map literal's own keys)
  for (const name in fields) {
    const value = fields[name];
    if (optionalFields.length === 0 || !optionalFields.includes(name)) {
      setOwn(result, name, value);
      continue;
    }
    if (!(value instanceof CelOptional)) {
      throw new CelRuntimeError(`cannot initialize optional entry '${name}' from non-optional value${describe(value)}`);
    }
    if (value.hasValue()) setOwn(result, name, value.value());
  }
  constructed.set(result, typeName);
  return result;
}

/**
 * The type name a value was constructed with (`JSONPatch`, `Object`, `Object.spec.containers`, without a leading
 * dot), or undefined for a value that is not the direct result of a construction (map literals, JSON input, …).
 */
export function constructionTypeOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? constructed.get(value) : undefined;
}
