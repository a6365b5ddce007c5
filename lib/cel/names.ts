// Two ways a name resolves that the checker, the reference check and the planner must agree on.
import { JSON_PATCH_TYPE, OBJECT_TYPE } from './checker/environment.js';

/** The name a root-scoped `.name` resolves to in the empty container (cel-go containers.ResolveCandidateNames). */
export function rootName(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}

/**
 * Whether the name is one mutation.DynamicTypeResolver resolves (apiserver pkg/cel/mutation typeresolver.go):
 * `JSONPatch`, `Object` and `Object.<field>…`, the types a mutation's constructions and type values may name.
 */
export function isMutationTypeName(name: string): boolean {
  return name === JSON_PATCH_TYPE || name === OBJECT_TYPE || name.startsWith(`${OBJECT_TYPE}.`);
}
