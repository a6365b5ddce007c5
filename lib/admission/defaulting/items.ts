// Reading a JSON value the way the generated defaulters test a Go slice or map for emptiness.
import { isObject } from './object.js';

/** Whether `v` is Go's nil or empty slice/map (`len(x) == 0`): absent, null, [] or {}. */
export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}
