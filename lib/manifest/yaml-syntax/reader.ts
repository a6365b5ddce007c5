// go-yaml v2's reader (go.yaml.in/yaml/v2 v2.4.3 readerc.go): the input decoded into a UTF-8 buffer one raw chunk at a
// time, with upstream's checks (encoding, UTF-8 sequences, characters YAML does not allow). A reader error carries no
// mark, so upstream reports it without a line; it surfaces when the scanner first needs the chunk that holds it.
import { endRun, rawBufferSize } from './state.js';
import type { YamlState } from './state.js';

function readerError(s: YamlState, problem: string): false {
  s.error = 'reader';
  s.problem = problem;
  return false;
}

/** yaml_parser_update_raw_buffer over a string input (yaml_string_read_handler). */
function updateRawBuffer(s: YamlState): boolean {
  if (s.rawPos === 0 && s.rawLen === rawBufferSize) return true;
  if (s.eof) return true;
  if (s.rawPos > 0 && s.rawPos < s.rawLen) s.raw.copyWithin(0, s.rawPos, s.rawLen);
  s.rawLen -= s.rawPos;
  s.rawPos = 0;
  if (s.inputPos === s.input.length) {
    s.eof = true;
    return true;
  }
  const n = Math.min(rawBufferSize - s.rawLen, s.input.length - s.inputPos);
  s.raw.set(s.input.subarray(s.inputPos, s.inputPos + n), s.rawLen);
  s.inputPos += n;
  s.rawLen += n;
  return true;
}

/** yaml_parser_determine_encoding: a BOM picks UTF-16 or is skipped; UTF-8 otherwise. */
function determineEncoding(s: YamlState): boolean {
  while (!s.eof && s.rawLen - s.rawPos < 3) {
    if (!updateRawBuffer(s)) return false;
  }
  const b = s.raw;
  const pos = s.rawPos;
  const avail = s.rawLen - pos;
  if (avail >= 2 && b[pos] === 0xff && b[pos + 1] === 0xfe) {
    s.encoding = 'utf16le';
    s.rawPos += 2;
    s.offset += 2;
  } else if (avail >= 2 && b[pos] === 0xfe && b[pos + 1] === 0xff) {
    s.encoding = 'utf16be';
    s.rawPos += 2;
    s.offset += 2;
  } else if (avail >= 3 && b[pos] === 0xef && b[pos + 1] === 0xbb && b[pos + 2] === 0xbf) {
    s.encoding = 'utf8';
    s.rawPos += 3;
    s.offset += 3;
  } else {
    s.encoding = 'utf8';
  }
  return true;
}

type Decoded = { value: number; width: number } | 'incomplete' | false;

function decodeUTF8(s: YamlState, rawUnread: number): Decoded {
  const raw = s.raw;
  const pos = s.rawPos;
  let octet = raw[pos]!;
  const width = (octet & 0x80) === 0 ? 1 : (octet & 0xe0) === 0xc0 ? 2 : (octet & 0xf0) === 0xe0 ? 3 : (octet & 0xf8) === 0xf0 ? 4 : 0;
  if (width === 0) return readerError(s, 'invalid leading UTF-8 octet');
  if (width > rawUnread) return s.eof ? readerError(s, 'incomplete UTF-8 octet sequence') : 'incomplete';
  let value = width === 1 ? octet & 0x7f : width === 2 ? octet & 0x1f : width === 3 ? octet & 0x0f : octet & 0x07;
  for (let k = 1; k < width; k++) {
    octet = raw[pos + k]!;
    if ((octet & 0xc0) !== 0x80) return readerError(s, 'invalid trailing UTF-8 octet');
    value = (value << 6) + (octet & 0x3f);
  }
  if (!(width === 1 || (width === 2 && value >= 0x80) || (width === 3 && value >= 0x800) || (width === 4 && value >= 0x10000))) {
    return readerError(s, 'invalid length of a UTF-8 sequence');
  }
  if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return readerError(s, 'invalid Unicode character');
  return { value, width };
}

function decodeUTF16(s: YamlState, rawUnread: number): Decoded {
  const [low, high] = s.encoding === 'utf16le' ? [0, 1] : [1, 0];
  const raw = s.raw;
  const pos = s.rawPos;
  if (rawUnread < 2) return s.eof ? readerError(s, 'incomplete UTF-16 character') : 'incomplete';
  let value = raw[pos + low]! + (raw[pos + high]! << 8);
  if ((value & 0xfc00) === 0xdc00) return readerError(s, 'unexpected low surrogate area');
  if ((value & 0xfc00) !== 0xd800) return { value, width: 2 };
  if (rawUnread < 4) return s.eof ? readerError(s, 'incomplete UTF-16 surrogate pair') : 'incomplete';
  const value2 = raw[pos + low + 2]! + (raw[pos + high + 2]! << 8);
  if ((value2 & 0xfc00) !== 0xdc00) return readerError(s, 'expected low surrogate area');
  value = 0x10000 + ((value & 0x3ff) << 10) + (value2 & 0x3ff);
  return { value, width: 4 };
}

/** The characters YAML allows in a stream (the printable set, tab and line breaks). */
function allowed(v: number): boolean {
  return v === 0x09 || v === 0x0a || v === 0x0d || (v >= 0x20 && v <= 0x7e) || v === 0x85 || (v >= 0xa0 && v <= 0xd7ff) ||
    (v >= 0xe000 && v <= 0xfffd) || (v >= 0x10000 && v <= 0x10ffff);
}

function put(s: YamlState, at: number, value: number): number {
  const b = s.buffer;
  if (value <= 0x7f) {
    b[at] = value;
    return 1;
  }
  if (value <= 0x7ff) {
    b[at] = 0xc0 + (value >> 6);
    b[at + 1] = 0x80 + (value & 0x3f);
    return 2;
  }
  if (value <= 0xffff) {
    b[at] = 0xe0 + (value >> 12);
    b[at + 1] = 0x80 + ((value >> 6) & 0x3f);
    b[at + 2] = 0x80 + (value & 0x3f);
    return 3;
  }
  b[at] = 0xf0 + (value >> 18);
  b[at + 1] = 0x80 + ((value >> 12) & 0x3f);
  b[at + 2] = 0x80 + ((value >> 6) & 0x3f);
  b[at + 3] = 0x80 + (value & 0x3f);
  return 4;
}

/**
 * yaml_parser_update_buffer: makes at least `length` characters available at bufPos, decoding whole raw chunks (so a
 * bad byte anywhere in the chunk fails the call), and NUL-padding at the end of the input.
 */
export function updateBuffer(s: YamlState, length: number): boolean {
  if (s.unread >= length) return true;
  if (s.encoding === 'any' && !determineEncoding(s)) return false;
  let bufferLen = s.bufLen;
  // a scalar's open run is copied out before the buffer moves under it, and goes on from the new position
  const run = s.runStart >= 0;
  if (run) endRun(s);
  if (s.bufPos > 0 && s.bufPos < bufferLen) {
    s.buffer.copyWithin(0, s.bufPos, bufferLen);
    bufferLen -= s.bufPos;
    s.bufferStart += s.bufPos;
    s.bufPos = 0;
  } else if (s.bufPos === bufferLen) {
    bufferLen = 0;
    s.bufferStart += s.bufPos;
    s.bufPos = 0;
  }
  if (run) s.runStart = s.bufPos;
  let first = true;
  while (s.unread < length) {
    if (!first || s.rawPos === s.rawLen) {
      if (!updateRawBuffer(s)) {
        s.bufLen = bufferLen;
        return false;
      }
    }
    first = false;
    while (s.rawPos !== s.rawLen) {
      // printable ASCII, tab and line breaks: one byte as it is (the common case, without decoding)
      const octet = s.raw[s.rawPos]!;
      if (s.encoding === 'utf8' && ((octet >= 0x20 && octet <= 0x7e) || octet === 0x0a || octet === 0x0d || octet === 0x09)) {
        s.rawPos++;
        s.offset++;
        s.buffer[bufferLen++] = octet;
        s.unread++;
        continue;
      }
      const rawUnread = s.rawLen - s.rawPos;
      const decoded = s.encoding === 'utf8' ? decodeUTF8(s, rawUnread) : decodeUTF16(s, rawUnread);
      if (decoded === false) return false;
      if (decoded === 'incomplete') break;
      if (!allowed(decoded.value)) return readerError(s, 'control characters are not allowed');
      s.rawPos += decoded.width;
      s.offset += decoded.width;
      bufferLen += put(s, bufferLen, decoded.value);
      s.unread++;
    }
    if (s.eof) {
      s.buffer[bufferLen++] = 0;
      s.unread++;
      break;
    }
  }
  while (bufferLen < length) s.buffer[bufferLen++] = 0;
  s.bufLen = bufferLen;
  return true;
}

/** cache(): at least `length` characters decoded ahead. */
export function cache(s: YamlState, length: number): boolean {
  return s.unread >= length || updateBuffer(s, length);
}
