// Whether go-yaml v2 can read a YAML document, and if not, the error it reports: the port of what
// go.yaml.in/yaml/v2 v2.4.3 (via sigs.k8s.io/yaml v1.6.0 YAMLToJSON, as apimachinery's YAML serializer calls it)
// does before it builds any value: decode.go's parser reads the first document's events, failing on the reader's,
// the scanner's and the parser's errors and on an alias to an anchor not yet defined, worded by parser.fail().
import { EventParser } from './parser.js';
import type { YamlEvent } from './parser.js';
import { YamlState } from './state.js';
import type { ScratchBuffers } from './state.js';

/** The reader's buffers, reused by one read after another (allocating 2 KiB per document showed in profiles). */
let spare: ScratchBuffers | undefined;

/** A document go-yaml v2 refuses while parsing; the message is upstream's error text (`yaml: line N: …`). */
export class YamlSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlSyntaxError';
  }
}

/**
 * parser.fail() in decode.go: the problem's line, 1-based for scanner errors only (a quirk upstream keeps: a parser
 * error names the line before the problem's), else the context's line, and no line at all when that is 0.
 */
function failure(s: YamlState): YamlSyntaxError {
  let line = 0;
  if (s.problemMark.line !== 0) {
    line = s.problemMark.line + (s.error === 'scanner' ? 1 : 0);
  } else if (s.contextMark.line !== 0) {
    line = s.contextMark.line;
  }
  const where = line !== 0 ? `line ${line}: ` : '';
  return new YamlSyntaxError(`yaml: ${where}${s.problem.length > 0 ? s.problem : 'unknown problem parsing YAML content'}`);
}

/** What go-yaml v2 makes of a YAML text before building values: the error it fails with, or where its document ends. */
export type FirstDocument =
  | { readonly error: YamlSyntaxError }
  | {
    readonly error?: undefined;
    /**
     * Characters (code points, a CR LF counting two) read before the first document's end: go-yaml decodes that
     * document alone, so a directive, `---` or `...` inside the text ends what it reads there.
     */
    readonly end: number;
  };

/** The error go-yaml v2 fails with while reading `input`'s first document, if any. */
export function yamlSyntaxError(input: Uint8Array): YamlSyntaxError | undefined {
  return readFirstDocument(input).error;
}

/**
 * Reads the events of the first document of `input` as decode.go's parser.parse() does. What upstream checks only
 * while building values (merge keys, alias expansion limits, recursive anchors) is not decided here.
 */
export function readFirstDocument(input: Uint8Array): FirstDocument {
  // newParser: an empty input is read as a single line break
  const s = new YamlState(input.length === 0 ? Uint8Array.of(0x0a) : input, spare);
  spare = undefined;
  const parser = new EventParser(s);
  const next = (): YamlEvent | undefined => {
    const event = parser.next();
    if (event === false) throw failure(s);
    return event;
  };
  try {
    const whole = { end: Infinity };
    const start = next();
    if (start?.type !== 'STREAM_START') return whole;
    const documentStart = next();
    if (documentStart?.type !== 'DOCUMENT_START') return whole;
    const anchors = new Set<string>();
    let depth = 0;
    do {
      const event = next();
      if (event === undefined) return whole;
      switch (event.type) {
        case 'ALIAS':
          if (!anchors.has(event.anchor ?? '')) return { error: new YamlSyntaxError(`yaml: unknown anchor '${event.anchor ?? ''}' referenced`) };
          break;
        case 'MAPPING_START':
        case 'SEQUENCE_START':
          depth++;
          break;
        case 'MAPPING_END':
        case 'SEQUENCE_END':
          depth--;
          break;
        default:
          break;
      }
      if (event.anchor !== undefined && event.type !== 'ALIAS') anchors.add(event.anchor);
    } while (depth > 0);
    const documentEnd = next();
    return { end: documentEnd?.type === 'DOCUMENT_END' ? documentEnd.start.index : Infinity };
  } catch (err) {
    if (err instanceof YamlSyntaxError) return { error: err };
    throw err;
  } finally {
    spare = s.buffers;
  }
}
