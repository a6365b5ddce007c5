// go-yaml v2's parser (go.yaml.in/yaml/v2 v2.4.3 parserc.go): the state machine that turns tokens into events, with
// upstream's errors ("did not find expected key", "did not find expected node content" …) and their marks. Events keep
// what decode.go reads of them: kind, start mark, anchor, and for scalars the resolved tag, value and `implicit`.
import { fetchMoreTokens } from './scanner.js';
import { copyMark } from './state.js';
import type { Mark, Token, TokenType, YamlState } from './state.js';

export type EventType =
  | 'STREAM_START' | 'STREAM_END' | 'DOCUMENT_START' | 'DOCUMENT_END' | 'ALIAS' | 'SCALAR' | 'SEQUENCE_START'
  | 'SEQUENCE_END' | 'MAPPING_START' | 'MAPPING_END';

export interface YamlEvent {
  readonly type: EventType;
  readonly start: Mark;
  /** the anchor a node defines, or the one an alias names */
  readonly anchor: string | undefined;
  /** a scalar's tag as resolved against the %TAG directives (`tag:yaml.org,2002:int`), '' for none */
  readonly tag: string;
  /** a scalar's value */
  readonly value: string;
  /** a plain scalar without a tag, or with the non-specific tag `!` (parserc.go plain_implicit): resolved by content */
  readonly implicit: boolean;
}

/** An event without a scalar's fields (one shape for every event, which keeps property reads monomorphic). */
function event(type: EventType, start: Mark, anchor?: string): YamlEvent {
  return { type, start, anchor, tag: '', value: '', implicit: false };
}

type State =
  | 'STREAM_START' | 'IMPLICIT_DOCUMENT_START' | 'DOCUMENT_START' | 'DOCUMENT_CONTENT' | 'DOCUMENT_END' | 'BLOCK_NODE'
  | 'BLOCK_NODE_OR_INDENTLESS_SEQUENCE' | 'FLOW_NODE' | 'BLOCK_SEQUENCE_FIRST_ENTRY' | 'BLOCK_SEQUENCE_ENTRY'
  | 'INDENTLESS_SEQUENCE_ENTRY' | 'BLOCK_MAPPING_FIRST_KEY' | 'BLOCK_MAPPING_KEY' | 'BLOCK_MAPPING_VALUE'
  | 'FLOW_SEQUENCE_FIRST_ENTRY' | 'FLOW_SEQUENCE_ENTRY' | 'FLOW_SEQUENCE_ENTRY_MAPPING_KEY'
  | 'FLOW_SEQUENCE_ENTRY_MAPPING_VALUE' | 'FLOW_SEQUENCE_ENTRY_MAPPING_END' | 'FLOW_MAPPING_FIRST_KEY' | 'FLOW_MAPPING_KEY'
  | 'FLOW_MAPPING_VALUE' | 'FLOW_MAPPING_EMPTY_VALUE' | 'END';

interface TagDirective {
  readonly handle: string;
  readonly prefix: string;
}

const bytesText = (b: readonly number[] | undefined): string => Buffer.from(b ?? []).toString('latin1');

/** The event stream of one input; `next()` is yaml_parser_parse (undefined once the stream has ended). */
export class EventParser {
  #state: State = 'STREAM_START';
  readonly #states: State[] = [];
  readonly #marks: Mark[] = [];
  #tagDirectives: TagDirective[] = [];

  constructor(private readonly s: YamlState) {}

  /** The next event; false on error (the error is in the state), undefined after the stream's end. */
  next(): YamlEvent | false | undefined {
    if (this.s.streamEndProduced || this.s.error !== 'none' || this.#state === 'END') return undefined;
    return this.#machine();
  }

  #peek(): Token | undefined {
    if (this.s.tokenAvailable || fetchMoreTokens(this.s)) return this.s.tokens[this.s.tokensHead];
    return undefined;
  }

  #skip(): void {
    const s = this.s;
    s.tokenAvailable = false;
    s.tokensParsed++;
    s.streamEndProduced = s.tokens[s.tokensHead]!.type === 'STREAM_END';
    s.tokensHead++;
  }

  #error(problem: string, problemMark: Mark, context = '', contextMark?: Mark): false {
    const s = this.s;
    s.error = 'parser';
    s.problem = problem;
    s.problemMark = copyMark(problemMark);
    if (contextMark !== undefined) {
      s.context = context;
      s.contextMark = copyMark(contextMark);
    }
    return false;
  }

  #pop(): State {
    return this.#states.pop()!;
  }

  #machine(): YamlEvent | false {
    switch (this.#state) {
      case 'STREAM_START': return this.#streamStart();
      case 'IMPLICIT_DOCUMENT_START': return this.#documentStart(true);
      case 'DOCUMENT_START': return this.#documentStart(false);
      case 'DOCUMENT_CONTENT': return this.#documentContent();
      case 'DOCUMENT_END': return this.#documentEnd();
      case 'BLOCK_NODE': return this.#node(true, false);
      case 'BLOCK_NODE_OR_INDENTLESS_SEQUENCE': return this.#node(true, true);
      case 'FLOW_NODE': return this.#node(false, false);
      case 'BLOCK_SEQUENCE_FIRST_ENTRY': return this.#blockSequenceEntry(true);
      case 'BLOCK_SEQUENCE_ENTRY': return this.#blockSequenceEntry(false);
      case 'INDENTLESS_SEQUENCE_ENTRY': return this.#indentlessSequenceEntry();
      case 'BLOCK_MAPPING_FIRST_KEY': return this.#blockMappingKey(true);
      case 'BLOCK_MAPPING_KEY': return this.#blockMappingKey(false);
      case 'BLOCK_MAPPING_VALUE': return this.#blockMappingValue();
      case 'FLOW_SEQUENCE_FIRST_ENTRY': return this.#flowSequenceEntry(true);
      case 'FLOW_SEQUENCE_ENTRY': return this.#flowSequenceEntry(false);
      case 'FLOW_SEQUENCE_ENTRY_MAPPING_KEY': return this.#flowSequenceEntryMappingKey();
      case 'FLOW_SEQUENCE_ENTRY_MAPPING_VALUE': return this.#flowSequenceEntryMappingValue();
      case 'FLOW_SEQUENCE_ENTRY_MAPPING_END': return this.#flowSequenceEntryMappingEnd();
      case 'FLOW_MAPPING_FIRST_KEY': return this.#flowMappingKey(true);
      case 'FLOW_MAPPING_KEY': return this.#flowMappingKey(false);
      case 'FLOW_MAPPING_VALUE': return this.#flowMappingValue(false);
      case 'FLOW_MAPPING_EMPTY_VALUE': return this.#flowMappingValue(true);
      case 'END': throw new Error('invalid parser state');
    }
  }

  #streamStart(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type !== 'STREAM_START') return this.#error('did not find expected <stream-start>', token.start);
    this.#state = 'IMPLICIT_DOCUMENT_START';
    this.#skip();
    return event('STREAM_START', token.start);
  }

  #documentStart(implicit: boolean): YamlEvent | false {
    let token = this.#peek();
    if (token === undefined) return false;
    if (!implicit) {
      while (token.type === 'DOCUMENT_END') {
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
      }
    }
    if (implicit && token.type !== 'VERSION_DIRECTIVE' && token.type !== 'TAG_DIRECTIVE' && token.type !== 'DOCUMENT_START' && token.type !== 'STREAM_END') {
      if (!this.#processDirectives()) return false;
      this.#states.push('DOCUMENT_END');
      this.#state = 'BLOCK_NODE';
      return event('DOCUMENT_START', token.start);
    }
    if (token.type !== 'STREAM_END') {
      const start = token.start;
      if (!this.#processDirectives()) return false;
      token = this.#peek();
      if (token === undefined) return false;
      if (token.type !== 'DOCUMENT_START') return this.#error('did not find expected <document start>', token.start);
      this.#states.push('DOCUMENT_END');
      this.#state = 'DOCUMENT_CONTENT';
      this.#skip();
      return event('DOCUMENT_START', start);
    }
    this.#state = 'END';
    this.#skip();
    return event('STREAM_END', token.start);
  }

  #documentContent(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'VERSION_DIRECTIVE' || token.type === 'TAG_DIRECTIVE' || token.type === 'DOCUMENT_START' || token.type === 'DOCUMENT_END' || token.type === 'STREAM_END') {
      this.#state = this.#pop();
      return emptyScalar(token.start);
    }
    return this.#node(true, false);
  }

  #documentEnd(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'DOCUMENT_END') this.#skip();
    this.#tagDirectives = [];
    this.#state = 'DOCUMENT_START';
    return event('DOCUMENT_END', token.start);
  }

  #node(block: boolean, indentlessSequence: boolean): YamlEvent | false {
    let token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'ALIAS') {
      this.#state = this.#pop();
      this.#skip();
      return event('ALIAS', token.start, bytesText(token.value));
    }
    let start = token.start;
    let anchor: string | undefined;
    let tagToken = false;
    let tagHandle = '';
    let tagSuffix = '';
    let tagMark = token.start;
    const takeTag = (t: Token): void => {
      tagToken = true;
      tagHandle = bytesText(t.value);
      tagSuffix = bytesText(t.suffix);
      tagMark = t.start;
    };
    if (token.type === 'ANCHOR') {
      anchor = bytesText(token.value);
      this.#skip();
      token = this.#peek();
      if (token === undefined) return false;
      if (token.type === 'TAG') {
        takeTag(token);
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
      }
    } else if (token.type === 'TAG') {
      takeTag(token);
      start = token.start;
      this.#skip();
      token = this.#peek();
      if (token === undefined) return false;
      if (token.type === 'ANCHOR') {
        anchor = bytesText(token.value);
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
      }
    }
    let tag = '';
    if (tagToken) {
      if (tagHandle.length === 0) {
        tag = tagSuffix;
      } else {
        const directive = this.#tagDirectives.find((d) => d.handle === tagHandle);
        if (directive !== undefined) tag = directive.prefix + tagSuffix;
        if (tag.length === 0) return this.#error('found undefined tag handle', tagMark, 'while parsing a node', start);
      }
    }
    if (indentlessSequence && token.type === 'BLOCK_ENTRY') {
      this.#state = 'INDENTLESS_SEQUENCE_ENTRY';
      return event('SEQUENCE_START', start, anchor);
    }
    const withAnchor = (type: EventType): YamlEvent => event(type, start, anchor);
    switch (token.type) {
      case 'SCALAR': {
        this.#state = this.#pop();
        this.#skip();
        const implicit = (tag.length === 0 && token.style === 'plain') || tag === '!';
        return { type: 'SCALAR', start, anchor, tag, value: token.text ?? '', implicit };
      }
      case 'FLOW_SEQUENCE_START':
        this.#state = 'FLOW_SEQUENCE_FIRST_ENTRY';
        return withAnchor('SEQUENCE_START');
      case 'FLOW_MAPPING_START':
        this.#state = 'FLOW_MAPPING_FIRST_KEY';
        return withAnchor('MAPPING_START');
      case 'BLOCK_SEQUENCE_START':
        if (!block) break;
        this.#state = 'BLOCK_SEQUENCE_FIRST_ENTRY';
        return withAnchor('SEQUENCE_START');
      case 'BLOCK_MAPPING_START':
        if (!block) break;
        this.#state = 'BLOCK_MAPPING_FIRST_KEY';
        return withAnchor('MAPPING_START');
      default:
        break;
    }
    if (anchor !== undefined || tag.length > 0) {
      // an anchored or tagged empty node is an empty plain scalar
      this.#state = this.#pop();
      return { type: 'SCALAR', start, anchor, tag, value: '', implicit: tag.length === 0 };
    }
    return this.#error('did not find expected node content', token.start, block ? 'while parsing a block node' : 'while parsing a flow node', start);
  }

  /** On the first entry of a collection: remember where it started (the context of its errors) and skip its start token. */
  #first(): void {
    const token = this.#peek()!;
    this.#marks.push(token.start);
    this.#skip();
  }

  /**
   * After an entry's indicator (`-`, `?`, `:`): the node that follows, or an empty scalar at the indicator's end when
   * the next token is one of `empty` (upstream repeats this in each block state).
   */
  #entryNode(indicator: Token, empty: readonly TokenType[], next: State, indentless: boolean): YamlEvent | false {
    this.#skip();
    const token = this.#peek();
    if (token === undefined) return false;
    if (!empty.includes(token.type)) {
      this.#states.push(next);
      return this.#node(true, indentless);
    }
    this.#state = next;
    return emptyScalar(indicator.end);
  }

  #blockSequenceEntry(first: boolean): YamlEvent | false {
    if (first) this.#first();
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'BLOCK_ENTRY') return this.#entryNode(token, ['BLOCK_ENTRY', 'BLOCK_END'], 'BLOCK_SEQUENCE_ENTRY', false);
    if (token.type === 'BLOCK_END') {
      this.#state = this.#pop();
      this.#marks.pop();
      this.#skip();
      return event('SEQUENCE_END', token.start);
    }
    const contextMark = this.#marks.pop()!;
    return this.#error("did not find expected '-' indicator", token.start, 'while parsing a block collection', contextMark);
  }

  #indentlessSequenceEntry(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'BLOCK_ENTRY') return this.#entryNode(token, ['BLOCK_ENTRY', 'KEY', 'VALUE', 'BLOCK_END'], 'INDENTLESS_SEQUENCE_ENTRY', false);
    this.#state = this.#pop();
    return event('SEQUENCE_END', token.start);
  }

  #blockMappingKey(first: boolean): YamlEvent | false {
    if (first) this.#first();
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'KEY') return this.#entryNode(token, ['KEY', 'VALUE', 'BLOCK_END'], 'BLOCK_MAPPING_VALUE', true);
    if (token.type === 'BLOCK_END') {
      this.#state = this.#pop();
      this.#marks.pop();
      this.#skip();
      return event('MAPPING_END', token.start);
    }
    const contextMark = this.#marks.pop()!;
    return this.#error('did not find expected key', token.start, 'while parsing a block mapping', contextMark);
  }

  #blockMappingValue(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'VALUE') return this.#entryNode(token, ['KEY', 'VALUE', 'BLOCK_END'], 'BLOCK_MAPPING_KEY', true);
    this.#state = 'BLOCK_MAPPING_KEY';
    return emptyScalar(token.start);
  }

  #flowSequenceEntry(first: boolean): YamlEvent | false {
    if (first) this.#first();
    let token = this.#peek();
    if (token === undefined) return false;
    if (token.type !== 'FLOW_SEQUENCE_END') {
      if (!first) {
        if (token.type !== 'FLOW_ENTRY') {
          const contextMark = this.#marks.pop()!;
          return this.#error("did not find expected ',' or ']'", token.start, 'while parsing a flow sequence', contextMark);
        }
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
      }
      if (token.type === 'KEY') {
        this.#state = 'FLOW_SEQUENCE_ENTRY_MAPPING_KEY';
        this.#skip();
        return event('MAPPING_START', token.start);
      }
      if (token.type !== 'FLOW_SEQUENCE_END') {
        this.#states.push('FLOW_SEQUENCE_ENTRY');
        return this.#node(false, false);
      }
    }
    this.#state = this.#pop();
    this.#marks.pop();
    this.#skip();
    return event('SEQUENCE_END', token.start);
  }

  #flowSequenceEntryMappingKey(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type !== 'VALUE' && token.type !== 'FLOW_ENTRY' && token.type !== 'FLOW_SEQUENCE_END') {
      this.#states.push('FLOW_SEQUENCE_ENTRY_MAPPING_VALUE');
      return this.#node(false, false);
    }
    const mark = token.end;
    this.#skip();
    this.#state = 'FLOW_SEQUENCE_ENTRY_MAPPING_VALUE';
    return emptyScalar(mark);
  }

  #flowSequenceEntryMappingValue(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    if (token.type === 'VALUE') {
      this.#skip();
      const next = this.#peek();
      if (next === undefined) return false;
      if (next.type !== 'FLOW_ENTRY' && next.type !== 'FLOW_SEQUENCE_END') {
        this.#states.push('FLOW_SEQUENCE_ENTRY_MAPPING_END');
        return this.#node(false, false);
      }
    }
    // upstream shadows `token` inside the branch above, so the empty value sits at the VALUE token's start
    this.#state = 'FLOW_SEQUENCE_ENTRY_MAPPING_END';
    return emptyScalar(token.start);
  }

  #flowSequenceEntryMappingEnd(): YamlEvent | false {
    const token = this.#peek();
    if (token === undefined) return false;
    this.#state = 'FLOW_SEQUENCE_ENTRY';
    return event('MAPPING_END', token.start);
  }

  #flowMappingKey(first: boolean): YamlEvent | false {
    if (first) this.#first();
    let token = this.#peek();
    if (token === undefined) return false;
    if (token.type !== 'FLOW_MAPPING_END') {
      if (!first) {
        if (token.type !== 'FLOW_ENTRY') {
          const contextMark = this.#marks.pop()!;
          return this.#error("did not find expected ',' or '}'", token.start, 'while parsing a flow mapping', contextMark);
        }
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
      }
      if (token.type === 'KEY') {
        this.#skip();
        token = this.#peek();
        if (token === undefined) return false;
        if (token.type !== 'VALUE' && token.type !== 'FLOW_ENTRY' && token.type !== 'FLOW_MAPPING_END') {
          this.#states.push('FLOW_MAPPING_VALUE');
          return this.#node(false, false);
        }
        this.#state = 'FLOW_MAPPING_VALUE';
        return emptyScalar(token.start);
      }
      if (token.type !== 'FLOW_MAPPING_END') {
        this.#states.push('FLOW_MAPPING_EMPTY_VALUE');
        return this.#node(false, false);
      }
    }
    this.#state = this.#pop();
    this.#marks.pop();
    this.#skip();
    return event('MAPPING_END', token.start);
  }

  #flowMappingValue(empty: boolean): YamlEvent | false {
    let token = this.#peek();
    if (token === undefined) return false;
    if (empty) {
      this.#state = 'FLOW_MAPPING_KEY';
      return emptyScalar(token.start);
    }
    if (token.type === 'VALUE') {
      this.#skip();
      token = this.#peek();
      if (token === undefined) return false;
      if (token.type !== 'FLOW_ENTRY' && token.type !== 'FLOW_MAPPING_END') {
        this.#states.push('FLOW_MAPPING_KEY');
        return this.#node(false, false);
      }
    }
    this.#state = 'FLOW_MAPPING_KEY';
    return emptyScalar(token.start);
  }

  /** yaml_parser_process_directives: %YAML and %TAG before a document, then the default handles. */
  #processDirectives(): boolean {
    let versionSeen = false;
    let token = this.#peek();
    if (token === undefined) return false;
    while (token.type === 'VERSION_DIRECTIVE' || token.type === 'TAG_DIRECTIVE') {
      if (token.type === 'VERSION_DIRECTIVE') {
        if (versionSeen) return this.#error('found duplicate %YAML directive', token.start);
        if (token.major !== 1 || token.minor !== 1) return this.#error('found incompatible YAML document', token.start);
        versionSeen = true;
      } else if (!this.#appendTagDirective({ handle: bytesText(token.value), prefix: bytesText(token.prefix) }, false, token.start)) {
        return false;
      }
      this.#skip();
      token = this.#peek();
      if (token === undefined) return false;
    }
    for (const d of defaultTagDirectives) {
      if (!this.#appendTagDirective(d, true, token.start)) return false;
    }
    return true;
  }

  #appendTagDirective(value: TagDirective, allowDuplicates: boolean, mark: Mark): boolean {
    if (this.#tagDirectives.some((d) => d.handle === value.handle)) {
      return allowDuplicates ? true : this.#error('found duplicate %TAG directive', mark);
    }
    this.#tagDirectives.push(value);
    return true;
  }
}

const defaultTagDirectives: readonly TagDirective[] = [
  { handle: '!', prefix: '!' },
  { handle: '!!', prefix: 'tag:yaml.org,2002:' },
];

/** yaml_parser_process_empty_scalar: an implicit, empty plain scalar. */
function emptyScalar(mark: Mark): YamlEvent {
  return { type: 'SCALAR', start: mark, anchor: undefined, tag: '', value: '', implicit: true };
}
