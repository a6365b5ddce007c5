// dynamic.ObjectVal CheckTypeNamesMatchFieldPathNames: every `Object.<path>{…}` construction nested in another must be
// named by its field path from the outer one (`Object.spec{selector: Object.spec.selector{…}}`); list elements and
// map values take the path of the field holding them. Upstream runs this on an ApplyConfiguration's result and on
// each JSONPatch value that is a construction, and reports `type mismatch: <these errors>`.
import { constructionTypeOf } from '../../cel/index.js';

/** Visits `root` depth first (children in order), from an explicit stack: a result can be as deep as the object. */
function check(root: unknown, rootPath: string, errors: string[]): void {
  const pending: Array<readonly [value: unknown, path: string]> = [[root, rootPath]];
  const later: Array<readonly [value: unknown, path: string]> = [];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, path] = item;
    if (typeof value !== 'object' || value === null) continue;
    // children are gathered in order, then pushed reversed so that they are visited in order
    later.length = 0;
    const typeName = constructionTypeOf(value);
    if (typeName !== undefined) {
      if (typeName !== path) {
        errors.push(`unexpected type name ${JSON.stringify(typeName)}, expected ${JSON.stringify(path)}, which matches field name path from root Object type`);
      }
      for (const [key, field] of Object.entries(value)) later.push([field, `${path}.${key}`]);
    } else if (Array.isArray(value) || value instanceof Set) {
      for (const child of value) later.push([child, path]);
    } else if (value instanceof Map) {
      for (const child of value.values()) later.push([child, path]);
    } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
      for (const child of Object.values(value)) later.push([child, path]);
    }
    for (let i = later.length - 1; i >= 0; i--) pending.push(later[i]!);
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
