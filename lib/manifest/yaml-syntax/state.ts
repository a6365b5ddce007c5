// The state go-yaml v2 keeps in one yaml_parser_t (go.yaml.in/yaml/v2 v2.4.3 yamlh.go), shared by the reader, the
// scanner and the parser of this port: what decides whether, where and why go-yaml fails, and the scalar being read.
// The byte buffers are laid out as upstream's so that the moment an error surfaces (and so which error wins) is the same.

export interface Mark {
  index: number;
  line: number;
  column: number;
}

export type TokenType =
  | 'STREAM_START' | 'STREAM_END' | 'VERSION_DIRECTIVE' | 'TAG_DIRECTIVE' | 'DOCUMENT_START' | 'DOCUMENT_END'
  | 'BLOCK_SEQUENCE_START' | 'BLOCK_MAPPING_START' | 'BLOCK_END' | 'FLOW_SEQUENCE_START' | 'FLOW_SEQUENCE_END'
  | 'FLOW_MAPPING_START' | 'FLOW_MAPPING_END' | 'BLOCK_ENTRY' | 'FLOW_ENTRY' | 'KEY' | 'VALUE' | 'ALIAS' | 'ANCHOR'
  | 'TAG' | 'SCALAR';

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded';

export interface Token {
  readonly type: TokenType;
  readonly start: Mark;
  readonly end: Mark;
  /** anchor or alias name, tag handle, %TAG handle */
  readonly value?: readonly number[];
  /** a scalar's value */
  readonly text?: string;
  /** tag suffix */
  readonly suffix?: readonly number[];
  /** %TAG prefix */
  readonly prefix?: readonly number[];
  readonly style?: ScalarStyle;
  readonly major?: number;
  readonly minor?: number;
}

export interface SimpleKey {
  possible: boolean;
  required: boolean;
  tokenNumber: number;
  mark: Mark;
}

export type ErrorKind = 'none' | 'reader' | 'scanner' | 'parser';

/** Buffer's own UTF-8 decoder of a range (what toString('utf8', start, end) calls after checking its arguments). */
declare module 'node:buffer' {
  interface Buffer {
    utf8Slice(start: number, end: number): string;
  }
}

/** input_raw_buffer_size and input_buffer_size (yamlprivateh.go): the reader decodes the input 512 bytes at a time. */
export const rawBufferSize = 512;
export const bufferSize = rawBufferSize * 3;

/** The reader's two buffers; every position read is written first, so they can be reused from state to state. */
export interface ScratchBuffers {
  readonly raw: Uint8Array;
  readonly buffer: Buffer;
}

export type Encoding = 'any' | 'utf8' | 'utf16le' | 'utf16be';

export class YamlState {
  // reader (readerc.go)
  readonly input: Uint8Array;
  inputPos = 0;
  readonly raw: Uint8Array;
  rawLen = 0;
  rawPos = 0;
  eof = false;
  encoding: Encoding = 'any';
  /** decoded UTF-8; a little slack past input_buffer_size for the look-ahead padding */
  readonly buffer: Buffer;
  bufLen = 0;
  bufPos = 0;
  unread = 0;
  offset = 0;

  // errors
  error: ErrorKind = 'none';
  problem = '';
  problemMark: Mark = { index: 0, line: 0, column: 0 };
  context = '';
  contextMark: Mark = { index: 0, line: 0, column: 0 };

  // scanner (scannerc.go)
  mark: Mark = { index: 0, line: 0, column: 0 };
  streamStartProduced = false;
  streamEndProduced = false;
  flowLevel = 0;
  tokens: Token[] = [];
  tokensHead = 0;
  tokensParsed = 0;
  tokenAvailable = false;
  indent = 0;
  indents: number[] = [];
  simpleKeyAllowed = false;
  simpleKeys: SimpleKey[] = [];
  simpleKeysByTok = new Map<number, number>();

  // the scalar being scanned: what is collected so far, and where in `buffer` a run of characters copied as they are
  // began (-1: none open); the reader flushes an open run before it moves the buffer
  text = '';
  runStart = -1;

  /** `buffers`: scratch space to reuse (what a previous, finished state used), else new */
  /**
   * The input as a string where every byte of it is ASCII (so a position in the input is one in the string), and the
   * input position of buffer[0]: a scalar's runs are then cut from the string, which costs less than decoding them.
   */
  readonly source: string | undefined;
  bufferStart = 0;

  constructor(input: Uint8Array, buffers?: ScratchBuffers, asciiSource?: string) {
    this.input = input;
    this.source = asciiSource;
    this.raw = buffers?.raw ?? new Uint8Array(rawBufferSize);
    this.buffer = buffers?.buffer ?? Buffer.alloc(bufferSize + 16);
  }

  get buffers(): ScratchBuffers {
    return { raw: this.raw, buffer: this.buffer };
  }

  /** buffer[i], 0 past what is decoded (upstream pads with NULs where it looks ahead) */
  at(i: number): number {
    return i < this.bufLen ? this.buffer[i]! : 0;
  }

  setScannerError(context: string, contextMark: Mark, problem: string): false {
    this.error = 'scanner';
    this.context = context;
    this.contextMark = contextMark;
    this.problem = problem;
    this.problemMark = { ...this.mark };
    return false;
  }
}

export function copyMark(m: Mark): Mark {
  return { index: m.index, line: m.line, column: m.column };
}

/** Opens a run of characters to copy into the scalar's text as they are (no-op when one is open). */
export function beginRun(s: YamlState): void {
  if (s.runStart < 0) s.runStart = s.bufPos;
}

/** Closes the open run, appending its characters to the scalar's text. */
export function endRun(s: YamlState): void {
  if (s.runStart < 0) return;
  if (s.bufPos > s.runStart) {
    s.text += s.source === undefined ? s.buffer.utf8Slice(s.runStart, s.bufPos) : s.source.slice(s.bufferStart + s.runStart, s.bufferStart + s.bufPos);
  }
  s.runStart = -1;
}

/** Appends `text` to the scalar's text after what is collected so far. */
export function appendText(s: YamlState, text: string): void {
  endRun(s);
  s.text += text;
}

/** The scalar's text, reset for the next one. */
export function takeText(s: YamlState): string {
  endRun(s);
  const text = s.text;
  s.text = '';
  return text;
}
