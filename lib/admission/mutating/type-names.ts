// dynamic.ObjectVal CheckTypeNamesMatchFieldPathNames: every `Object.<path>{…}` construction nested in another must be
// named by its field path from the outer one (`Object.spec{selector: Object.spec.selector{…}}`); list elements and
// map values take the path of the field holding them. Upstream runs this on an ApplyConfiguration's result and on
// each JSONPatch value that is a construction, and reports `type mismatch: <these errors>`.
import { constructionTypeOf } from '../../cel/index.js';

function check(value: unknown, path: string, errors: string[]): void {
  if (typeof value !== 'object' || value === null) return;
  const typeName = constructionTypeOf(value);
  if (typeName !== undefined) {
    if (typeName !== path) {
      errors.push(`unexpected type name ${JSON.stringify(typeName)}, expected ${JSON.stringify(path)}, which matches field name path from root Object type`);
    }
    for (const [key, field] of Object.entries(value)) check(field, `${path}.${key}`, errors);
    return;
  }
  if (Array.isArray(value) || value instanceof Set) {
    for (const item of value) check(item, path, errors);
  } else if (value instanceof Map) {
    for (const item of value.values()) check(item, path, errors);
  } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
    for (const item of Object.values(value)) check(item, path, errors);
  }
}

/** The mismatches in a construction rooted at `root` (checked against its own type name), joined as errors.Join does. */
export function typeNameMismatch(root: unknown): string | undefined {
  const name = constructionTypeOf(root);
  if (name === undefined || !name.startsWith('Object')) return undefined;
  const errors: string[] = [];
  check(root, name, errors);
  return errors.length === 0 ? undefined : errors.join('\n');
}
