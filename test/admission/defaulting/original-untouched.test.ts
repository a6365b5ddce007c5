// Defaulting never writes into the object it is given: the request's other versions share it (values are never
// changed in place: lib/admission/mutation.ts), so every defaulter writes through drafts (object.ts), which copy.
// For every kind the daemon defaults, the differential suite's samples (test/upstream/defaulting-samples.ts) and,
// from each sample's defaulted form, one input per field with that field taken out again (absent, and null: Go's
// nil), so that each defaulter meets the maps it reads already there and must write into copies of them.
// upstream: k8s.io/apiserver pkg/admission/plugin/policy/mutating/dispatcher.go dispatchOne (the defaulted object is
// a new version; the one the previous mutation made stays as it was)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultedKinds, defaultObject } from '../../../lib/admission/defaulting/index.js';
import { defaultingSamples } from '../../upstream/defaulting-samples.js';
import type { JsonObject } from '../../upstream/defaulting-samples.js';

type Json = JsonObject | unknown[];
const isContainer = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** The paths (keys and list indexes) of every field of `o` below its top level's apiVersion and kind, at every depth. */
function fieldPaths(o: unknown, path: ReadonlyArray<string | number> = []): Array<Array<string | number>> {
  if (!isContainer(o)) return [];
  const out: Array<Array<string | number>> = [];
  for (const [k, v] of Object.entries(o)) {
    const key = Array.isArray(o) ? Number(k) : k;
    if (path.length === 0 && (key === 'apiVersion' || key === 'kind')) continue;
    if (!Array.isArray(o)) out.push([...path, key]);
    out.push(...fieldPaths(v, [...path, key]));
  }
  return out;
}

/** A copy of `o` with the field at `path` removed (`null`: set to null instead). */
function without(o: JsonObject, path: ReadonlyArray<string | number>, nil: boolean): JsonObject {
  const copy = structuredClone(o);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (nil) at[last] = null;
  else delete at[last];
  return copy;
}

const kindOf = (o: JsonObject): { apiVersion: string; kind: string } => ({ apiVersion: String(o['apiVersion']), kind: String(o['kind']) });

/** The inputs for one kind: its samples, and each sample's defaulted form less one field (a default, or one a
 * defaulter reads). */
function inputs(kind: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const sample of defaultingSamples[kind]?.objects ?? []) {
    out.push(sample);
    const defaulted = defaultObject(structuredClone(sample), kindOf(sample)) as JsonObject;
    for (const path of fieldPaths(defaulted)) out.push(without(defaulted, path, false), without(defaulted, path, true));
  }
  return out;
}

describe('defaulting leaves the object it is given as it was', () => {
  for (const kind of defaultedKinds()) {
    it(kind, () => {
      const all = inputs(kind);
      let written = 0;
      for (const input of all) {
        const before = structuredClone(input);
        const out = defaultObject(input, kindOf(input));
        assert.deepEqual(input, before, `${kind}: defaulting changed its input ${JSON.stringify(before)}`);
        if (out !== input) written++;
      }
      // the inputs exercise the kind's writes: defaulting made a new object for some of them
      assert.ok(written > 0, `${kind}: no input needed a default`);
    });
  }
});
