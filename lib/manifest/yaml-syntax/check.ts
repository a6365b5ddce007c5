// Whether go-yaml v2 can read a YAML document, and if so its first document's nodes: the port of what
// go.yaml.in/yaml/v2 v2.4.3 (via sigs.k8s.io/yaml v1.6.0 YAMLToJSON, as apimachinery's YAML serializer calls it)
// does before it decodes any value: decode.go's parser reads the first document's events into nodes, failing on the
// reader's, the scanner's and the parser's errors and on an alias to an anchor not yet defined, worded by parser.fail().
import { EventParser } from './parser.js';
import type { YamlEvent } from './parser.js';
import { NodeKind, YamlNode } from './nodes.js';
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

/** What go-yaml v2 makes of a YAML text before decoding values: the error it fails with, or its first document's nodes. */
export type FirstDocument =
  | { readonly error: YamlSyntaxError }
  | {
    readonly error?: undefined;
    /** the document's node; undefined for a stream without one (empty, or only comments) */
    readonly root: YamlNode | undefined;
  };

/** The error go-yaml v2 fails with while reading `input`'s first document, if any. */
export function yamlSyntaxError(input: Uint8Array): YamlSyntaxError | undefined {
  return readFirstDocument(input).error;
}

/**
 * Reads the first document of `input` as decode.go's parser.parse() does, building its nodes as the events come: the
 * reader's, scanner's and parser's errors, and an alias to an anchor not yet defined, fail here. What upstream checks
 * only while decoding values (merge keys, alias expansion, recursive anchors, keys) is decided by yaml-decode/.
 * `asciiSource`: the same input as a string, where every byte of it is ASCII (scalars are cut from it).
 */
export function readFirstDocument(input: Uint8Array, asciiSource?: string): FirstDocument {
  // newParser: an empty input is read as a single line break
  const empty = input.length === 0;
  const s = new YamlState(empty ? Uint8Array.of(0x0a) : input, spare, asciiSource === undefined ? undefined : empty ? '\n' : asciiSource);
  spare = undefined;
  const parser = new EventParser(s);
  const next = (): YamlEvent | undefined => {
    const event = parser.next();
    if (event === false) throw failure(s);
    return event;
  };
  try {
    const start = next();
    if (start?.type !== 'STREAM_START') return { root: undefined };
    const documentStart = next();
    if (documentStart?.type !== 'DOCUMENT_START') return { root: undefined };
    const anchors = new Map<string, YamlNode>();
    // the collections still open, innermost last
    const open: YamlNode[] = [];
    let root: YamlNode | undefined;
    do {
      const event = next();
      if (event === undefined) return { root };
      let node: YamlNode;
      switch (event.type) {
        case 'MAPPING_END':
        case 'SEQUENCE_END':
          open.pop();
          continue;
        case 'ALIAS': {
          node = new YamlNode(NodeKind.Alias, event.start.line, '', event.anchor ?? '', false);
          node.alias = anchors.get(node.value);
          if (node.alias === undefined) return { error: new YamlSyntaxError(`yaml: unknown anchor '${node.value}' referenced`) };
          break;
        }
        case 'SCALAR':
          node = new YamlNode(NodeKind.Scalar, event.start.line, event.tag, event.value, event.implicit);
          break;
        case 'MAPPING_START':
        case 'SEQUENCE_START':
          node = new YamlNode(event.type === 'MAPPING_START' ? NodeKind.Mapping : NodeKind.Sequence, event.start.line, '', '', false);
          break;
        default:
          return { root };
      }
      // an anchor names its node from its start, so an alias inside the node reaches it (parser.anchor)
      if (event.anchor !== undefined && event.type !== 'ALIAS') anchors.set(event.anchor, node);
      const parent = open[open.length - 1];
      if (parent === undefined) root = node;
      else parent.children.push(node);
      if (node.kind === NodeKind.Mapping || node.kind === NodeKind.Sequence) open.push(node);
    } while (open.length > 0);
    // go-yaml reads the document's end event (and so the tokens before it) and no further: a directive, `---` or
    // `...` inside the text ends the document, and what follows is never read
    next();
    return { root };
  } catch (err) {
    if (err instanceof YamlSyntaxError) return { error: err };
    throw err;
  } finally {
    spare = s.buffers;
  }
}
