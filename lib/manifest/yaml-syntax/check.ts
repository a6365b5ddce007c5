// Whether go-yaml v2 can read a YAML document, and if not, the error it reports: the port of what
// go.yaml.in/yaml/v2 v2.4.3 (via sigs.k8s.io/yaml v1.6.0 YAMLToJSON, as apimachinery's YAML serializer calls it)
// does before it builds any value: decode.go's parser reads the first document's events, failing on the reader's,
// the scanner's and the parser's errors and on an alias to an anchor not yet defined, worded by parser.fail().
import { EventParser } from './parser.js';
import type { YamlEvent } from './parser.js';
import { YamlState } from './state.js';

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

/**
 * Reads the events of the first document of `input` as decode.go's parser.parse() does, and returns the error
 * go-yaml v2 fails with, or undefined when the document parses. What upstream checks only while building values
 * (merge keys, alias expansion limits, recursive anchors) is not decided here.
 */
export function yamlSyntaxError(input: Uint8Array): YamlSyntaxError | undefined {
  // newParser: an empty input is read as a single line break
  const s = new YamlState(input.length === 0 ? Uint8Array.of(0x0a) : input);
  const parser = new EventParser(s);
  const next = (): YamlEvent | undefined => {
    const event = parser.next();
    if (event === false) throw failure(s);
    return event;
  };
  try {
    const start = next();
    if (start?.type !== 'STREAM_START') return undefined;
    const documentStart = next();
    if (documentStart?.type !== 'DOCUMENT_START') return undefined;
    const anchors = new Set<string>();
    let depth = 0;
    do {
      const event = next();
      if (event === undefined) return undefined;
      switch (event.type) {
        case 'ALIAS':
          if (!anchors.has(event.anchor ?? '')) return new YamlSyntaxError(`yaml: unknown anchor '${event.anchor ?? ''}' referenced`);
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
    next(); // the document's end
    return undefined;
  } catch (err) {
    if (err instanceof YamlSyntaxError) return err;
    throw err;
  }
}
