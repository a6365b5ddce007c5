// `a && b && c && …` and `||` chains shaped as cel-go shapes them: its parser collects the terms of one
// conditionalAnd / conditionalOr and builds a balanced tree (parser/helper.go logicManager.balancedTree), so a chain
// of 30,000 terms — well within the grammar's limits, which do not count these operators — is 15 calls deep. The
// engine builds them left-deep, as deep as they are long. Rebalanced here in place, without recursion over the
// chain, before anything walks the tree recursively. Parentheses end a chain, as in cel-go (`(a && b) && c` has the
// terms `(a && b)` and `c`).
import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import { findToken } from './tokens.js';

/** The fields of an engine node rewritten here (the engine's typings make them read-only). */
interface LogicNode extends EngineNode {
  args: [EngineNode, EngineNode];
  pos: number;
  start: number;
  end: number;
}

function isLogic(node: unknown): node is LogicNode {
  return isEngineNode(node) && (node.op === '&&' || node.op === '||');
}

/** Whether a `)` stands between a left operand and its operator (comments aside): the operand was parenthesized. */
function parenthesized(source: string, left: EngineNode, right: EngineNode): boolean {
  return findToken(source, left.range.end, right.range.start, ')', -1) >= 0;
}

/** A chain's terms, left to right, and its operator nodes, root last. */
function chainOf(root: LogicNode, source: string): { terms: EngineNode[]; ops: LogicNode[] } {
  const terms: EngineNode[] = [];
  const ops: LogicNode[] = [];
  let node: EngineNode = root;
  while (isLogic(node) && node.op === root.op && (node === root || !parenthesized(source, node, ops.at(-1)!.args[1]))) {
    ops.push(node);
    terms.push(node.args[1]);
    node = node.args[0];
  }
  terms.push(node);
  terms.reverse();
  ops.reverse();
  return { terms, ops };
}

/** balancedTree(lo, hi) over ops[lo..hi]: depth log2 of the chain's length. `nodes` supplies the node objects. */
function balancedTree(terms: readonly EngineNode[], lo: number, hi: number, take: () => LogicNode): LogicNode {
  const mid = (lo + hi + 1) >> 1;
  const node = take();
  const left = mid === lo ? terms[mid]! : balancedTree(terms, lo, mid - 1, take);
  const right = mid === hi ? terms[mid + 1]! : balancedTree(terms, mid + 1, hi, take);
  node.args = [left, right];
  node.pos = left.range.start;
  node.start = left.range.start;
  node.end = right.range.end;
  return node;
}

/** Rebalances every `&&` / `||` chain of three or more terms under `root`, in place. */
export function balanceLogic(root: EngineNode, source: string): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
      continue;
    }
    if (!isEngineNode(value)) continue;
    if (!isLogic(value)) {
      stack.push(value.args);
      continue;
    }
    const { terms, ops } = chainOf(value, source);
    if (ops.length >= 2) {
      // the chain's root node stays the root (macros and parents hold it); the others take the inner places
      const pool = ops.slice(0, -1);
      let first = true;
      balancedTree(terms, 0, ops.length - 1, () => {
        if (first) {
          first = false;
          return value;
        }
        return pool.pop()!;
      });
    }
    for (const term of terms) stack.push(term);
  }
}
