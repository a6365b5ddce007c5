// ext/formatting.go stringFormatValidator (ext.Strings from version 1, below 4: Kubernetes has version 2): a
// `'…'.format([…])` call whose template is a string literal and whose argument is a list literal is checked after
// type-checking. Each clause must have an argument of a type it formats (dyn passes), the template must parse, and
// the list may not hold more arguments than the clauses use. Messages and anchors are cel-go's: a clause error at
// the offending element, the others at the call.

import type { EngineNode } from '../engine.js';
import type { Issue } from '../issues.js';
import type { Kind, Type } from './types.js';

/** A format call the checker saw, with what it needs of the checker to validate it. */
export interface FormatCall {
  readonly call: EngineNode;
  readonly template: string;
  readonly elements: readonly EngineNode[];
}

export interface FormatContext {
  /** the node's final type (after substitution), dyn if unknown */
  typeOf(node: EngineNode): Type;
  anchor(node: EngineNode): number;
}

const STRING_CLAUSE = 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps';

/** What each clause formats, and cel-go's complaint otherwise. */
const CLAUSES: Readonly<Record<string, { kinds: readonly Kind[]; message: string }>> = {
  d: { kinds: ['int', 'uint'], message: 'decimal clause can only be used on integers' },
  f: { kinds: ['double', 'string'], message: 'fixed-point clause can only be used on doubles' },
  e: { kinds: ['double', 'string'], message: 'scientific clause can only be used on doubles' },
  b: { kinds: ['int', 'uint', 'bool'], message: 'only integers and bools can be formatted as binary' },
  x: { kinds: ['int', 'uint', 'string', 'bytes'], message: 'only integers, byte buffers, and strings can be formatted as hex' },
  X: { kinds: ['int', 'uint', 'string', 'bytes'], message: 'only integers, byte buffers, and strings can be formatted as hex' },
  o: { kinds: ['int', 'uint'], message: 'octal clause can only be used on integers' },
};
const STRING_KINDS: readonly Kind[] = ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'timestamp', 'bytes', 'duration', 'type', 'null'];

class ClauseError extends Error {
  constructor(
    message: string,
    readonly at: EngineNode | undefined,
  ) {
    super(message);
  }
}

/** stringFormatChecker.verifyTypeOneOf: dyn, or a type of one of the kinds. */
function oneOf(type: Type, kinds: readonly Kind[]): boolean {
  return type.kind === 'dyn' || kinds.includes(type.kind);
}

/** stringFormatChecker.verifyString: the node, and the entries of a list or map literal, printable by %s. */
function badForString(node: EngineNode, ctx: FormatContext): EngineNode | undefined {
  if (!oneOf(ctx.typeOf(node), STRING_KINDS)) return node;
  if (node.op === 'list') {
    for (const element of node.args as EngineNode[]) {
      const bad = badForString(element, ctx);
      if (bad !== undefined) return bad;
    }
  } else if (node.op === 'map') {
    for (const [key, value] of node.args as [EngineNode, EngineNode][]) {
      const bad = badForString(key, ctx) ?? badForString(value, ctx);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}

function checkClause(verb: string, arg: EngineNode, ctx: FormatContext): void {
  if (verb === 's') {
    const bad = badForString(arg, ctx);
    if (bad !== undefined) throw new ClauseError(`error during formatting: ${STRING_CLAUSE}, was given ${ctx.typeOf(bad).name}`, bad);
    return;
  }
  const clause = CLAUSES[verb];
  if (clause === undefined) throw new ClauseError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`, undefined);
  const type = ctx.typeOf(arg);
  if (!oneOf(type, clause.kinds)) throw new ClauseError(`error during formatting: ${clause.message}, was given ${type.name}`, arg);
}

/** parseFormatString with the checker's interpolator: the number of arguments the template uses. */
function parseTemplate(template: string, elements: readonly EngineNode[], ctx: FormatContext): number {
  let argIndex = 0;
  let i = 0;
  while (i < template.length) {
    if (template[i] !== '%') {
      i++;
      continue;
    }
    if (template[i + 1] === '%') {
      i += 2;
      continue;
    }
    if (i + 1 >= template.length) throw new ClauseError('unexpected end of string', undefined);
    const arg = elements[argIndex];
    if (arg === undefined) throw new ClauseError(`index ${argIndex} out of range`, undefined);
    let j = i + 1;
    if (template[j] === '.') {
      j++;
      let digits = '';
      while (j < template.length && template[j]! >= '0' && template[j]! <= '9') digits += template[j++];
      if (j >= template.length) throw new ClauseError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier', undefined);
      if (digits === '') {
        throw new ClauseError('could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax', undefined);
      }
    }
    checkClause(template[j]!, arg, ctx);
    argIndex++;
    i = j + 1;
  }
  return argIndex;
}

/** The validator's findings for the format calls the checker recorded. */
export function validateFormatCalls(calls: readonly FormatCall[], ctx: FormatContext): Issue[] {
  const issues: Issue[] = [];
  for (const { call, template, elements } of calls) {
    try {
      const used = parseTemplate(template, elements, ctx);
      if (elements.length > used) {
        issues.push({ offset: ctx.anchor(call), message: `too many arguments supplied to string.format (expected ${used}, got ${elements.length})` });
      }
    } catch (error) {
      if (!(error instanceof ClauseError)) throw error;
      issues.push({ offset: ctx.anchor(error.at ?? call), message: error.message });
    }
  }
  return issues;
}

