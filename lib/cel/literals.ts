// Kubernetes' CEL environment sets HomogeneousAggregateLiterals: the elements of a list literal, and the keys
// and the values of a map literal, must share a type, where dyn joins with anything. The engine's own
// homogeneous mode also rejects dyn mixes (`[object.a, 'x']`), so it is off and this check, run on the
// types the engine inferred, applies cel-go's rule (checker.go joinTypes) with cel-go's message.

import { formatType, isAssignable, mostGeneral, parseEngineType } from './cel-types.js';
import type { CelType } from './cel-types.js';
import { constructedType, constructionOf, isConstructedTypeName, isOpaqueConstruction } from './construction.js';
import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { anchorOf } from './tokens.js';

function join(source: string, issues: Issue[], joined: CelType | undefined, element: EngineNode): CelType | undefined {
  // A construction has its message type here (`JSONPatch`), not the map type the engine gives the rewrite.
  let type = constructedType(element);
  if (type === undefined) {
    const name = element.checkedType?.name;
    if (name === undefined) return joined;
    type = parseEngineType(name);
  }
  if (joined === undefined) return type;
  if (isAssignable(joined, type)) return mostGeneral(joined, type);
  // The engine types constructions it cannot see through (`c ? JSONPatch{…} : JSONPatch{…}`, `cel.bind(…)`) as
  // map(string, dyn); such a value may well be of the construction's type, so it is not reported.
  if (isConstructedTypeName(joined.name) && isOpaqueConstruction(type)) return joined;
  if (isConstructedTypeName(type.name) && isOpaqueConstruction(joined)) return type;
  issues.push({
    offset: anchorOf(source, element),
    message: `expected type '${formatType(joined)}' but found '${formatType(type)}'`,
  });
  return joined;
}

/** cel-go exempts these functions' literal arguments (ext.Strings' format validator: `'%s %d'.format(['a', 1])`). */
const EXEMPT_FUNCTIONS = new Set(['format']);

function visit(source: string, node: EngineNode, issues: Issue[]): void {
  if (node.op === 'rcall' && EXEMPT_FUNCTIONS.has((node.args as [string])[0])) {
    const [, target, args] = node.args as [string, EngineNode, EngineNode[]];
    visit(source, target, issues);
    for (const arg of args) visitExempt(source, arg, issues);
    return;
  }
  const construction = constructionOf(node);
  if (construction !== undefined) {
    // Field initializers are not an aggregate literal: their values need not share a type.
    for (const [, value] of construction.fields.args as [EngineNode, EngineNode][]) visit(source, value, issues);
    return;
  }
  if (node.op === 'list') {
    let joined: CelType | undefined;
    for (const element of node.args as EngineNode[]) joined = join(source, issues, joined, element);
  } else if (node.op === 'map') {
    let keys: CelType | undefined;
    let values: CelType | undefined;
    for (const [key, value] of node.args as [EngineNode, EngineNode][]) {
      keys = join(source, issues, keys, key);
      values = join(source, issues, values, value);
    }
  }
  const args = node.args;
  if (isEngineNode(args)) visit(source, args, issues);
  else if (Array.isArray(args)) visitAll(source, args as unknown[], issues);
}

/** A literal nested (at any depth of literals) in an exempt function's argument: its elements are not joined. */
function visitExempt(source: string, node: EngineNode, issues: Issue[]): void {
  if (node.op === 'list') for (const e of node.args as EngineNode[]) visitExempt(source, e, issues);
  else if (node.op === 'map') {
    for (const [k, v] of node.args as [EngineNode, EngineNode][]) {
      visitExempt(source, k, issues);
      visitExempt(source, v, issues);
    }
  } else visit(source, node, issues);
}

function visitAll(source: string, items: readonly unknown[], issues: Issue[]): void {
  for (const item of items) {
    if (isEngineNode(item)) visit(source, item, issues);
    else if (Array.isArray(item)) visitAll(source, item as unknown[], issues);
  }
}

/** Elements, keys or values of an aggregate literal whose types do not join. */
export function checkAggregateLiterals(root: EngineNode, source: string): Issue[] {
  const issues: Issue[] = [];
  visit(source, root, issues);
  return issues;
}
