// dynamic.ObjectVal CheckTypeNamesMatchFieldPathNames: every `Object.<path>{…}` construction nested in another must be
// named by its field path from the outer one (`Object.spec{selector: Object.spec.selector{…}}`); list elements and
// map values take the path of the field holding them. Upstream runs this on an ApplyConfiguration's result and on
// each JSONPatch value that is a construction, and reports `type mismatch: <these errors>`.
import { constructionTypeOf } from '../../cel/index.js';

/** A container still to visit: its path is the parent's, extended by `key` when the parent is a construction. */
interface Pending {
  readonly value: object;
  readonly parentPath: string;
  readonly key: string | undefined;
}

/**
 * Visits `root` depth first (children in order), from an explicit stack: a result can be as deep as the object.
 * Scalars are passed over where they are met, and a field's path is only built when its value is visited.
 */
function check(root: unknown, rootPath: string, errors: string[]): void {
  if (typeof root !== 'object' || root === null) return;
  const pending: Pending[] = [{ value: root, parentPath: rootPath, key: undefined }];
  const later: Pending[] = [];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value, parentPath, key } = item;
    const path = key === undefined ? parentPath : `${parentPath}.${key}`;
    // children are gathered in order, then pushed reversed so that they are visited in order
    later.length = 0;
    const typeName = constructionTypeOf(value);
    if (typeName !== undefined) {
      if (typeName !== path) {
        errors.push(`unexpected type name ${JSON.stringify(typeName)}, expected ${JSON.stringify(path)}, which matches field name path from root Object type`);
      }
      const fields = value as Record<string, unknown>;
      for (const k in fields) {
        const field = fields[k];
        if (typeof field === 'object' && field !== null) later.push({ value: field, parentPath: path, key: k });
      }
    } else if (Array.isArray(value) || value instanceof Set) {
      for (const child of value as Iterable<unknown>) if (typeof child === 'object' && child !== null) later.push({ value: child, parentPath: path, key: undefined });
    } else if (value instanceof Map) {
      for (const child of value.values() as Iterable<unknown>) if (typeof child === 'object' && child !== null) later.push({ value: child, parentPath: path, key: undefined });
    } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
      const entries = value as Record<string, unknown>;
      for (const k in entries) {
        const child = entries[k];
        if (typeof child === 'object' && child !== null) later.push({ value: child, parentPath: path, key: undefined });
      }
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
