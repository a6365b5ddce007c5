// What happens around the engine's parse so that parsing accepts and refuses what cel-go's parser does, and so that
// nothing after it recurses deeper than cel-go's limits allow (a deep expression is an error, never a blown stack):
//   before: the size limit (limits.ts), cel-go's own grammar with its error recovery and its recursion limits
//           (grammar/), unary runs (unary.ts);
//   after:  `&&` / `||` chains balanced (balance.ts), which cel-go's depth limit does not count.
import { balanceLogic } from './balance.js';
import type { EngineNode } from './engine.js';
import { celParseIssues } from './grammar/syntax-errors.js';
import type { ParseOptions } from './grammar/syntax-errors.js';
import type { Issue } from './issues.js';
import { lex } from './lexer.js';
import { sizeIssue } from './limits.js';
import { collapseUnaryRuns } from './unary.js';

/** The text to parse (same offsets as the expression), or the issues that end compilation before parsing. */
export function beforeParse(expression: string, options: ParseOptions = {}): { readonly source: string } | { readonly issues: readonly Issue[] } {
  const size = sizeIssue(expression);
  if (size !== undefined) return { issues: [size] };
  // Parse errors are reported as cel-go reports them, every error its recovery finds and what its visitor adds;
  // the engine parses only what cel-go's parser accepts.
  const syntax = celParseIssues(expression, options);
  if (syntax.length > 0) return { issues: syntax };
  const collapsed = collapseUnaryRuns(expression, lex(expression));
  return 'issue' in collapsed ? { issues: [collapsed.issue] } : collapsed;
}

/** Checks and reshapes the engine's AST of `source` in place; the issue that ends compilation, if any. */
export function afterParse(root: EngineNode, source: string): Issue | undefined {
  balanceLogic(root, source);
  return undefined;
}
