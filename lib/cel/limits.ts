// cel-go's parser limits (parser/parser.go, v0.26.0), which Kubernetes leaves at their defaults (its base environment,
// pkg/cel/environment/base.go, sets no parser option). All three are reported at common.NoLocation:
// - NewParser: expressionSizeCodePointLimit 100,000 — Parse refuses a longer source before parsing
//   (`expression code point size exceeds limit: size: N, limit 100000`);
// - recursionListener (an ANTLR parse listener): no grammar rule may be open more than maxRecursionDepth (250) times
//   at once (`expression recursion limit exceeded: 250`);
// - the AST visitor: at most 250 nested ternaries, relation and arithmetic operators, selects, member calls and
//   indexes on any path (checkAndIncrementRecursionDepth, `max recursion depth exceeded`).
// The first two are checked on tokens, before the engine parses: within them the engine's recursive descent stays
// shallow. The third is checked on the engine's AST, iteratively (left-recursive chains parse in loops).
import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import { NO_LOCATION } from './issues.js';
import type { Issue } from './issues.js';
import { endsOperand } from './lexer.js';
import type { Token } from './lexer.js';

/** parser.go NewParser's default expressionSizeCodePointLimit. */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;
/** parser.go NewParser's default maxRecursionDepth. */
export const MAX_RECURSION_DEPTH = 250;

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

const recursionLimitExceeded = (limit: number): Issue => ({ offset: NO_LOCATION, message: `expression recursion limit exceeded: ${limit}` });
const MAX_RECURSION_DEPTH_EXCEEDED: Issue = { offset: NO_LOCATION, message: 'max recursion depth exceeded' };

const RELATION_OPS = new Set(['<', '<=', '>=', '>', '==', '!=', 'in']);
const MULTIPLICATIVE_OPS = new Set(['*', '/', '%']);
const CLOSER_OF: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/**
 * One invocation of the grammar's `expr` rule and where its operator chain stands. Within one `expr`, every rule
 * from conditionalOr down to primary is open once; `relation` once more in the right operand of a relation operator,
 * `calc` once more in the right operand of `+`/`-` and once more in that of `*`/`/`/`%` (ANTLR's left-recursive
 * rules call themselves only for right operands, and close the left context before each loop iteration).
 */
interface ExprFrame {
  /** the closing token of the bracket that opened it; '' for the root and for a ternary's else branch */
  readonly closer: string;
  /** a ternary's else branch (`e2=expr`): the rules of the frame below are closed then, only its `expr` is open */
  readonly elseBranch: boolean;
  relation: number;
  additive: number;
  multiplicative: number;
  /** `?` of ternaries waiting for their `:` */
  pending: number;
  /** what this frame added to the totals of the frames below */
  readonly addedRelation: number;
  readonly addedCalc: number;
}

/**
 * The recursionListener's verdict on a token stream, assuming the parse cel-go's grammar gives it: the issue when a
 * rule would be open more than MAX_RECURSION_DEPTH times. Stops quietly at the first token it cannot place (a
 * syntax error, which the engine reports).
 */
export function nestingIssue(tokens: readonly Token[], limit = MAX_RECURSION_DEPTH): Issue | undefined {
  const frames: ExprFrame[] = [];
  // open `relation` / `calc` invocations of the frames below the top
  let relationBelow = 0;
  let calcBelow = 0;
  const push = (closer: string, elseBranch: boolean): boolean => {
    const top = frames.at(-1);
    const addedRelation = top === undefined || elseBranch ? 0 : 1 + top.relation;
    const addedCalc = top === undefined || elseBranch ? 0 : 1 + top.additive + top.multiplicative;
    relationBelow += addedRelation;
    calcBelow += addedCalc;
    frames.push({ closer, elseBranch, relation: 0, additive: 0, multiplicative: 0, pending: 0, addedRelation, addedCalc });
    return frames.length <= limit;
  };
  const pop = (): void => {
    const frame = frames.pop()!;
    relationBelow -= frame.addedRelation;
    calcBelow -= frame.addedCalc;
  };
  const reset = (frame: ExprFrame): void => {
    frame.relation = 0;
    frame.additive = 0;
    frame.multiplicative = 0;
  };
  /** ends the ternary else branches on top: they close with the bracket (or separator) of the frame below */
  const popElseBranches = (): void => {
    while (frames.length > 1 && frames.at(-1)!.elseBranch) pop();
  };
  push('', false);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'invalid') return undefined;
    const top = frames.at(-1)!;
    if (token.kind === 'punct' || (token.kind === 'keyword' && token.text === 'in')) {
      const text = token.text;
      const binary = endsOperand(tokens[i - 1]);
      if (text === '(' || text === '[' || text === '{') {
        if (!push(CLOSER_OF[text]!, false)) return recursionLimitExceeded(limit);
      } else if (text === ')' || text === ']' || text === '}') {
        popElseBranches();
        if (frames.length === 1 || frames.at(-1)!.closer !== text) return undefined;
        pop();
      } else if (text === ',') {
        popElseBranches();
        if (frames.length === 1) return undefined;
        reset(frames.at(-1)!);
      } else if (text === '?') {
        // `.?f`, `[?i]`, and `?` opening an optional list element, map entry or field are optional syntax
        const before = tokens[i - 1];
        const optional = before === undefined || (before.kind === 'punct' && ['.', '[', '{', ','].includes(before.text));
        if (!optional) {
          top.pending++;
          reset(top);
        }
      } else if (text === ':') {
        if (top.pending > 0) {
          top.pending--;
          reset(top);
          if (!push('', true)) return recursionLimitExceeded(limit);
        } else {
          // a map entry's or a field's value: a sibling `expr` in the bracket's frame
          popElseBranches();
          if (frames.length === 1) return undefined;
          reset(frames.at(-1)!);
        }
      } else if (text === '&&' || text === '||') {
        reset(top);
      } else if (binary && RELATION_OPS.has(text)) {
        top.relation = 1;
        top.additive = 0;
        top.multiplicative = 0;
      } else if (binary && (text === '+' || text === '-')) {
        top.additive = 1;
        top.multiplicative = 0;
      } else if (binary && MULTIPLICATIVE_OPS.has(text)) {
        top.multiplicative = 1;
      }
    }
    const current = frames.at(-1)!;
    if (relationBelow + 1 + current.relation > limit || calcBelow + 1 + current.additive + current.multiplicative > limit) {
      return recursionLimitExceeded(limit);
    }
  }
  return undefined;
}

/** The nodes cel-go's visitor counts: ternaries, relation and arithmetic operators, selects, member calls, indexes. */
const COUNTED_OPS = new Set(['?:', '==', '!=', '<', '<=', '>', '>=', 'in', '+', '-', '*', '/', '%', '.', '.?', '[]', '[?]', 'rcall']);

/** The visitor's verdict on the engine's AST, walked without recursion. */
export function visitorDepthIssue(root: EngineNode, limit = MAX_RECURSION_DEPTH): Issue | undefined {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (Array.isArray(value)) {
      for (const item of value) stack.push({ value: item, depth });
    } else if (isEngineNode(value)) {
      const inner = COUNTED_OPS.has(value.op) ? depth + 1 : depth;
      if (inner > limit) return MAX_RECURSION_DEPTH_EXCEEDED;
      stack.push({ value: value.args, depth: inner });
    }
  }
  return undefined;
}
