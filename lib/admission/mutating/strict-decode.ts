// After a JSONPatch, upstream decodes the patched object strictly into its Go type, so a field the type does not
// have fails the mutation with an internal error: `strict decoding error: unknown field "spec.x"` (paths as Go's
// encoding/json reports them). Checked for the kinds whose schema this daemon ships; other kinds (custom
// resources are decoded as unstructured upstream too) accept any field.
import { fieldShape } from './schema.js';
import type { Shape } from './schema.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function walk(shape: Shape, value: unknown, path: string, out: string[]): void {
  if (isObject(value) && (shape.t === 'o' || shape.t === 'm')) {
    for (const key of Object.keys(value)) {
      const child = fieldShape(shape, key);
      const childPath = path === '' ? key : `${path}.${key}`;
      if (child === undefined) out.push(`unknown field ${JSON.stringify(childPath)}`);
      else walk(child, value[key], childPath, out);
    }
  } else if (Array.isArray(value) && shape.t === 'l') {
    value.forEach((item, i) => walk(shape.e, item, `${path}[${i}]`, out));
  }
}

/** The strict decoding error for `object` of shape `root`, or undefined when it decodes. */
export function strictDecodingError(root: Shape, object: unknown): string | undefined {
  if (root.t !== 'o') return undefined;
  const unknown: string[] = [];
  walk(root, object, '', unknown);
  return unknown.length === 0 ? undefined : `strict decoding error: ${unknown.join(', ')}`;
}
