// The checker's view of message construction after rewrite.ts: which types may be constructed (Kubernetes'
// mutation.DynamicTypeResolver: `JSONPatch`, `Object` and `Object.<field>…`), the static type of a construction
// (its type name, where the engine only sees map(string, dyn)), and cel-go's field checks that the types allow:
// an optional field (`?name: v`) needs an optional value, and JSONPatch's op, path and from are strings.

import { formatType, isDyn, parseEngineType } from './cel-types.js';
import type { CelType } from './cel-types.js';
import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { CONSTRUCT_FUNCTION } from './objects.js';
import { undeclaredReference } from './references.js';
import type { ConstructionSite } from './rewrite.js';
import { anchorOf, findToken } from './tokens.js';
import type { CelEnvironment } from './types.js';

export const JSON_PATCH_TYPE = 'JSONPatch';
export const OBJECT_TYPE = 'Object';

/** JSONPatch fields whose declared type is string (mutation/jsonpatch.go); `value` is dyn. */
const JSON_PATCH_STRING_FIELDS = new Set(['op', 'path', 'from']);

/** Whether the name is one of the types constructions can have (upstream: mutation.DynamicTypeResolver). */
export function isConstructedTypeName(type: string): boolean {
  return type === JSON_PATCH_TYPE || type === OBJECT_TYPE || type.startsWith(`${OBJECT_TYPE}.`);
}

/** Whether the environment declares the type (upstream: only for mutation expressions). */
function isDeclaredType(environment: CelEnvironment, type: string): boolean {
  return environment === 'mutatingPolicy' && isConstructedTypeName(type);
}

/** map(string, dyn): what the engine infers for a construction it does not see as one (a ternary of them…). */
export function isOpaqueConstruction(type: CelType): boolean {
  const [key, value] = type.params;
  return type.name === 'map' && key?.name === 'string' && value !== undefined && isDyn(value);
}

/** Constructions of types the environment does not declare, anchored at their `{` as cel-go does. */
export function undeclaredConstructions(sites: readonly ConstructionSite[], environment: CelEnvironment): Issue[] {
  const issues: Issue[] = [];
  for (const site of sites) {
    if (isDeclaredType(environment, site.type)) continue;
    const message = site.type.startsWith('google.protobuf.')
      ? `construction of message type '${site.type}' is not supported by static-admissiond`
      : undeclaredReference(site.type);
    issues.push({ offset: site.brace, message });
  }
  return issues;
}

export interface ConstructionNode {
  readonly type: string;
  /** the map literal of the fields */
  readonly fields: EngineNode;
  readonly optionalFields: ReadonlySet<string>;
}

/** The parts of a rewritten construction, or undefined if the node is not one. */
export function constructionOf(node: EngineNode): ConstructionNode | undefined {
  if (node.op !== 'call') return undefined;
  const [name, args] = node.args as [string, EngineNode[]];
  if (name !== CONSTRUCT_FUNCTION || args.length !== 3) return undefined;
  const [type, fields, optional] = args as [EngineNode, EngineNode, EngineNode];
  const optionalFields = new Set((optional.args as EngineNode[]).map((n) => String(n.args)));
  return { type: String(type.args), fields, optionalFields };
}

/** The node's type as cel-go would see it where constructions matter: the construction's type name. */
export function constructedType(node: EngineNode): CelType | undefined {
  const construction = constructionOf(node);
  return construction === undefined ? undefined : { name: construction.type, params: [] };
}

function checkedType(node: EngineNode): CelType {
  return parseEngineType(node.checkedType?.name ?? 'dyn');
}

/**
 * The result type of an expression: a construction's type name at the root, `list(<name>)` for a list literal of
 * constructions of one type, otherwise what the engine inferred.
 */
export function staticResultType(root: EngineNode): CelType {
  const constructed = constructedType(root);
  if (constructed !== undefined) return constructed;
  if (root.op === 'list') {
    const elements = root.args as EngineNode[];
    const types = elements.map(constructedType);
    const first = types[0];
    if (first !== undefined && types.every((t) => t?.name === first.name)) return { name: 'list', params: [first] };
  }
  return checkedType(root);
}

function checkFields(source: string, construction: ConstructionNode, issues: Issue[]): void {
  for (const [key, value] of construction.fields.args as [EngineNode, EngineNode][]) {
    const name = String(key.args);
    let type = constructedType(value) ?? checkedType(value);
    if (construction.optionalFields.has(name)) {
      // checker.go checkCreateStruct: `?field` takes optional(T) (or dyn) and sets a T.
      if (type.name === 'optional') {
        type = type.params[0] ?? { name: 'dyn', params: [] };
      } else if (!isDyn(type)) {
        issues.push({
          offset: anchorOf(source, value),
          message: `expected type '${formatType({ name: 'optional', params: [type] })}' but found '${formatType(type)}'`,
        });
        continue;
      }
    }
    if (construction.type === JSON_PATCH_TYPE && JSON_PATCH_STRING_FIELDS.has(name) && !isDyn(type) && type.name !== 'string') {
      // Anchored at the field's `:`, as cel-go anchors field initializers.
      const colon = findToken(source, key.range.end, value.range.start, ':', key.pos);
      issues.push({ offset: colon, message: `expected type of field '${name}' is 'string' but provided type is '${formatType(type)}'` });
    }
  }
}

function visit(source: string, node: EngineNode, issues: Issue[]): void {
  const construction = constructionOf(node);
  if (construction !== undefined) checkFields(source, construction, issues);
  const args = node.args;
  if (isEngineNode(args)) visit(source, args, issues);
  else if (Array.isArray(args)) visitAll(source, args as unknown[], issues);
}

function visitAll(source: string, items: readonly unknown[], issues: Issue[]): void {
  for (const item of items) {
    if (isEngineNode(item)) visit(source, item, issues);
    else if (Array.isArray(item)) visitAll(source, item as unknown[], issues);
  }
}

/** Field initializers whose types cel-go's checker rejects (offsets in `source`, the rewritten text). */
export function checkConstructionFields(root: EngineNode, source: string): Issue[] {
  const issues: Issue[] = [];
  visit(source, root, issues);
  return issues;
}
