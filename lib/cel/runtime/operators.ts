// Operators and aggregate literals as the planner evaluates them: comparison and arithmetic tables, `in`, and map
// literals (a plain object when every key is a string, else a Map).
import { keyText } from './attributes.js';
import { celEquals, checkKey, mapGet } from './compare.js';
import type { CelMap } from './compare.js';
import { add, divide, modulo, multiply, subtract } from './numbers.js';
import { celError, isMap, noSuchOverloadError, setOwn } from './values.js';

function inList(needle: unknown, list: readonly unknown[]): boolean {
  for (const e of list) if (celEquals(needle, e)) return true;
  return false;
}

/** `in` (inAggregate, stdlib/standard.go): a right operand that is not a container is the bare error. */
export function membership(needle: unknown, haystack: unknown): boolean {
  if (Array.isArray(haystack)) return inList(needle, haystack);
  if (isMap(haystack)) return mapGet(haystack as CelMap, needle) !== undefined;
  throw noSuchOverloadError();
}

/** Builds a map literal's value: a plain object when every key is a string, else a Map. */
export function buildMap(entries: readonly (readonly [unknown, unknown])[]): CelMap {
  let allStrings = true;
  for (const [k] of entries) {
    checkKey(k);
    if (typeof k !== 'string') allStrings = false;
  }
  if (allStrings) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      if (Object.prototype.hasOwnProperty.call(out, k as string)) throw celError(`Failed with repeated key: ${keyText(k)}`);
      setOwn(out, k as string, v);
    }
    return out;
  }
  const out = new Map<unknown, unknown>();
  for (const [k, v] of entries) {
    if (mapGet(out, k) !== undefined) throw celError(`Failed with repeated key: ${keyText(k)}`);
    out.set(k, v);
  }
  return out;
}

export const COMPARISONS: Readonly<Record<string, (c: number) => boolean>> = {
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

export const ARITHMETIC: Readonly<Record<string, (a: unknown, b: unknown) => unknown>> = {
  '+': add,
  '-': subtract,
  '*': multiply,
  '/': divide,
  '%': modulo,
};

export const OPERATOR_NAMES: Readonly<Record<string, string>> = { '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_' };
