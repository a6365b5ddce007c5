// go-yaml v2's scanner (go.yaml.in/yaml/v2 v2.4.3 scannerc.go): the token queue, simple keys, indentation and the
// choice of the next token. Functions keep upstream's names (yaml_parser_fetch_* → fetch*) and its order of checks,
// since that order decides which error a broken document reports. The scalars, tags, anchors and directives are
// scanned in scan-scalars.ts and scan-tags.ts.
import { at, isBlank, isBlankZ, isBOM, isBreak, isBreakZ, isZ, skip, skipLine } from './chars.js';
import { cache } from './reader.js';
import { scanBlockScalar, scanFlowScalar, scanPlainScalar } from './scan-scalars.js';
import { scanAnchor, scanDirective, scanTag } from './scan-tags.js';
import { copyMark } from './state.js';
import type { Mark, SimpleKey, Token, TokenType, YamlState } from './state.js';

const maxFlowLevel = 10000;
const maxIndents = 10000;

/** yaml_insert_token: appends, or inserts `pos` tokens after the queue's head. */
export function insertToken(s: YamlState, pos: number, token: Token): void {
  if (s.tokensHead > 256 && s.tokensHead === s.tokens.length) {
    s.tokens = [];
    s.tokensHead = 0;
  }
  if (pos < 0) s.tokens.push(token);
  else s.tokens.splice(s.tokensHead + pos, 0, token);
}

/** A token at the scanner's mark, or at `mark` (copied: marks in tokens are never changed, so one copy serves both ends). */
function simpleToken(type: TokenType, mark: Mark): Token {
  const at = copyMark(mark);
  return { type, start: at, end: at };
}

/** yaml_parser_fetch_more_tokens: fetch until the head token can no longer turn out to be a simple key. */
export function fetchMoreTokens(s: YamlState): boolean {
  for (;;) {
    if (s.tokensHead !== s.tokens.length) {
      const headTokIdx = s.simpleKeysByTok.get(s.tokensParsed);
      if (headTokIdx === undefined) break;
      const validity = simpleKeyValidity(s, s.simpleKeys[headTokIdx]!);
      if (validity === KeyValidity.Error) return false;
      if (validity === KeyValidity.Invalid) break;
    }
    if (!fetchNextToken(s)) return false;
  }
  s.tokenAvailable = true;
  return true;
}

/** The indicators that cannot start a plain scalar (unless `-`, `?` or `:` is followed by a non-blank). */
const indicators = new Set([...'-?:,[]{}#&*!|>\'"%@`'].map((c) => c.charCodeAt(0)));

const DASH = 0x2d;
const QUESTION = 0x3f;
const COLON = 0x3a;

function isPlainScalarStart(s: YamlState, c: number): boolean {
  return !(isBlankZ(s, s.bufPos) || indicators.has(c)) ||
    (c === DASH && !isBlank(s, s.bufPos + 1)) ||
    (s.flowLevel === 0 && (c === QUESTION || c === COLON) && !isBlankZ(s, s.bufPos + 1));
}

function fetchNextToken(s: YamlState): boolean {
  if (!cache(s, 1)) return false;
  if (!s.streamStartProduced) return fetchStreamStart(s);
  if (!scanToNextToken(s)) return false;
  if (!unrollIndent(s, s.mark.column)) return false;
  if (!cache(s, 4)) return false;
  const pos = s.bufPos;
  if (isZ(s, pos)) return fetchStreamEnd(s);
  // the character is read once; the checks keep upstream's order
  const c = s.at(pos);
  if (s.mark.column === 0 && c === 0x25) return fetchDirective(s);
  if (s.mark.column === 0 && c === DASH && at(s, '-', 1) && at(s, '-', 2) && isBlankZ(s, pos + 3)) return fetchDocumentIndicator(s, 'DOCUMENT_START');
  if (s.mark.column === 0 && c === 0x2e && at(s, '.', 1) && at(s, '.', 2) && isBlankZ(s, pos + 3)) return fetchDocumentIndicator(s, 'DOCUMENT_END');
  switch (c) {
    case 0x5b: return fetchFlowCollectionStart(s, 'FLOW_SEQUENCE_START');
    case 0x7b: return fetchFlowCollectionStart(s, 'FLOW_MAPPING_START');
    case 0x5d: return fetchFlowCollectionEnd(s, 'FLOW_SEQUENCE_END');
    case 0x7d: return fetchFlowCollectionEnd(s, 'FLOW_MAPPING_END');
    case 0x2c: return fetchFlowEntry(s);
    default: break;
  }
  if (c === DASH && isBlankZ(s, pos + 1)) return fetchBlockEntry(s);
  if (c === QUESTION && (s.flowLevel > 0 || isBlankZ(s, pos + 1))) return fetchKey(s);
  if (c === COLON && (s.flowLevel > 0 || isBlankZ(s, pos + 1))) return fetchValue(s);
  switch (c) {
    case 0x2a: return fetchAnchor(s, 'ALIAS');
    case 0x26: return fetchAnchor(s, 'ANCHOR');
    case 0x21: return fetchTag(s);
    case 0x7c: if (s.flowLevel === 0) return fetchBlockScalar(s, true); break;
    case 0x3e: if (s.flowLevel === 0) return fetchBlockScalar(s, false); break;
    case 0x27: return fetchFlowScalar(s, true);
    case 0x22: return fetchFlowScalar(s, false);
    default: break;
  }
  if (isPlainScalarStart(s, c)) return fetchPlainScalar(s);
  return s.setScannerError('while scanning for the next token', s.mark, 'found character that cannot start any token');
}

/** yaml_simple_key_is_valid (valid, not valid, or an error: a required key that went stale). */
const KeyValidity = { Invalid: 0, Valid: 1, Error: 2 } as const;
type KeyValidity = (typeof KeyValidity)[keyof typeof KeyValidity];

function simpleKeyValidity(s: YamlState, key: SimpleKey): KeyValidity {
  if (!key.possible) return KeyValidity.Invalid;
  if (key.mark.line < s.mark.line || key.mark.index + 1024 < s.mark.index) {
    if (key.required) {
      s.setScannerError('while scanning a simple key', key.mark, "could not find expected ':'");
      return KeyValidity.Error;
    }
    key.possible = false;
    return KeyValidity.Invalid;
  }
  return KeyValidity.Valid;
}

function saveSimpleKey(s: YamlState): boolean {
  const required = s.flowLevel === 0 && s.indent === s.mark.column;
  if (s.simpleKeyAllowed) {
    const key: SimpleKey = { possible: true, required, tokenNumber: s.tokensParsed + (s.tokens.length - s.tokensHead), mark: copyMark(s.mark) };
    if (!removeSimpleKey(s)) return false;
    s.simpleKeys[s.simpleKeys.length - 1] = key;
    s.simpleKeysByTok.set(key.tokenNumber, s.simpleKeys.length - 1);
  }
  return true;
}

function removeSimpleKey(s: YamlState): boolean {
  const key = s.simpleKeys[s.simpleKeys.length - 1]!;
  if (key.possible) {
    if (key.required) return s.setScannerError('while scanning a simple key', key.mark, "could not find expected ':'");
    key.possible = false;
    s.simpleKeysByTok.delete(key.tokenNumber);
  }
  return true;
}

function increaseFlowLevel(s: YamlState): boolean {
  s.simpleKeys.push({ possible: false, required: false, tokenNumber: s.tokensParsed + (s.tokens.length - s.tokensHead), mark: copyMark(s.mark) });
  s.flowLevel++;
  if (s.flowLevel > maxFlowLevel) {
    return s.setScannerError('while increasing flow level', s.simpleKeys[s.simpleKeys.length - 1]!.mark, `exceeded max depth of ${maxFlowLevel}`);
  }
  return true;
}

function decreaseFlowLevel(s: YamlState): boolean {
  if (s.flowLevel > 0) {
    s.flowLevel--;
    const last = s.simpleKeys.pop()!;
    s.simpleKeysByTok.delete(last.tokenNumber);
  }
  return true;
}

function rollIndent(s: YamlState, column: number, number: number, type: TokenType, mark: Mark): boolean {
  if (s.flowLevel > 0) return true;
  if (s.indent < column) {
    s.indents.push(s.indent);
    s.indent = column;
    if (s.indents.length > maxIndents) {
      return s.setScannerError('while increasing indent level', s.simpleKeys[s.simpleKeys.length - 1]!.mark, `exceeded max depth of ${maxIndents}`);
    }
    insertToken(s, number > -1 ? number - s.tokensParsed : number, simpleToken(type, mark));
  }
  return true;
}

function unrollIndent(s: YamlState, column: number): boolean {
  if (s.flowLevel > 0) return true;
  while (s.indent > column) {
    insertToken(s, -1, simpleToken('BLOCK_END', s.mark));
    s.indent = s.indents.pop()!;
  }
  return true;
}

function fetchStreamStart(s: YamlState): boolean {
  s.indent = -1;
  s.simpleKeys.push({ possible: false, required: false, tokenNumber: 0, mark: { index: 0, line: 0, column: 0 } });
  s.simpleKeysByTok = new Map();
  s.simpleKeyAllowed = true;
  s.streamStartProduced = true;
  insertToken(s, -1, simpleToken('STREAM_START', s.mark));
  return true;
}

function fetchStreamEnd(s: YamlState): boolean {
  if (s.mark.column !== 0) {
    s.mark.column = 0;
    s.mark.line++;
  }
  if (!unrollIndent(s, -1)) return false;
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  insertToken(s, -1, simpleToken('STREAM_END', s.mark));
  return true;
}

function fetchDirective(s: YamlState): boolean {
  if (!unrollIndent(s, -1)) return false;
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const token = scanDirective(s);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

function fetchDocumentIndicator(s: YamlState, type: TokenType): boolean {
  if (!unrollIndent(s, -1)) return false;
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const start = copyMark(s.mark);
  skip(s);
  skip(s);
  skip(s);
  insertToken(s, -1, { type, start, end: copyMark(s.mark) });
  return true;
}

function fetchFlowCollectionStart(s: YamlState, type: TokenType): boolean {
  if (!saveSimpleKey(s)) return false;
  if (!increaseFlowLevel(s)) return false;
  s.simpleKeyAllowed = true;
  return fetchIndicator(s, type);
}

function fetchFlowCollectionEnd(s: YamlState, type: TokenType): boolean {
  if (!removeSimpleKey(s)) return false;
  if (!decreaseFlowLevel(s)) return false;
  s.simpleKeyAllowed = false;
  return fetchIndicator(s, type);
}

/** A one-character token at the position. */
function fetchIndicator(s: YamlState, type: TokenType): boolean {
  const start = copyMark(s.mark);
  skip(s);
  insertToken(s, -1, { type, start, end: copyMark(s.mark) });
  return true;
}

function fetchFlowEntry(s: YamlState): boolean {
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = true;
  return fetchIndicator(s, 'FLOW_ENTRY');
}

function fetchBlockEntry(s: YamlState): boolean {
  if (s.flowLevel === 0) {
    if (!s.simpleKeyAllowed) return s.setScannerError('', s.mark, 'block sequence entries are not allowed in this context');
    if (!rollIndent(s, s.mark.column, -1, 'BLOCK_SEQUENCE_START', s.mark)) return false;
  }
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = true;
  return fetchIndicator(s, 'BLOCK_ENTRY');
}

function fetchKey(s: YamlState): boolean {
  if (s.flowLevel === 0) {
    if (!s.simpleKeyAllowed) return s.setScannerError('', s.mark, 'mapping keys are not allowed in this context');
    if (!rollIndent(s, s.mark.column, -1, 'BLOCK_MAPPING_START', s.mark)) return false;
  }
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = s.flowLevel === 0;
  return fetchIndicator(s, 'KEY');
}

function fetchValue(s: YamlState): boolean {
  const key = s.simpleKeys[s.simpleKeys.length - 1]!;
  const validity = simpleKeyValidity(s, key);
  if (validity === KeyValidity.Error) return false;
  if (validity === KeyValidity.Valid) {
    insertToken(s, key.tokenNumber - s.tokensParsed, simpleToken('KEY', key.mark));
    if (!rollIndent(s, key.mark.column, key.tokenNumber, 'BLOCK_MAPPING_START', key.mark)) return false;
    key.possible = false;
    s.simpleKeysByTok.delete(key.tokenNumber);
    s.simpleKeyAllowed = false;
  } else {
    if (s.flowLevel === 0) {
      if (!s.simpleKeyAllowed) return s.setScannerError('', s.mark, 'mapping values are not allowed in this context');
      if (!rollIndent(s, s.mark.column, -1, 'BLOCK_MAPPING_START', s.mark)) return false;
    }
    s.simpleKeyAllowed = s.flowLevel === 0;
  }
  return fetchIndicator(s, 'VALUE');
}

function fetchAnchor(s: YamlState, type: 'ALIAS' | 'ANCHOR'): boolean {
  if (!saveSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const token = scanAnchor(s, type);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

function fetchTag(s: YamlState): boolean {
  if (!saveSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const token = scanTag(s);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

function fetchBlockScalar(s: YamlState, literal: boolean): boolean {
  if (!removeSimpleKey(s)) return false;
  s.simpleKeyAllowed = true;
  const token = scanBlockScalar(s, literal);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

function fetchFlowScalar(s: YamlState, single: boolean): boolean {
  if (!saveSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const token = scanFlowScalar(s, single);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

function fetchPlainScalar(s: YamlState): boolean {
  if (!saveSimpleKey(s)) return false;
  s.simpleKeyAllowed = false;
  const token = scanPlainScalar(s);
  if (token === undefined) return false;
  insertToken(s, -1, token);
  return true;
}

/** Skips spaces, comments and line breaks (tabs too where a simple key cannot start); a break re-allows simple keys. */
function scanToNextToken(s: YamlState): boolean {
  for (;;) {
    if (!cache(s, 1)) return false;
    if (s.mark.column === 0 && isBOM(s)) skip(s);
    if (!cache(s, 1)) return false;
    while (at(s, ' ') || ((s.flowLevel > 0 || !s.simpleKeyAllowed) && at(s, '\t'))) {
      skip(s);
      if (!cache(s, 1)) return false;
    }
    if (at(s, '#')) {
      while (!isBreakZ(s, s.bufPos)) {
        skip(s);
        if (!cache(s, 1)) return false;
      }
    }
    if (!isBreak(s, s.bufPos)) return true;
    if (!cache(s, 2)) return false;
    skipLine(s);
    if (s.flowLevel === 0) s.simpleKeyAllowed = true;
  }
}
