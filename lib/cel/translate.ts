// Turns the engine's parse errors into cel-go's wording and anchors: cel-go's `Syntax error: …` prefix and, for
// the common cases, ANTLR's phrasing. (Type errors are the checker's own, in cel-go's words: checker/check.ts.)

import type { EngineError } from './engine.js';
import type { Issue } from './issues.js';

/** What ANTLR lists after `expecting` where an expression must start (cel-go's grammar). */
const EXPRESSION_START =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const TOKEN_TEXT: Readonly<Record<string, string>> = {
  EOF: '<EOF>',
  RPAREN: "')'",
  RBRACKET: "']'",
  RBRACE: "'}'",
  COLON: "':'",
  COMMA: "','",
  IDENTIFIER: 'IDENTIFIER',
};

/**
 * ANTLR's expected set where an expression must start, which depends on what opened it (cel-go's CEL.g4): a call's
 * argument list may be empty (`)`), a list or map literal may be empty, hold optional entries (`?`) and end in a
 * comma, an index may be optional (`[?`), and a message construction `T{` expects a field name.
 */
function expressionStartAt(source: string, start: number): string {
  let i = start - 1;
  while (i >= 0 && /\s/.test(source[i]!)) i--;
  const opener = source[i];
  let j = i - 1;
  while (j >= 0 && /\s/.test(source[j]!)) j--;
  const word = /[A-Za-z_][A-Za-z0-9_]*$/.exec(source.slice(0, j + 1))?.[0];
  const afterOperand = (word !== undefined && word !== 'in') || /[)\]}`]/.test(source[j] ?? '');
  const atoms = "'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER";
  if (opener === '(' && afterOperand) return `{'[', '{', '(', ')', '.', '-', '!', ${atoms}}`;
  if (opener === '[' && afterOperand) return `{'[', '{', '(', '.', '-', '!', '?', ${atoms}}`;
  if (opener === '[') return `{'[', ']', '{', '(', '.', ',', '-', '!', '?', ${atoms}}`;
  if (opener === '{' && afterOperand) return "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}";
  if (opener === '{') return `{'[', '{', '}', '(', '.', ',', '-', '!', '?', ${atoms}}`;
  return EXPRESSION_START;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function tokenAt(source: string, start: number, end: number): string {
  if (start >= source.length) return '<EOF>';
  return source.slice(start, Math.max(end, start + 1));
}

/** cel-go's rendering of a syntax error the engine's parser reported. */
export function translateParseError(source: string, error: EngineError): Issue {
  const start = error.range?.start ?? error.node?.pos ?? 0;
  const end = error.range?.end ?? start;
  const summary = error.summary ?? error.message;
  const text = tokenAt(source, start, end);
  switch (error.code) {
    case 'unexpected_token':
      return { offset: start, message: `Syntax error: mismatched input '${text}' expecting ${expressionStartAt(source, start)}` };
    case 'expected_token': {
      const expected = /^Expected (\w+),/.exec(summary)?.[1] ?? '';
      if (expected === 'IDENTIFIER' && text === '<EOF>') {
        // after `.?` a field name, plain or escaped; after a bare `.` ANTLR cannot tell the alternatives apart
        if (source.slice(0, start).trimEnd().endsWith('.?')) return { offset: start, message: "Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}" };
        if (source.slice(0, start).trimEnd().endsWith('.')) return { offset: start, message: "Syntax error: no viable alternative at input '.'" };
      }
      return { offset: start, message: `Syntax error: mismatched input '${text}' expecting ${TOKEN_TEXT[expected] ?? expected}` };
    }
    case 'unexpected_character':
      // With quotes: input left over after a complete expression. Without: a character CEL has no token for.
      return summary.includes("'")
        ? { offset: start, message: `Syntax error: extraneous input '${text}' expecting <EOF>` }
        : { offset: start, message: `Syntax error: token recognition error at: '${text}'` };
    case 'unterminated_string':
    case 'unterminated_triple_quoted_string':
    case 'newline_in_string':
      return { offset: start, message: `Syntax error: token recognition error at: '${text}'` };
    case 'reserved_identifier':
      return { offset: start, message: `reserved identifier: ${text}` };
    case 'invalid_macro_argument':
      // cel-go's macro expander wording (parser/macro.go extractIdent)
      if (summary.endsWith('invalid predicate iteration variable')) return { offset: start, message: 'argument must be a simple name' };
      return { offset: start, message: lowerFirst(summary) };
    default:
      return { offset: start, message: `Syntax error: ${lowerFirst(summary)}` };
  }
}
