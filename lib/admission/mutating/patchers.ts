// One mutation of a MutatingAdmissionPolicy applied to the object (upstream's patch.Patcher): evaluate the expression
// (with its own runtime cost budget, dispatcher.go dispatchOne),
// then apply its JSON Patch (json_patch.go) or merge its apply configuration (smd.go). Errors carry upstream's text;
// `internal` marks upstream's StatusErrors (the patched object does not decode), which fail the request whatever the
// failure policy.
import { celValueToJson } from '../../cel/index.js';
import type { CelActivation } from '../../cel/index.js';
import { evaluateGroup, OUT_OF_BUDGET, RUNTIME_CEL_COST_BUDGET } from '../budget.js';
import type { GroupOptions, Outcome } from '../budget.js';
import { applyJsonPatch, PatchError } from './json-patch.js';
import type { PatchOperation } from './json-patch.js';
import { atomicPaths, joinValidationErrors, mergeValue, schemaErrors } from './merge.js';
import type { CompiledMutation } from './policy.js';
import { rootShape } from './schema.js';
import type { Shape } from './schema.js';
import { decodeError } from './strict-decode.js';
import type { Decoded } from './strict-decode.js';
import { typeNameMismatch } from './type-names.js';

export type PatchOutcome =
  | { readonly ok: true; readonly object: unknown }
  | { readonly ok: false; readonly error: string; readonly internal?: boolean };

/** The kind of the object being mutated: its own apiVersion/kind, else the request's. */
export interface ObjectKind {
  readonly apiVersion: string;
  readonly kind: string;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Set);
}

function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  if (value === null) return 'null_type';
  if (Array.isArray(value)) return 'list';
  return 'map';
}

/** mutatingEvaluator.ForInput: one expression, with the variables it reads, within RUNTIME_CEL_COST_BUDGET. */
function evaluate(mutation: CompiledMutation, activation: CelActivation, options: GroupOptions): Outcome {
  if (mutation.compiled === undefined) return { error: 'compilation error: expression is not compiled' };
  const group = evaluateGroup([mutation.compiled], activation, RUNTIME_CEL_COST_BUDGET, options);
  return group === undefined ? { error: OUT_OF_BUDGET } : group.outcomes[0]!;
}

function jsonPatchOperations(value: unknown): { operations: PatchOperation[] } | { error: string } {
  if (!Array.isArray(value)) return { error: 'type mismatch: JSONPatchType.expression should evaluate to array' };
  const operations: PatchOperation[] = [];
  for (const element of value) {
    if (!isMap(element)) return { error: `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${celTypeName(element)}` };
    const op = typeof element['op'] === 'string' ? element['op'] : '';
    const path = typeof element['path'] === 'string' ? element['path'] : '';
    const from = typeof element['from'] === 'string' ? element['from'] : '';
    const operation: { op: string; path: string; from?: string; value?: unknown } = { op, path };
    if (from.length > 0) operation.from = from;
    if ('value' in element && element['value'] !== undefined) {
      const mismatch = typeNameMismatch(element['value']);
      if (mismatch !== undefined) return { error: `type mismatch: ${mismatch}` };
      operation.value = celValueToJson(element['value']);
    }
    operations.push(operation);
  }
  return { operations };
}

function shapeOf(kind: ObjectKind): Shape {
  return rootShape(kind.apiVersion, kind.kind);
}

function applyJsonPatchMutation(value: unknown, object: unknown, kind: ObjectKind, decoded: Decoded): PatchOutcome {
  const built = jsonPatchOperations(value);
  if ('error' in built) return { ok: false, error: built.error };
  let patched: unknown;
  try {
    patched = applyJsonPatch(object, built.operations);
  } catch (err) {
    if (err instanceof PatchError) return { ok: false, error: `JSON Patch: ${err.message}` };
    throw err;
  }
  if (patched === object) return { ok: true, object };
  // decoded strictly into the versioned kind's Go type; a failure is an internal error (json_patch.go)
  const error = decodeError(kind.apiVersion, kind.kind, patched, decoded);
  if (error !== undefined) return { ok: false, error, internal: true };
  return { ok: true, object: patched };
}

function applyConfigurationMutation(value: unknown, object: unknown, kind: ObjectKind): PatchOutcome {
  if (!isMap(value)) return { ok: false, error: `unsupported return type from ApplyConfiguration expression: ${celTypeName(value)}` };
  const mismatch = typeNameMismatch(value);
  if (mismatch !== undefined) return { ok: false, error: `type mismatch: ${mismatch}` };
  // the patch takes the object's group/version/kind (patchObject.SetGroupVersionKind); an object sent without them
  // keeps going without them
  const patch = celValueToJson(value) as Record<string, unknown>;
  delete patch['apiVersion'];
  delete patch['kind'];
  if (isMap(object) && 'apiVersion' in object) Object.assign(patch, { apiVersion: kind.apiVersion, kind: kind.kind });
  const shape = shapeOf(kind);
  const invalid = schemaErrors(shape, patch);
  if (invalid.length > 0) return { ok: false, error: `error applying patch: failed to convert patch object to typed object: ${joinValidationErrors(invalid)}` };
  const atomics = atomicPaths(shape, patch);
  if (atomics.length > 0) return { ok: false, error: `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}` };
  return { ok: true, object: mergeValue(shape, object, patch) };
}

/**
 * Evaluates and applies one mutation to `object` (never modified); the new object, or upstream's error. `decoded`:
 * what earlier strict decodes of the request proved (those parts are not checked again).
 */
export function applyMutation(mutation: CompiledMutation, activation: CelActivation, object: unknown, kind: ObjectKind, options: GroupOptions, decoded: Decoded = {}): PatchOutcome {
  const result = evaluate(mutation, activation, options);
  if ('error' in result) return { ok: false, error: result.error };
  return mutation.patchType === 'JSONPatch'
    ? applyJsonPatchMutation(result.value, object, kind, decoded)
    : applyConfigurationMutation(result.value, object, kind);
}
