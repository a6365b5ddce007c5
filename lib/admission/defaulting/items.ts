// Reading a JSON list the way the generated defaulters range over a Go slice: the elements that are objects.
import { isObject } from './object.js';
import type { JsonObject } from './object.js';

/** The object elements of `v` (none when it is not a list: Go's nil slice). */
export const objectItems = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Whether `v` is Go's nil or empty slice/map (`len(x) == 0`): absent, null, [] or {}. */
export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}
