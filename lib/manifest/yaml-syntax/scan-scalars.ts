// go-yaml v2's scalar scanning (go.yaml.in/yaml/v2 v2.4.3 scannerc.go, yaml_parser_scan_block_scalar,
// yaml_parser_scan_flow_scalar, yaml_parser_scan_plain_scalar): block, quoted and plain scalars with their folding,
// escapes and indentation rules, and upstream's errors (tabs, unknown escapes, unexpected end of stream …). A scalar's
// characters are copied from the reader's buffer in runs (state.ts beginRun/endRun), not one by one.
import { advance, asHex, at, bytesText, isBlank, isBlankZ, isBreak, isBreakZ, isDigit, isHex, isSpace, isTab, isZ, read, readLine, skip, skipLine } from './chars.js';
import { cache } from './reader.js';
import { appendText, beginRun, copyMark, endRun, takeText } from './state.js';
import type { Mark, Token, YamlState } from './state.js';

function fail(s: YamlState, context: string, start: Mark, problem: string): undefined {
  s.setScannerError(context, start, problem);
  return undefined;
}


const blockContext = 'while scanning a block scalar';

export function scanBlockScalar(s: YamlState, literal: boolean): Token | undefined {
  const start = copyMark(s.mark);
  skip(s);
  if (!cache(s, 1)) return undefined;
  let chomping = 0;
  let increment = 0;
  if (at(s, '+') || at(s, '-')) {
    chomping = at(s, '+') ? 1 : -1;
    skip(s);
    if (!cache(s, 1)) return undefined;
    if (isDigit(s, s.bufPos)) {
      if (at(s, '0')) return fail(s, blockContext, start, 'found an indentation indicator equal to 0');
      increment = s.at(s.bufPos) - 0x30;
      skip(s);
    }
  } else if (isDigit(s, s.bufPos)) {
    if (at(s, '0')) return fail(s, blockContext, start, 'found an indentation indicator equal to 0');
    increment = s.at(s.bufPos) - 0x30;
    skip(s);
    if (!cache(s, 1)) return undefined;
    if (at(s, '+') || at(s, '-')) {
      chomping = at(s, '+') ? 1 : -1;
      skip(s);
    }
  }
  if (!cache(s, 1)) return undefined;
  while (isBlank(s, s.bufPos)) {
    skip(s);
    if (!cache(s, 1)) return undefined;
  }
  if (at(s, '#')) {
    while (!isBreakZ(s, s.bufPos)) {
      skip(s);
      if (!cache(s, 1)) return undefined;
    }
  }
  if (!isBreakZ(s, s.bufPos)) return fail(s, blockContext, start, 'did not find expected comment or line break');
  if (isBreak(s, s.bufPos)) {
    if (!cache(s, 2)) return undefined;
    skipLine(s);
  }
  const block = { indent: 0, end: copyMark(s.mark) };
  if (increment > 0) block.indent = s.indent >= 0 ? s.indent + increment : increment;
  s.text = '';
  let leadingBreak: number[] = [];
  let trailingBreaks: number[] = [];
  if (!scanBlockScalarBreaks(s, block, trailingBreaks, start)) return undefined;
  if (!cache(s, 1)) return undefined;
  let leadingBlank = false;
  while (s.mark.column === block.indent && !isZ(s, s.bufPos)) {
    const trailingBlank = isBlank(s, s.bufPos);
    if (!literal && !leadingBlank && !trailingBlank && leadingBreak.length > 0 && leadingBreak[0] === 0x0a) {
      if (trailingBreaks.length === 0) appendText(s, ' ');
    } else {
      appendText(s, bytesText(leadingBreak));
    }
    leadingBreak = [];
    appendText(s, bytesText(trailingBreaks));
    trailingBreaks = [];
    leadingBlank = isBlank(s, s.bufPos);
    while (!isBreakZ(s, s.bufPos)) {
      beginRun(s);
      advance(s);
      skipPlainASCII(s, blockStops);
      if (!cache(s, 1)) return undefined;
    }
    endRun(s);
    if (!cache(s, 2)) return undefined;
    readLine(s, leadingBreak);
    if (!scanBlockScalarBreaks(s, block, trailingBreaks, start)) return undefined;
  }
  if (chomping !== -1) appendText(s, bytesText(leadingBreak));
  if (chomping === 1) appendText(s, bytesText(trailingBreaks));
  return { type: 'SCALAR', start, end: block.end, text: takeText(s), style: literal ? 'literal' : 'folded' };
}

/** Indentation and empty lines before (and between) a block scalar's lines; finds the indent when none is given. */
function scanBlockScalarBreaks(s: YamlState, block: { indent: number; end: Mark }, breaks: number[], start: Mark): boolean {
  block.end = copyMark(s.mark);
  let maxIndent = 0;
  for (;;) {
    if (!cache(s, 1)) return false;
    while ((block.indent === 0 || s.mark.column < block.indent) && isSpace(s, s.bufPos)) {
      skip(s);
      if (!cache(s, 1)) return false;
    }
    if (s.mark.column > maxIndent) maxIndent = s.mark.column;
    if ((block.indent === 0 || s.mark.column < block.indent) && isTab(s, s.bufPos)) {
      return s.setScannerError(blockContext, start, 'found a tab character where an indentation space is expected');
    }
    if (!isBreak(s, s.bufPos)) break;
    if (!cache(s, 2)) return false;
    readLine(s, breaks);
    block.end = copyMark(s.mark);
  }
  if (block.indent === 0) {
    block.indent = Math.max(maxIndent, s.indent + 1, 1);
  }
  return true;
}

const simpleEscapes: ReadonlyMap<number, string> = new Map(
  ([
    ['0', '\0'], ['a', '\x07'], ['b', '\b'], ['t', '\t'], ['\t', '\t'], ['n', '\n'], ['v', '\v'], ['f', '\f'], ['r', '\r'],
    ['e', '\x1b'], [' ', ' '], ['"', '"'], ["'", "'"], ['\\', '\\'], ['N', '\u0085'], ['_', '\u00a0'], ['L', '\u2028'],
    ['P', '\u2029'],
  ] as const).map(([c, text]) => [c.charCodeAt(0), text]),
);

const codeLengths: ReadonlyMap<number, number> = new Map([[0x78, 2], [0x75, 4], [0x55, 8]]);

function isDocumentIndicator(s: YamlState): boolean {
  return s.mark.column === 0 &&
    ((at(s, '-') && at(s, '-', 1) && at(s, '-', 2)) || (at(s, '.') && at(s, '.', 1) && at(s, '.', 2))) &&
    isBlankZ(s, s.bufPos + 3);
}

const quotedContext = 'while parsing a quoted scalar';

/** One `\` escape of a double-quoted scalar; false on error. */
function scanEscape(s: YamlState, start: Mark): boolean {
  // the escape's own characters are not content
  endRun(s);
  const c = s.at(s.bufPos + 1);
  const simple = simpleEscapes.get(c);
  const codeLength = codeLengths.get(c) ?? 0;
  if (simple === undefined && codeLength === 0) return s.setScannerError(quotedContext, start, 'found unknown escape character');
  if (simple !== undefined) appendText(s, simple);
  skip(s);
  skip(s);
  if (codeLength === 0) return true;
  if (!cache(s, codeLength)) return false;
  let code = 0;
  for (let k = 0; k < codeLength; k++) {
    if (!isHex(s, s.bufPos + k)) return s.setScannerError(quotedContext, start, 'did not find expected hexdecimal number');
    code = code * 16 + asHex(s, s.bufPos + k);
  }
  if ((code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return s.setScannerError(quotedContext, start, 'found invalid Unicode character escape code');
  appendText(s, String.fromCodePoint(code));
  for (let k = 0; k < codeLength; k++) skip(s);
  return true;
}

/** The blanks and line breaks inside a flow or plain scalar, kept as upstream keeps them to fold lines. */
interface Folding {
  leadingBlanks: boolean;
  whitespaces: number[];
  leadingBreak: number[];
  trailingBreaks: number[];
}

const newFolding = (): Folding => ({ leadingBlanks: false, whitespaces: [], leadingBreak: [], trailingBreaks: [] });

/**
 * Consumes blanks and line breaks (the loop both quoted and plain scalars run). `tabIndent`: for a plain scalar, a tab
 * left of this column after a line break is an error. False on error.
 */
function scanBlanks(s: YamlState, f: Folding, start: Mark, tabIndent?: number): boolean {
  while (isBlank(s, s.bufPos) || isBreak(s, s.bufPos)) {
    if (isBlank(s, s.bufPos)) {
      if (tabIndent !== undefined && f.leadingBlanks && s.mark.column < tabIndent && isTab(s, s.bufPos)) {
        return s.setScannerError('while scanning a plain scalar', start, 'found a tab character that violates indentation');
      }
      if (!f.leadingBlanks) read(s, f.whitespaces);
      else skip(s);
    } else {
      if (!cache(s, 2)) return false;
      if (!f.leadingBlanks) {
        f.whitespaces = [];
        readLine(s, f.leadingBreak);
        f.leadingBlanks = true;
      } else {
        readLine(s, f.trailingBreaks);
      }
    }
    if (!cache(s, 1)) return false;
  }
  return true;
}

/** Joins what scanBlanks collected into the value: a single line break folds to a space, more keep all but one. */
function fold(s: YamlState, f: Folding): void {
  if (f.leadingBlanks) {
    if (f.leadingBreak.length > 0 && f.leadingBreak[0] === 0x0a) {
      appendText(s, f.trailingBreaks.length === 0 ? ' ' : bytesText(f.trailingBreaks));
    } else {
      appendText(s, bytesText(f.leadingBreak) + bytesText(f.trailingBreaks));
    }
    f.trailingBreaks = [];
    f.leadingBreak = [];
  } else {
    appendText(s, bytesText(f.whitespaces));
    f.whitespaces = [];
  }
}

export function scanFlowScalar(s: YamlState, single: boolean): Token | undefined {
  const start = copyMark(s.mark);
  skip(s);
  s.text = '';
  const f = newFolding();
  const context = 'while scanning a quoted scalar';
  for (;;) {
    if (!cache(s, 4)) return undefined;
    if (isDocumentIndicator(s)) return fail(s, context, start, 'found unexpected document indicator');
    if (isZ(s, s.bufPos)) return fail(s, context, start, 'found unexpected end of stream');
    f.leadingBlanks = false;
    while (!isBlankZ(s, s.bufPos)) {
      const c = s.at(s.bufPos);
      if (single && c === 0x27 && at(s, "'", 1)) {
        appendText(s, "'");
        skip(s);
        skip(s);
      } else if (single && c === 0x27) {
        break;
      } else if (!single && c === 0x22) {
        break;
      } else if (!single && c === 0x5c && isBreak(s, s.bufPos + 1)) {
        endRun(s);
        if (!cache(s, 3)) return undefined;
        skip(s);
        skipLine(s);
        f.leadingBlanks = true;
        break;
      } else if (!single && c === 0x5c) {
        if (!scanEscape(s, start)) return undefined;
      } else {
        beginRun(s);
        advance(s);
        skipPlainASCII(s, single ? singleQuotedStops : doubleQuotedStops);
      }
      if (!cache(s, 2)) return undefined;
    }
    endRun(s);
    if (!cache(s, 1)) return undefined;
    if (at(s, single ? "'" : '"')) break;
    if (!scanBlanks(s, f, start)) return undefined;
    fold(s, f);
  }
  skip(s);
  return { type: 'SCALAR', start, end: copyMark(s.mark), text: takeText(s), style: single ? 'single' : 'double' };
}

function isFlowIndicator(c: number): boolean {
  return c === 0x2c || c === 0x3f || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;
}

/** ASCII characters a scalar loop must look at itself: control characters, DEL, blanks unless kept, and `indicators`. */
function stops(indicators: string, blanks = true): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c <= 0x20; c++) table[c] = 1;
  if (!blanks) table[0x09] = table[0x20] = 0;
  table[0x7f] = 1;
  for (const c of indicators) table[c.charCodeAt(0)] = 1;
  return table;
}

const blockStops = stops('', false);
const plainBlockStops = stops(':');
const plainFlowStops = stops(':,?[]{}');
const singleQuotedStops = stops("'");
const doubleQuotedStops = stops('"\\');

/**
 * Moves past the printable ASCII characters `stop` does not hold while more than two characters stay decoded (so
 * that the loop's cache(2) holds): what the scalar loops would do with each, one check instead of their several.
 */
function skipPlainASCII(s: YamlState, stop: Uint8Array): void {
  while (s.unread > 2) {
    const c = s.buffer[s.bufPos]!;
    if (c >= 0x80 || stop[c] === 1) return;
    s.bufPos++;
    s.mark.index++;
    s.mark.column++;
    s.unread--;
  }
}

function endsPlainRun(s: YamlState): boolean {
  const c = s.at(s.bufPos);
  return (c === 0x3a && isBlankZ(s, s.bufPos + 1)) ||
    (s.flowLevel > 0 && isFlowIndicator(c));
}

export function scanPlainScalar(s: YamlState): Token | undefined {
  s.text = '';
  const f = newFolding();
  const indent = s.indent + 1;
  const start = copyMark(s.mark);
  // the end mark, kept as numbers: it moves with every character
  let endIndex = s.mark.index;
  let endLine = s.mark.line;
  let endColumn = s.mark.column;
  for (;;) {
    if (!cache(s, 4)) return undefined;
    if (isDocumentIndicator(s)) break;
    if (at(s, '#')) break;
    while (!isBlankZ(s, s.bufPos)) {
      if (endsPlainRun(s)) break;
      if (f.leadingBlanks || f.whitespaces.length > 0) {
        fold(s, f);
        f.leadingBlanks = false;
      }
      beginRun(s);
      advance(s);
      skipPlainASCII(s, s.flowLevel > 0 ? plainFlowStops : plainBlockStops);
      endIndex = s.mark.index;
      endLine = s.mark.line;
      endColumn = s.mark.column;
      if (!cache(s, 2)) return undefined;
    }
    endRun(s);
    if (!(isBlank(s, s.bufPos) || isBreak(s, s.bufPos))) break;
    if (!cache(s, 1)) return undefined;
    if (!scanBlanks(s, f, start, indent)) return undefined;
    if (s.flowLevel === 0 && s.mark.column < indent) break;
  }
  if (f.leadingBlanks) s.simpleKeyAllowed = true;
  return { type: 'SCALAR', start, end: { index: endIndex, line: endLine, column: endColumn }, text: takeText(s), style: 'plain' };
}
