// A logged patch applied to the tracked old object: the object /mutate was sent for a patch (S/endpoints/handlers/
// patch.go applies the patch to the stored object before admission). The log holds the patch's bytes but not its
// Content-Type, so only patches whose meaning does not depend on it are applied:
// - a JSON array is a JSON patch (RFC 6902), applied as evanphx json-patch applies it;
// - an object without arrays and without `$` directives means the same as a JSON merge patch (RFC 7386) and as a
//   strategic merge patch (which differs only in how lists merge, and in its directives): applied as a merge patch;
// - anything else — lists in a merge or strategic-merge patch, an apply configuration (it names apiVersion and kind,
//   and server-side apply also removes what the manager no longer sets) — is not re-applied: undefined.
import { applyJsonPatch } from '../admission/mutating/json-patch.js';
import type { PatchOperation } from '../admission/mutating/json-patch.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deeper patches are not re-applied (the walk below is recursive). */
const maxDepth = 100;

/** Whether a patch object means the same as a merge and as a strategic merge patch. */
function isPlainMergePatch(patch: Obj): boolean {
  if ('apiVersion' in patch && 'kind' in patch) return false;
  const stack: Array<[Obj, number]> = [[patch, 0]];
  while (stack.length > 0) {
    const [o, depth] = stack.pop()!;
    if (depth > maxDepth) return false;
    for (const [k, v] of Object.entries(o)) {
      if (k.startsWith('$') || Array.isArray(v)) return false;
      if (isObj(v)) stack.push([v, depth + 1]);
    }
  }
  return true;
}

/** RFC 7386 MergePatch: null removes, objects merge, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export type PatchResult = { readonly object: Obj } | { readonly why: string };

/** The old object with the logged patch applied, or why that cannot be known. */
export function applyLoggedPatch(old: Obj, patch: unknown): PatchResult {
  if (Array.isArray(patch)) {
    try {
      return { object: applyJsonPatch(old, patch as PatchOperation[], { failedTest: 'error' }) as Obj };
    } catch (err) {
      return { why: `the JSON patch does not apply to the tracked old object: ${(err as Error).message}` };
    }
  }
  if (isObj(patch) && isPlainMergePatch(patch)) return { object: mergePatch(old, patch) as Obj };
  return { why: 'a patch logs the patch, not the object: one with lists, directives or an apply configuration depends on its type (merge, strategic merge, apply), which the log does not record' };
}
