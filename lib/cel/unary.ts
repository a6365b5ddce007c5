// Runs of `!` and of unary `-`, as cel-go's grammar reads them (parser/gen/CEL.g4):
//   unary: member | (ops+='!')+ member | (ops+='-')+ member
// One rule, no recursion: VisitLogicalNot / VisitNegate (parser/parser.go) drop an even number of operators and keep
// one call, anchored at the first, for an odd number; `!!x` is `x` (so `!!1` is an int), and 20,000 of them are no
// deeper than one. The engine nests one node per operator, recursively, so the extra operators are blanked before it
// parses (same length: offsets do not move).
//
// The grammar has no place for a `!` after a `-`, nor for a `-` after a `!` other than the sign of a number literal
// (`!-1`: literal: sign=MINUS? (NUM_INT | NUM_FLOAT)). ANTLR's adaptive prediction then finds no viable alternative
// where the sign's literal cannot go on, and reports the text from the `-` to that token; that is the syntax error
// returned here (the engine would accept them, or recurse once per operator).
import type { Issue } from './issues.js';
import { endsOperand } from './lexer.js';
import type { Token } from './lexer.js';

export type UnaryRuns = { readonly source: string } | { readonly issue: Issue };

/** The unary operator a token is, if any: every `!`, and a `-` where no operand ends before it. */
function unaryOp(tokens: readonly Token[], i: number): '!' | '-' | undefined {
  const token = tokens[i]!;
  if (token.kind !== 'punct') return undefined;
  if (token.text === '!') return '!';
  if (token.text === '-' && !endsOperand(tokens[i - 1])) return '-';
  return undefined;
}

/** A literal a sign may precede: NUM_INT or NUM_FLOAT, not NUM_UINT. */
function signable(token: Token | undefined): boolean {
  return token?.kind === 'number' && !/[uU]$/.test(token.text);
}

/** antlr's escapeWSAndQuote. */
function quoted(text: string): string {
  return `'${text.replaceAll('\n', '\\n').replaceAll('\r', '\\r').replaceAll('\t', '\\t')}'`;
}

function noViableAlternative(source: string, from: Token, offending: Token | undefined): Issue {
  const end = offending?.end ?? from.end;
  return { offset: offending?.start ?? source.length, message: `Syntax error: no viable alternative at input ${quoted(source.slice(from.start, end))}` };
}

/**
 * The source with each run of one unary operator reduced to what cel-go keeps (the rest blanked), or the syntax
 * error of a run mixing them.
 */
export function collapseUnaryRuns(source: string, tokens: readonly Token[]): UnaryRuns {
  let blanks: Array<readonly [number, number]> | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const op = unaryOp(tokens, i);
    if (op === undefined) continue;
    let end = i + 1;
    while (end < tokens.length && tokens[end]!.kind === 'punct' && (tokens[end]!.text === '!' || tokens[end]!.text === '-')) end++;
    // the run of `op`, then at most a literal's sign
    let run = i + 1;
    while (run < end && tokens[run]!.text === op) run++;
    if (run < end) {
      if (op === '-') return { issue: noViableAlternative(source, tokens[run - 1]!, tokens[run]) };
      // `!` then `-`: only the sign of a number literal, right before the number
      if (run + 1 < end || !signable(tokens[end])) return { issue: noViableAlternative(source, tokens[run]!, tokens[run + 1]) };
    }
    const count = run - i;
    if (count > 1) {
      blanks ??= [];
      for (let k = count % 2 === 1 ? i + 1 : i; k < run; k++) blanks.push([tokens[k]!.start, tokens[k]!.end]);
    }
    i = end - 1;
  }
  if (blanks === undefined) return { source };
  let out = '';
  let at = 0;
  for (const [start, end] of blanks) {
    out += source.slice(at, start) + ' '.repeat(end - start);
    at = end;
  }
  return { source: out + source.slice(at) };
}
