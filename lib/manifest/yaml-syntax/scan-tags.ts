// go-yaml v2's scanning of directives, anchors, aliases and tags (go.yaml.in/yaml/v2 v2.4.3 scannerc.go,
// yaml_parser_scan_directive … yaml_parser_scan_uri_escapes), with upstream's messages and context marks.
import { asHex, at, isAlpha, isBlank, isBlankZ, isBreak, isBreakZ, isDigit, isHex, read, skip, skipLine, width } from './chars.js';
import { cache } from './reader.js';
import { copyMark } from './state.js';
import type { Mark, Token, YamlState } from './state.js';

function tagError(s: YamlState, directive: boolean, start: Mark, problem: string): undefined {
  s.setScannerError(directive ? 'while parsing a %TAG directive' : 'while parsing a tag', start, problem);
  return undefined;
}

function skipBlanks(s: YamlState): boolean {
  while (isBlank(s, s.bufPos)) {
    skip(s);
    if (!cache(s, 1)) return false;
  }
  return true;
}

export function scanDirective(s: YamlState): Token | undefined {
  const start = copyMark(s.mark);
  skip(s);
  const name = scanDirectiveName(s, start);
  if (name === undefined) return undefined;
  let token: Token;
  if (name === 'YAML') {
    const version = scanVersionDirectiveValue(s, start);
    if (version === undefined) return undefined;
    token = { type: 'VERSION_DIRECTIVE', start, end: copyMark(s.mark), major: version[0], minor: version[1] };
  } else if (name === 'TAG') {
    const tag = scanTagDirectiveValue(s, start);
    if (tag === undefined) return undefined;
    token = { type: 'TAG_DIRECTIVE', start, end: copyMark(s.mark), value: tag[0], prefix: tag[1] };
  } else {
    s.setScannerError('while scanning a directive', start, 'found unknown directive name');
    return undefined;
  }
  if (!cache(s, 1)) return undefined;
  if (!skipBlanks(s)) return undefined;
  if (at(s, '#')) {
    while (!isBreakZ(s, s.bufPos)) {
      skip(s);
      if (!cache(s, 1)) return undefined;
    }
  }
  if (!isBreakZ(s, s.bufPos)) {
    s.setScannerError('while scanning a directive', start, 'did not find expected comment or line break');
    return undefined;
  }
  if (isBreak(s, s.bufPos)) {
    if (!cache(s, 2)) return undefined;
    skipLine(s);
  }
  return token;
}

function scanDirectiveName(s: YamlState, start: Mark): string | undefined {
  if (!cache(s, 1)) return undefined;
  const name: number[] = [];
  while (isAlpha(s, s.bufPos)) {
    read(s, name);
    if (!cache(s, 1)) return undefined;
  }
  if (name.length === 0) {
    s.setScannerError('while scanning a directive', start, 'could not find expected directive name');
    return undefined;
  }
  if (!isBlankZ(s, s.bufPos)) {
    s.setScannerError('while scanning a directive', start, 'found unexpected non-alphabetical character');
    return undefined;
  }
  return String.fromCharCode(...name);
}

function scanVersionDirectiveValue(s: YamlState, start: Mark): [number, number] | undefined {
  if (!cache(s, 1)) return undefined;
  if (!skipBlanks(s)) return undefined;
  const major = scanVersionDirectiveNumber(s, start);
  if (major === undefined) return undefined;
  if (!at(s, '.')) {
    s.setScannerError('while scanning a %YAML directive', start, "did not find expected digit or '.' character");
    return undefined;
  }
  skip(s);
  const minor = scanVersionDirectiveNumber(s, start);
  if (minor === undefined) return undefined;
  return [major, minor];
}

function scanVersionDirectiveNumber(s: YamlState, start: Mark): number | undefined {
  if (!cache(s, 1)) return undefined;
  let value = 0;
  let length = 0;
  while (isDigit(s, s.bufPos)) {
    length++;
    if (length > 2) {
      s.setScannerError('while scanning a %YAML directive', start, 'found extremely long version number');
      return undefined;
    }
    value = value * 10 + (s.at(s.bufPos) - 0x30);
    skip(s);
    if (!cache(s, 1)) return undefined;
  }
  if (length === 0) {
    s.setScannerError('while scanning a %YAML directive', start, 'did not find expected version number');
    return undefined;
  }
  return value;
}

function scanTagDirectiveValue(s: YamlState, start: Mark): [number[], number[]] | undefined {
  if (!cache(s, 1)) return undefined;
  if (!skipBlanks(s)) return undefined;
  const handle = scanTagHandle(s, true, start);
  if (handle === undefined) return undefined;
  if (!cache(s, 1)) return undefined;
  if (!isBlank(s, s.bufPos)) {
    s.setScannerError('while scanning a %TAG directive', start, 'did not find expected whitespace');
    return undefined;
  }
  if (!skipBlanks(s)) return undefined;
  const prefix = scanTagURI(s, true, undefined, start);
  if (prefix === undefined) return undefined;
  if (!cache(s, 1)) return undefined;
  if (!isBlankZ(s, s.bufPos)) {
    s.setScannerError('while scanning a %TAG directive', start, 'did not find expected whitespace or line break');
    return undefined;
  }
  return [handle, prefix];
}

/** An anchor's or alias's name: alphanumerics, `_` and `-`, followed by a blank or one of `?:,]}%@` and a backquote. */
export function scanAnchor(s: YamlState, type: 'ALIAS' | 'ANCHOR'): Token | undefined {
  const name: number[] = [];
  const start = copyMark(s.mark);
  skip(s);
  if (!cache(s, 1)) return undefined;
  while (isAlpha(s, s.bufPos)) {
    read(s, name);
    if (!cache(s, 1)) return undefined;
  }
  const end = copyMark(s.mark);
  const follows = isBlankZ(s, s.bufPos) || at(s, '?') || at(s, ':') || at(s, ',') || at(s, ']') || at(s, '}') || at(s, '%') || at(s, '@') || at(s, '`');
  if (name.length === 0 || !follows) {
    s.setScannerError(type === 'ANCHOR' ? 'while scanning an anchor' : 'while scanning an alias', start, 'did not find expected alphabetic or numeric character');
    return undefined;
  }
  return { type, start, end, value: name };
}

export function scanTag(s: YamlState): Token | undefined {
  let handle: number[];
  let suffix: number[];
  const start = copyMark(s.mark);
  if (!cache(s, 2)) return undefined;
  if (at(s, '<', 1)) {
    handle = [];
    skip(s);
    skip(s);
    const uri = scanTagURI(s, false, undefined, start);
    if (uri === undefined) return undefined;
    suffix = uri;
    if (!at(s, '>')) {
      s.setScannerError('while scanning a tag', start, "did not find the expected '>'");
      return undefined;
    }
    skip(s);
  } else {
    const h = scanTagHandle(s, false, start);
    if (h === undefined) return undefined;
    if (h[0] === 0x21 && h.length > 1 && h[h.length - 1] === 0x21) {
      const uri = scanTagURI(s, false, undefined, start);
      if (uri === undefined) return undefined;
      handle = h;
      suffix = uri;
    } else {
      const uri = scanTagURI(s, false, h, start);
      if (uri === undefined) return undefined;
      handle = [0x21];
      suffix = uri;
      if (suffix.length === 0) [handle, suffix] = [suffix, handle];
    }
  }
  if (!cache(s, 1)) return undefined;
  if (!isBlankZ(s, s.bufPos)) {
    s.setScannerError('while scanning a tag', start, 'did not find expected whitespace or line break');
    return undefined;
  }
  return { type: 'TAG', start, end: copyMark(s.mark), value: handle, suffix };
}

function scanTagHandle(s: YamlState, directive: boolean, start: Mark): number[] | undefined {
  if (!cache(s, 1)) return undefined;
  if (!at(s, '!')) return tagError(s, directive, start, "did not find expected '!'");
  const handle: number[] = [];
  read(s, handle);
  if (!cache(s, 1)) return undefined;
  while (isAlpha(s, s.bufPos)) {
    read(s, handle);
    if (!cache(s, 1)) return undefined;
  }
  if (at(s, '!')) read(s, handle);
  else if (directive && !(handle.length === 1 && handle[0] === 0x21)) return tagError(s, directive, start, "did not find expected '!'");
  return handle;
}

const uriChars = new Set(Array.from(";/?:@&=+$,.!~*'()[]%", (c) => c.charCodeAt(0)));

function scanTagURI(s: YamlState, directive: boolean, head: number[] | undefined, start: Mark): number[] | undefined {
  const uri: number[] = [];
  let hasTag = head !== undefined && head.length > 0;
  if (head !== undefined && head.length > 1) uri.push(...head.slice(1));
  if (!cache(s, 1)) return undefined;
  while (isAlpha(s, s.bufPos) || uriChars.has(s.at(s.bufPos))) {
    if (at(s, '%')) {
      if (!scanURIEscapes(s, directive, start, uri)) return undefined;
    } else {
      read(s, uri);
    }
    if (!cache(s, 1)) return undefined;
    hasTag = true;
  }
  if (!hasTag) return tagError(s, directive, start, 'did not find expected tag URI');
  return uri;
}

function scanURIEscapes(s: YamlState, directive: boolean, start: Mark, out: number[]): boolean {
  let w = 1024;
  while (w > 0) {
    if (!cache(s, 3)) return false;
    if (!(at(s, '%') && isHex(s, s.bufPos + 1) && isHex(s, s.bufPos + 2))) {
      tagError(s, directive, start, 'did not find URI escaped octet');
      return false;
    }
    const octet = (asHex(s, s.bufPos + 1) << 4) + asHex(s, s.bufPos + 2);
    if (w === 1024) {
      w = width(octet);
      if (w === 0) {
        tagError(s, directive, start, 'found an incorrect leading UTF-8 octet');
        return false;
      }
    } else if ((octet & 0xc0) !== 0x80) {
      tagError(s, directive, start, 'found an incorrect trailing UTF-8 octet');
      return false;
    }
    out.push(octet);
    skip(s);
    skip(s);
    skip(s);
    w--;
  }
  return true;
}
