// Moving through the decoded buffer and classifying its bytes, as scannerc.go's skip/read helpers and
// yamlprivateh.go's is_* predicates do (go.yaml.in/yaml/v2 v2.4.3). Marks count characters, not bytes.
import type { YamlState } from './state.js';

export function width(b: number): number {
  if ((b & 0x80) === 0) return 1;
  if ((b & 0xe0) === 0xc0) return 2;
  if ((b & 0xf0) === 0xe0) return 3;
  if ((b & 0xf8) === 0xf0) return 4;
  return 0;
}

const ch = (c: string): number => c.charCodeAt(0);

export function isAlpha(s: YamlState, i: number): boolean {
  const b = s.at(i);
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f || b === 0x2d;
}

export function isDigit(s: YamlState, i: number): boolean {
  const b = s.at(i);
  return b >= 0x30 && b <= 0x39;
}

export function isHex(s: YamlState, i: number): boolean {
  const b = s.at(i);
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
}

export function asHex(s: YamlState, i: number): number {
  const b = s.at(i);
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return b - 0x30;
}

export const isZ = (s: YamlState, i: number): boolean => s.at(i) === 0;
/** is_bom looks at the start of the buffer, whatever i is (yamlprivateh.go). */
export const isBOM = (s: YamlState): boolean => s.at(0) === 0xef && s.at(1) === 0xbb && s.at(2) === 0xbf;
export const isSpace = (s: YamlState, i: number): boolean => s.at(i) === 0x20;
export const isTab = (s: YamlState, i: number): boolean => s.at(i) === 0x09;
export const isBlank = (s: YamlState, i: number): boolean => s.at(i) === 0x20 || s.at(i) === 0x09;

export function isBreak(s: YamlState, i: number): boolean {
  const b = s.at(i);
  return b === 0x0d || b === 0x0a || (b === 0xc2 && s.at(i + 1) === 0x85) ||
    (b === 0xe2 && s.at(i + 1) === 0x80 && (s.at(i + 2) === 0xa8 || s.at(i + 2) === 0xa9));
}

export const isCRLF = (s: YamlState, i: number): boolean => s.at(i) === 0x0d && s.at(i + 1) === 0x0a;
export const isBreakZ = (s: YamlState, i: number): boolean => isBreak(s, i) || isZ(s, i);
export const isBlankZ = (s: YamlState, i: number): boolean => isBlank(s, i) || isBreakZ(s, i);

/** The byte at the scanner's position is the ASCII character c. */
export const at = (s: YamlState, c: string, offset = 0): boolean => s.at(s.bufPos + offset) === ch(c);

export function skip(s: YamlState): void {
  s.mark.index++;
  s.mark.column++;
  s.unread--;
  s.bufPos += width(s.at(s.bufPos));
}

export function skipLine(s: YamlState): void {
  if (isCRLF(s, s.bufPos)) {
    s.mark.index += 2;
    s.mark.column = 0;
    s.mark.line++;
    s.unread -= 2;
    s.bufPos += 2;
  } else if (isBreak(s, s.bufPos)) {
    s.mark.index++;
    s.mark.column = 0;
    s.mark.line++;
    s.unread--;
    s.bufPos += width(s.at(s.bufPos));
  }
}

/** Appends the character at the position to `out` and moves past it. */
export function read(s: YamlState, out: number[]): void {
  const w = width(s.at(s.bufPos));
  if (w === 0) throw new Error('invalid character sequence');
  for (let k = 0; k < w; k++) out.push(s.at(s.bufPos + k));
  advance(s);
}

/** Moves past the character at the position (read() without collecting it: a scalar's run copies it later). */
export function advance(s: YamlState): void {
  const w = width(s.at(s.bufPos));
  if (w === 0) throw new Error('invalid character sequence');
  s.bufPos += w;
  s.mark.index++;
  s.mark.column++;
  s.unread--;
}

/** The text of collected bytes (blanks and line breaks: mostly ASCII). */
export function bytesText(bytes: readonly number[]): string {
  let ascii = '';
  for (const b of bytes) {
    if (b >= 0x80) return Buffer.from(bytes).toString('utf8');
    ascii += String.fromCharCode(b);
  }
  return ascii;
}

/** Appends the line break at the position (CR LF, CR, LF and NEL as '\n'; LS and PS as they are) and moves past it. */
export function readLine(s: YamlState, out: number[]): void {
  const pos = s.bufPos;
  const b = s.at(pos);
  if (b === 0x0d && s.at(pos + 1) === 0x0a) {
    out.push(0x0a);
    s.bufPos += 2;
    s.mark.index++;
    s.unread--;
  } else if (b === 0x0d || b === 0x0a) {
    out.push(0x0a);
    s.bufPos += 1;
  } else if (b === 0xc2 && s.at(pos + 1) === 0x85) {
    out.push(0x0a);
    s.bufPos += 2;
  } else if (b === 0xe2 && s.at(pos + 1) === 0x80 && (s.at(pos + 2) === 0xa8 || s.at(pos + 2) === 0xa9)) {
    out.push(b, s.at(pos + 1), s.at(pos + 2));
    s.bufPos += 3;
  } else {
    return;
  }
  s.mark.index++;
  s.mark.column = 0;
  s.mark.line++;
  s.unread--;
}
