// What happens around the engine's parse so that parsing accepts and refuses what cel-go's parser does, and so that
// nothing after it recurses deeper than cel-go's limits allow (a deep expression is an error, never a blown stack):
//   before: the size limit, the grammar's recursion limit (limits.ts), unary runs (unary.ts);
//   after:  the visitor's depth limit (limits.ts), then `&&` / `||` chains balanced (balance.ts).
import { balanceLogic } from './balance.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { lex } from './lexer.js';
import { nestingIssue, sizeIssue, visitorDepthIssue } from './limits.js';
import { collapseUnaryRuns } from './unary.js';

/** The text to parse (same offsets as the expression), or the issue that ends compilation before parsing. */
export function beforeParse(expression: string): { readonly source: string } | { readonly issue: Issue } {
  const size = sizeIssue(expression);
  if (size !== undefined) return { issue: size };
  const tokens = lex(expression);
  const nesting = nestingIssue(tokens);
  if (nesting !== undefined) return { issue: nesting };
  return collapseUnaryRuns(expression, tokens);
}

/** Checks and reshapes the engine's AST of `source` in place; the issue that ends compilation, if any. */
export function afterParse(root: EngineNode, source: string): Issue | undefined {
  const depth = visitorDepthIssue(root);
  if (depth !== undefined) return depth;
  balanceLogic(root, source);
  return undefined;
}
