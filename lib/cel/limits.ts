// cel-go's parser size limit (parser/parser.go, v0.26.0), which Kubernetes leaves at its default (its base
// environment, pkg/cel/environment/base.go, sets no parser option): NewParser's expressionSizeCodePointLimit
// 100,000 — Parse refuses a longer source before parsing, at common.NoLocation
// (`expression code point size exceeds limit: size: N, limit 100000`). The recursion limits (maxRecursionDepth 250:
// the recursionListener and the visitor's depth) are checked where cel-go checks them, by its own grammar
// (grammar/syntax-errors.ts), before the engine parses.
import { NO_LOCATION } from './issues.js';
import type { Issue } from './issues.js';

/** parser.go NewParser's default expressionSizeCodePointLimit. */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;

/** Parse's check of the source's size in code points (runes.Buffer.Len()). */
export function sizeIssue(expression: string): Issue | undefined {
  // A UTF-16 length within the limit is within it in code points too; count only when it may not be.
  if (expression.length <= EXPRESSION_SIZE_CODE_POINT_LIMIT) return undefined;
  let size = 0;
  for (let i = 0; i < expression.length; i++) {
    const unit = expression.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < expression.length) {
      const next = expression.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    size++;
  }
  if (size <= EXPRESSION_SIZE_CODE_POINT_LIMIT) return undefined;
  return { offset: NO_LOCATION, message: `expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}` };
}
