// cel/validator.go homogeneousAggregateLiteralValidator (cel.HomogeneousAggregateLiterals, an AST validator in
// cel-go v0.26, run after checking): every element of a list literal, and every key and every value of a map
// literal, must be of a type equivalent to the first one's, dyn included, the final types compared; in a list only
// the first mismatch is reported. The checker records the literals, leaving out those under a format() call.

import type { EngineNode } from '../engine.js';
import type { Issue } from '../issues.js';
import { formatType } from './types.js';
import type { Type } from './types.js';

export interface LiteralEntry {
  readonly node: EngineNode;
  readonly type: Type;
}

/** A list or map literal's entries as the checker typed them (an optional entry as its value type). */
export interface AggregateLiteral {
  readonly keys: LiteralEntry[];
  readonly values: LiteralEntry[];
  readonly isMap: boolean;
}

/** cel-go `Type.IsEquivalentType`: the same type, type parameters' names aside. */
function isEquivalentType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length) return false;
  if (a.kind !== 'param' && a.name !== b.name) return false;
  return a.params.every((p, i) => isEquivalentType(p, b.params[i]!));
}

/** The validator's findings; `final` gives a type after substitution, `anchor` a node's offset. */
export function validateLiterals(literals: readonly AggregateLiteral[], final: (t: Type) => Type, anchor: (node: EngineNode) => number): Issue[] {
  const issues: Issue[] = [];
  const compare = (entries: readonly LiteralEntry[], firstOnly: boolean): void => {
    const first = entries[0];
    if (first === undefined) return;
    const expected = final(first.type);
    for (const { node, type } of entries.slice(1)) {
      const actual = final(type);
      if (isEquivalentType(expected, actual)) continue;
      issues.push({ offset: anchor(node), message: `expected type '${formatType(expected)}' but found '${formatType(actual)}'` });
      if (firstOnly) return;
    }
  };
  for (const literal of literals) {
    if (literal.isMap) compare(literal.keys, false);
    compare(literal.values, !literal.isMap);
  }
  return issues;
}
