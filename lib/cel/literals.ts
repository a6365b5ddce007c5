// Kubernetes' CEL environment sets HomogeneousAggregateLiterals: the elements of a list literal, and the keys
// and the values of a map literal, must share a type, where dyn joins with anything. The engine's own
// homogeneous mode also rejects dyn mixes (`[object.a, 'x']`), so it is off and this check, run on the
// types the engine inferred, applies cel-go's rule (checker.go joinTypes) with cel-go's message.

import { formatType, isAssignable, mostGeneral, parseEngineType } from './cel-types.js';
import type { CelType } from './cel-types.js';
import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { anchorOf } from './tokens.js';

function join(source: string, issues: Issue[], joined: CelType | undefined, element: EngineNode): CelType | undefined {
  const name = element.checkedType?.name;
  if (name === undefined) return joined;
  const type = parseEngineType(name);
  if (joined === undefined) return type;
  if (isAssignable(joined, type)) return mostGeneral(joined, type);
  issues.push({
    offset: anchorOf(source, element),
    message: `expected type '${formatType(joined)}' but found '${formatType(type)}'`,
  });
  return joined;
}

function visit(source: string, node: EngineNode, issues: Issue[]): void {
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
