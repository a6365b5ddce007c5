// Turns the engine's parse and type errors into cel-go's wording and anchors, as far as the engine says enough:
// operator and call overload failures become `found no matching overload for '_+_' applied to '(int, string)'`,
// syntax errors get cel-go's `Syntax error: …` prefix and, for the common cases, ANTLR's phrasing. Anything
// else keeps the engine's own sentence (still placed and rendered like cel-go).

import { formatType, parseEngineType } from './cel-types.js';
import { isEngineNode } from './engine.js';
import type { EngineError, EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { undeclaredReference } from './references.js';
import { OPTIONAL_ENTRY_FUNCTION } from './runtime/planner.js';
import { anchorOf } from './tokens.js';

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

/** cel-go's overload names for the engine's operators. */
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
  '&&': '_&&_',
  '||': '_||_',
  '!_': '!_',
  '-_': '-_',
  '?:': '_?_:_',
  '[]': '_[_]',
};

/** The engine's types of the namespace constants qualifying function names (engine.ts NAMESPACES). */
const NAMESPACE_TYPES = new Set(['OptionalNamespace', 'JsonPatchNamespace', 'StringsNamespace', 'SetsNamespace', 'FormatNamespace', 'IPNamespace']);

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
      return { offset: start, message: `Syntax error: mismatched input '${text}' expecting ${EXPRESSION_START}` };
    case 'expected_token': {
      const expected = /^Expected (\w+),/.exec(summary)?.[1] ?? '';
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

function typeOf(node: unknown): string | undefined {
  if (!isEngineNode(node) || node.checkedType === undefined) return undefined;
  return formatType(parseEngineType(node.checkedType.name));
}

/** `(int, string)` from the checked types of `nodes`, or undefined if one was not checked. */
function signature(nodes: readonly unknown[]): string | undefined {
  const types = nodes.map(typeOf);
  if (types.some((t) => t === undefined)) return undefined;
  return `(${types.join(', ')})`;
}

function overloadMessage(node: EngineNode, functions: ReadonlySet<string>): string | undefined {
  switch (node.op) {
    case 'call': {
      const [name, args] = node.args as [string, EngineNode[]];
      if (name === OPTIONAL_ENTRY_FUNCTION && args[0] !== undefined) {
        // cel-go checker.go checkCreateList/checkCreateMap on a `?` entry
        const found = typeOf(args[0]);
        return found && `expected type 'optional_type(${found})' but found '${found}'`;
      }
      if (!functions.has(name)) return undeclaredReference(name);
      const sig = signature(args);
      return sig && `found no matching overload for '${name}' applied to '${sig}'`;
    }
    case 'rcall': {
      const [name, target, args] = node.args as [string, EngineNode, EngineNode[]];
      if (!functions.has(name)) return undeclaredReference(name);
      const receiver = typeOf(target);
      const sig = signature(args);
      // `optional.of(…)`, `jsonpatch.escapeKey(…)`: a qualified function name in cel-go, not a member call.
      if (target.op === 'id' && receiver !== undefined && NAMESPACE_TYPES.has(receiver)) {
        return sig && `found no matching overload for '${String(target.args)}.${name}' applied to '${sig}'`;
      }
      return receiver && sig && `found no matching overload for '${name}' applied to '${receiver}.${sig}'`;
    }
    default: {
      const fn = OPERATOR_FUNCTIONS[node.op];
      if (fn === undefined) return undefined;
      const operands = isEngineNode(node.args) ? [node.args] : (node.args as unknown[]);
      const sig = signature(operands);
      return sig && `found no matching overload for '${fn}' applied to '${sig}'`;
    }
  }
}

const OVERLOAD_CODES = new Set([
  'no_matching_overload',
  'no_such_overload',
  'invalid_logical_operand',
  'incompatible_ternary_branches',
  'invalid_index_type',
  'cannot_index_type',
]);

/** cel-go's rendering of a type-check error the engine reported. */
export function translateTypeError(source: string, error: EngineError, functions: ReadonlySet<string>): Issue {
  const node = error.node;
  const summary = error.summary ?? error.message;
  if (node === undefined) return { offset: error.range?.start ?? 0, message: summary };
  const offset = anchorOf(source, node);
  if (error.code === 'unknown_variable' && node.op === 'id') {
    return { offset, message: undeclaredReference(node.args as string) };
  }
  if (error.code === 'invalid_macro_argument' && summary.startsWith('has()')) {
    // cel-go parser/macro.go makeHas, anchored at the argument
    return { offset, message: 'invalid argument to has() macro' };
  }
  if (error.code !== undefined && OVERLOAD_CODES.has(error.code)) {
    const message = overloadMessage(node, functions);
    if (message) return { offset, message };
  }
  if (error.code === 'cannot_index_type' && (node.op === '.' || node.op === '.?')) {
    const [operand] = node.args as [EngineNode, string];
    const type = typeOf(operand);
    if (type !== undefined) return { offset, message: `type '${type}' does not support field selection` };
  }
  return { offset, message: summary };
}
