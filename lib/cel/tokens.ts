// Finds the source offset of a token between two AST nodes. cel-go anchors an error at the operator's token
// (the `.` of a select, the `(` of a call, the `+` of an addition); the engine anchors nodes at their start, so
// the token is looked up in the text between the operands, where only parentheses, blanks, comments and the
// token itself can appear.

import type { EngineNode } from './engine.js';
import { CONSTRUCT_FUNCTION } from './objects.js';

/** Offset of the first `token` in `source[from, to)` outside `//` comments, or `fallback` if there is none. */
export function findToken(source: string, from: number, to: number, token: string, fallback: number): number {
  const end = Math.min(to, source.length);
  for (let i = Math.max(0, from); i < end; i++) {
    if (source.startsWith('//', i)) {
      const newline = source.indexOf('\n', i);
      if (newline < 0) break;
      i = newline;
      continue;
    }
    if (source.startsWith(token, i)) return i;
  }
  return fallback;
}

const BINARY = new Set(['==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', 'in', '&&', '||']);

/** The offset cel-go reports for a node: its operator token, or its start for literals and identifiers. */
export function anchorOf(source: string, node: EngineNode): number {
  const end = node.range.end;
  switch (node.op) {
    case '.':
    case '.?': {
      const [operand] = node.args as [EngineNode, string];
      return findToken(source, operand.range.end, node.pos, '.', node.pos);
    }
    case 'call': {
      const [name, args] = node.args as [string, EngineNode[]];
      // A rewritten message construction: cel-go anchors it at its `{`, the start of the fields' map literal.
      if (name === CONSTRUCT_FUNCTION && args[1] !== undefined) return args[1].pos;
      return findToken(source, node.pos + name.length, end, '(', node.pos);
    }
    case 'rcall': {
      const [, target, args] = node.args as [string, EngineNode, EngineNode[]];
      return findToken(source, target.range.end, args[0]?.range.start ?? end, '(', node.pos);
    }
    case '[]':
    case '[?]': {
      const [operand, index] = node.args as [EngineNode, EngineNode];
      return findToken(source, operand.range.end, index.range.start, '[', node.pos);
    }
    case '?:': {
      const [condition, then] = node.args as [EngineNode, EngineNode, EngineNode];
      return findToken(source, condition.range.end, then.range.start, '?', node.pos);
    }
    default:
      if (BINARY.has(node.op)) {
        const [left, right] = node.args as [EngineNode, EngineNode];
        return findToken(source, left.range.end, right.range.start, node.op, node.pos);
      }
      return node.pos;
  }
}
