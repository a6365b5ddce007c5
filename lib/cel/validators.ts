// cel-go's AST validators that Kubernetes enables (environment/base.go, 1.29+): ValidateDurationLiterals,
// ValidateTimestampLiterals and ValidateRegexLiterals. A literal argument of duration(), timestamp() or matches()
// that would fail at run time fails the compilation instead, with cel-go's `invalid <function> argument`.

import { isEngineNode } from './engine.js';
import type { EngineNode } from './engine.js';
import type { Issue } from './issues.js';
import { compileRegex, parseDuration, parseTimestamp, timestampFromSeconds } from './runtime/index.js';

function literal(node: EngineNode | undefined): unknown {
  return node?.op === 'value' ? node.args : undefined;
}

function fails(check: () => unknown): boolean {
  try {
    check();
    return false;
  } catch {
    return true;
  }
}

function checkCall(name: string, arg: EngineNode | undefined, issues: Issue[]): void {
  const value = literal(arg);
  if (arg === undefined || value === undefined) return;
  let invalid = false;
  if (name === 'duration' && typeof value === 'string') invalid = fails(() => parseDuration(value));
  // evalCall runs duration(<int>), which has no conversion (Int.ConvertToType): always invalid
  else if (name === 'duration' && typeof value === 'bigint') invalid = true;
  else if (name === 'timestamp' && typeof value === 'string') invalid = fails(() => parseTimestamp(value));
  else if (name === 'timestamp' && typeof value === 'bigint') invalid = fails(() => timestampFromSeconds(value));
  else if (name === 'matches' && typeof value === 'string') invalid = fails(() => compileRegex(value));
  if (invalid) issues.push({ offset: arg.pos, message: `invalid ${name} argument` });
}

function visit(node: EngineNode, issues: Issue[]): void {
  if (node.op === 'call') {
    const [name, args] = node.args as [string, EngineNode[]];
    if (name === 'duration' || name === 'timestamp' || name === 'matches') checkCall(name, args[0], issues);
  } else if (node.op === 'rcall') {
    const [name, , args] = node.args as [string, EngineNode, EngineNode[]];
    if (name === 'matches') checkCall(name, args[0], issues);
  }
  visitChildren(node.args, issues);
}

function visitChildren(args: unknown, issues: Issue[]): void {
  if (isEngineNode(args)) visit(args, issues);
  else if (Array.isArray(args)) for (const a of args) visitChildren(a, issues);
}

/** Literal arguments of duration(), timestamp() and matches() that are invalid (offsets in the parsed text). */
export function checkLiteralArguments(root: EngineNode): Issue[] {
  const issues: Issue[] = [];
  visit(root, issues);
  return issues;
}
