// cel-go's syntax errors, found as cel-go finds them: the lexer and parser ANTLR generates from cel-go's own grammar
// (CELLexer.ts, CELParser.ts, scripts/gen-cel-grammar.mjs), run with the listener, error strategy and limits of
// cel-go v0.26.0 parser/parser.go (Parser.Parse, parser.parse, recoveryLimitErrorStrategy, lookaheadConsumer,
// recursionListener, SyntaxError). ANTLR's error recovery decides how many errors an expression gets and at which
// tokens (`missing ']' at '<EOF>'`, `extraneous input …`, a lexer error followed by a parser one), which no
// reading of a hand-written parser's errors can reproduce.
import * as antlr from 'antlr4';
import CELLexer from './CELLexer.js';
import CELParser from './CELParser.js';
import type { Issue } from '../issues.js';
import { NO_LOCATION } from '../issues.js';
import { ParseTreeVisitor, VisitorDepthExceeded } from './visitor.js';
import type { TreeNode } from './visitor.js';

// parser.go NewParser's defaults; Kubernetes' environments set none of these (apiserver pkg/cel/environment)
const ERROR_REPORTING_LIMIT = 100;
const ERROR_RECOVERY_LIMIT = 30;
const ERROR_RECOVERY_LOOKAHEAD_LIMIT = 256;
/** parser.go NewParser's default maxRecursionDepth, which Kubernetes keeps (pkg/cel/environment/base.go sets none). */
export const MAX_RECURSION_DEPTH = 250;

// parser.go: a reserved word where an identifier should be keeps the wording of older cel-go versions
const RESERVED_IDENTIFIER = /no viable alternative at input '.(true|false|null)'/g;
const MISMATCHED_RESERVED_IDENTIFIER = "mismatched input '$1' expecting IDENTIFIER";

/** Ends the parse as cel-go's panics do; `issue` is what cel-go reports for it, if anything. */
class ParseAbort extends Error {
  constructor(readonly issue: Issue | undefined) {
    super(issue?.message ?? 'parse abandoned');
  }
}

interface Recognizer {
  consume(): unknown;
  notifyErrorListeners(message: string, offendingToken: unknown, error: unknown): void;
}

interface RuleContext {
  ruleIndex: number;
}

interface ErrorStrategy {
  recover(recognizer: Recognizer, error: unknown): void;
  recoverInline(recognizer: Recognizer): unknown;
}

type ErrorStrategyClass = new () => ErrorStrategy;
type ErrorListenerClass = new () => object;

interface GeneratedLexer {
  removeErrorListeners(): void;
  addErrorListener(listener: object): void;
}

interface GeneratedParser extends Recognizer {
  removeErrorListeners(): void;
  addErrorListener(listener: object): void;
  addParseListener(listener: object): void;
  _errHandler: ErrorStrategy;
  start(): TreeNode;
}

// The runtime's own typings do not resolve under NodeNext; these are the few members used here.
const runtime = antlr as unknown as {
  CharStreams: { fromString(text: string): unknown };
  CommonTokenStream: new (lexer: unknown) => unknown;
  DefaultErrorStrategy: ErrorStrategyClass;
  ErrorListener: ErrorListenerClass;
};
const Lexer = CELLexer as unknown as new (input: unknown) => GeneratedLexer;
const Parser = CELParser as unknown as new (tokens: unknown) => GeneratedParser;

/** cel-go's recoveryLimitErrorStrategy: at most 30 recoveries, each consuming at most 256 tokens. */
class RecoveryLimitErrorStrategy extends runtime.DefaultErrorStrategy {
  #attempts = 0;

  override recover(recognizer: Recognizer, error: unknown): void {
    this.#checkAttempts(recognizer);
    withLookaheadLimit(recognizer, () => super.recover(recognizer, error));
  }

  override recoverInline(recognizer: Recognizer): unknown {
    this.#checkAttempts(recognizer);
    return withLookaheadLimit(recognizer, () => super.recoverInline(recognizer));
  }

  #checkAttempts(recognizer: Recognizer): void {
    if (this.#attempts === ERROR_RECOVERY_LIMIT) {
      this.#attempts++;
      // reported to the listeners (a syntax error at the current token), then the parse ends
      recognizer.notifyErrorListeners(`error recovery attempt limit exceeded: ${ERROR_RECOVERY_LIMIT}`, null, null);
      throw new ParseAbort(undefined);
    }
    this.#attempts++;
  }
}

/** lookaheadConsumer: the tokens one recovery consumes are counted, and too many end the parse. */
function withLookaheadLimit<T>(recognizer: Recognizer, recovery: () => T): T {
  const consume = recognizer.consume;
  let consumed = 0;
  recognizer.consume = function (this: Recognizer) {
    if (consumed >= ERROR_RECOVERY_LOOKAHEAD_LIMIT) {
      throw new ParseAbort({ offset: NO_LOCATION, message: `error recovery token lookahead limit exceeded: ${ERROR_RECOVERY_LOOKAHEAD_LIMIT}` });
    }
    consumed++;
    return consume.call(this);
  };
  try {
    return recovery();
  } finally {
    recognizer.consume = consume;
  }
}

/** cel-go's parser as an ANTLR error listener (parser.go SyntaxError): syntax errors at the offending position. */
class SyntaxErrorListener extends runtime.ErrorListener {
  readonly issues: Issue[] = [];
  #reports = 0;

  constructor(private readonly lineStarts: readonly number[], private readonly source: string) {
    super();
  }

  syntaxError(_recognizer: unknown, _offending: unknown, line: number, column: number, message: string): void {
    const text = message.includes('no viable alternative') ? message.replace(RESERVED_IDENTIFIER, MISMATCHED_RESERVED_IDENTIFIER) : message;
    const offset = this.offset(line, column);
    if (this.#reports < ERROR_REPORTING_LIMIT) {
      this.#reports++;
      this.issues.push({ offset, message: `Syntax error: ${text}` });
      return;
    }
    this.issues.push({ offset, message: `Syntax error: More than ${ERROR_REPORTING_LIMIT} syntax errors` });
    throw new ParseAbort(undefined);
  }

  /** ANTLR's column counts code points, as cel-go's runes buffer does; issues are anchored at UTF-16 offsets. */
  offset(line: number, column: number): number {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return this.source.length;
    let offset = start;
    for (let i = 0; i < column && offset < this.source.length; i++) offset += (this.source.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
    return offset;
  }
}

/** recursionListener: more than `limit` nested rules of one kind end the parse with cel-go's internal error. */
function recursionListener(limit: number): object {
  const depths = new Map<number, number>();
  return {
    visitTerminal() {},
    visitErrorNode() {},
    enterEveryRule(context: RuleContext) {
      const depth = (depths.get(context.ruleIndex) ?? 0) + 1;
      depths.set(context.ruleIndex, depth);
      if (depth > limit) {
        throw new ParseAbort({ offset: NO_LOCATION, message: `expression recursion limit exceeded: ${limit}` });
      }
    },
    exitEveryRule(context: RuleContext) {
      const depth = depths.get(context.ruleIndex);
      if (depth !== undefined && depth > 0) depths.set(context.ruleIndex, depth - 1);
    },
  };
}

export interface ParseOptions {
  /** cel-go's EnableIdentEscapeSyntax: Kubernetes leaves it off; the cel-spec conformance environment turns it on */
  readonly identEscapes?: boolean;
  /** cel-go's MaxRecursionDepth (default 250): its own tests use 32 */
  readonly maxRecursionDepth?: number;
}

function lineStartsOf(source: string): number[] {
  const starts = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The errors cel-go's parser reports for `expression`, in the order reported (empty: it parses): the syntax errors,
 * then, if the parse ran to its end, what the visitor reports building the AST (macros, literals, reserved words).
 */
export function celParseIssues(expression: string, options: ParseOptions = {}): Issue[] {
  const listener = new SyntaxErrorListener(lineStartsOf(expression), expression);
  const lexer = new Lexer(runtime.CharStreams.fromString(expression));
  lexer.removeErrorListeners();
  lexer.addErrorListener(listener);
  const parser = new Parser(new runtime.CommonTokenStream(lexer));
  parser.removeErrorListeners();
  parser.addErrorListener(listener);
  const maxRecursionDepth = options.maxRecursionDepth ?? MAX_RECURSION_DEPTH;
  parser.addParseListener(recursionListener(maxRecursionDepth));
  parser._errHandler = new RecoveryLimitErrorStrategy();
  let tree: TreeNode;
  try {
    tree = parser.start();
  } catch (err) {
    if (!(err instanceof ParseAbort)) throw err;
    if (err.issue !== undefined) listener.issues.push(err.issue);
    return listener.issues;
  }
  const visitor = new ParseTreeVisitor((line, column) => listener.offset(line, column), listener.issues.length, options.identEscapes === true, maxRecursionDepth);
  try {
    visitor.visit(tree);
  } catch (err) {
    if (!(err instanceof VisitorDepthExceeded)) throw err;
    return [...listener.issues, ...visitor.issues, err.issue];
  }
  return [...listener.issues, ...visitor.issues];
}
