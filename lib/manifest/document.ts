// Turns one manifest document into plain JSON-like data the way apimachinery's universal deserializer reads it:
// a document whose first non-space byte is `{` is JSON, anything else YAML 1.1 (go-yaml v2 via sigs.k8s.io/yaml).
// Duplicate keys are collected (not fatal): strict decoding reports them with unknown fields.
import jsyaml from 'js-yaml';
import { Document, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Schema } from 'yaml';
import type { Node as YamlNode, ScalarTag } from 'yaml';
import { goQuote } from '../validation/go-format.js';
import { setOwn } from '../json/own.js';
import { readFirstDocument } from './yaml-syntax/check.js';
import { explicitTagValue } from './yaml-resolve.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ParsedDocument {
  readonly format: 'json' | 'yaml';
  readonly value: JsonValue;
  /**
   * Strict-mode findings, already worded as upstream: for YAML one
   * `yaml: unmarshal errors:\n  line N: key "k" already set in map` entry, for JSON `duplicate field "a.b"` each.
   */
  readonly duplicateErrors: readonly string[];
}

/** A document that cannot be read at all; the message is the decode error text. */
export class DocumentSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentSyntaxError';
  }
}

/** Nesting deeper than this is refused instead of risking the stack; real manifests nest a few dozen levels. */
export const maxDocumentDepth = 1000;
/** Values produced by alias expansion beyond this many are refused (alias bombs). */
export const maxAliasExpandedNodes = 100_000;

export function isJSONDocument(text: string): boolean {
  const m = /\S/.exec(text);
  return m !== null && m[0] === '{';
}

/** `bytes`: the document's bytes where they are not UTF-8 (`text` has U+FFFD in their place). */
export function parseManifestDocument(text: string, bytes?: Uint8Array): ParsedDocument {
  return isJSONDocument(text) ? parseJSON(text) : parseYAML(text, bytes);
}

function parseJSON(text: string): ParsedDocument {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new DocumentSyntaxError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  // JSON.parse keeps the last of duplicate keys silently; scan once more to name every duplicate field.
  return { format: 'json', value, duplicateErrors: jsonDuplicateFields(text) };
}

/** encoding/json's limit on nesting. */
const maxJSONDepth = 10000;

/**
 * Paths of duplicate object keys in valid JSON text (`a.b`, `a[0].b`), found iteratively so that nesting depth
 * cannot exhaust the stack.
 */
export function jsonDuplicateFields(text: string): string[] {
  type Frame = { kind: 'object'; path: string; keys: Set<string>; key: string | undefined } | { kind: 'array'; path: string; index: number };
  const stack: Frame[] = [];
  const duplicates: string[] = [];
  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.kind === 'array') return `${top.path}[${top.index}]`;
    return top.path === '' ? top.key ?? '' : `${top.path}.${top.key ?? ''}`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const str = JSON.parse(text.slice(i, j + 1)) as string;
      i = j;
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.key === undefined) {
        let k = i + 1;
        while (/\s/.test(text[k] ?? '')) k++;
        if (text[k] === ':') {
          if (top.keys.has(str)) duplicates.push(`duplicate field ${goQuote(top.path === '' ? str : `${top.path}.${str}`)}`);
          top.keys.add(str);
          top.key = str;
        }
      }
    } else if (c === '{' || c === '[') {
      if (stack.length >= maxJSONDepth) throw new DocumentSyntaxError("couldn't get version/kind; json parse error: exceeded max depth");
      const path = childPath();
      stack.push(c === '{' ? { kind: 'object', path, keys: new Set(), key: undefined } : { kind: 'array', path, index: 0 });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.key = undefined;
      else if (top?.kind === 'array') top.index++;
    }
  }
  return duplicates;
}

/**
 * go-yaml v2 reads the document first (sigs.k8s.io/yaml YAMLToJSON → yaml.Unmarshal), so its syntax errors come
 * before anything else and in its words: the port in yaml-syntax/ decides them, and where go-yaml's first document
 * ends (a directive, `---` or `...` the splitter left inside the text ends it; the rest is never read). The object
 * is then built from that document by the parsers below.
 */
function parseYAML(text: string, bytes?: Uint8Array): ParsedDocument {
  const first = readFirstDocument(bytes ?? Buffer.from(text, 'utf8'));
  if (first.error !== undefined) throw new DocumentSyntaxError(first.error.message);
  const read = first.end < text.length ? firstCharacters(text, first.end) : text;
  return parseYAMLFast(read) ?? parseYAMLExact(read);
}

/** The first `n` code points of `text` (go-yaml counts characters; a leading BOM is the reader's, not counted). */
function firstCharacters(text: string, n: number): string {
  const bom = text.startsWith('\ufeff') ? 1 : 0;
  let i = bom;
  for (let count = 0; count < n && i < text.length; count++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  return text.slice(0, i);
}

/**
 * The `yaml` library's YAML 1.1 scalar resolvers (null, bool, int, float, sexagesimal, timestamp), in its order, so
 * the fast path resolves plain scalars with the very code the exact path uses.
 */
const yaml11PlainTags = new Schema({ schema: 'yaml-1.1' }).tags
  .filter((t): t is ScalarTag => t.default === true && 'test' in t && t.test !== undefined && t.tag !== 'tag:yaml.org,2002:merge');

function yaml11Tag(plain: string): ScalarTag | undefined {
  return yaml11PlainTags.find((t) => t.test!.test(plain));
}

const yaml11PlainScalar = new jsyaml.Type('tag:static-admissiond,2026:yaml-1.1-plain', {
  kind: 'scalar',
  resolve: (data: unknown) => typeof data === 'string' && yaml11Tag(data) !== undefined,
  construct: (data: string) => {
    const tag = yaml11Tag(data)!;
    const value = tag.resolve(data, (message) => {
      throw new Error(message);
    }, {} as Parameters<ScalarTag['resolve']>[2]);
    // some resolvers (bool, float, null) return a Scalar node rather than the bare value
    return scalarValue(isScalar(value) ? value.value : value, data);
  },
});

/** Failsafe (every scalar a string) plus the YAML 1.1 resolution of plain scalars; explicit tags are unknown here. */
const fastSchema = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: [yaml11PlainScalar] });

/**
 * js-yaml is about ten times faster than the `yaml` library on manifests, so it reads the ordinary document. Anything
 * it does not take as is — anchors and aliases (the exact path budgets alias expansion), merge keys, explicit tags,
 * duplicate keys, any error — goes to the exact path, which owns every error message. Returns undefined then.
 */
export function parseYAMLFast(text: string): ParsedDocument | undefined {
  if (/<<\s*:/.test(text)) return undefined;
  let anchored = false;
  try {
    const value = jsyaml.load(text, {
      schema: fastSchema,
      listener: (event, state) => {
        if (event === 'close' && (state as { anchor?: string | null }).anchor) anchored = true;
      },
    });
    if (anchored) return undefined;
    return { format: 'yaml', value: normalize(value), duplicateErrors: [] };
  } catch {
    return undefined;
  }
}

/** js-yaml yields null for an empty document and plain objects otherwise; map keys are strings already. */
function normalize(value: unknown): JsonValue {
  return value === undefined ? null : (value as JsonValue);
}

export function parseYAMLExact(text: string): ParsedDocument {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false, lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = lineCounter.linePos(first.pos[0]).line;
    const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new DocumentSyntaxError(`yaml: line ${line}: ${lowerFirst(reason)}`);
  }
  const lines: string[] = [];
  const value = new Converter(doc, lineCounter, (_path, key, line) => lines.push(`  line ${line}: key ${goQuote(key)} already set in map`), true).convert(doc.contents, '', 0);
  const duplicateErrors = lines.length > 0 ? [`yaml: unmarshal errors:\n${lines.join('\n')}`] : [];
  return { format: 'yaml', value, duplicateErrors };
}

function lowerFirst(s: string): string {
  return s.length > 0 ? s[0]!.toLowerCase() + s.slice(1) : s;
}

export { goQuote };

type DuplicateSink = (path: string, key: string, line: number) => void;

/** A plain `<<` key: the yaml library resolves it (YAML 1.1's merge tag) to a symbol; a quoted "<<" is a string. */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key)) return false;
  return typeof key.value === 'symbol' ? key.value.description === '<<' : key.value === '<<' && key.type === 'PLAIN';
}

class Converter {
  #expanded = 0;
  readonly #expanding = new Set<object>();
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter | undefined,
    private readonly onDuplicate: DuplicateSink,
    private readonly mergeKeys: boolean,
  ) {}

  convert(node: unknown, path: string, depth: number, viaAlias = false): JsonValue {
    if (depth > maxDocumentDepth) throw new DocumentSyntaxError(`yaml: exceeded max depth of ${maxDocumentDepth}`);
    if (viaAlias && ++this.#expanded > maxAliasExpandedNodes) throw new DocumentSyntaxError('yaml: document contains excessive aliasing');
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target === undefined) throw new DocumentSyntaxError(`yaml: unknown anchor '${node.source}' referenced`);
      // go-yaml v2 decode.go decoder.alias: an alias met again while its own value is being decoded
      if (this.#expanding.has(node)) throw new DocumentSyntaxError(`yaml: anchor '${node.source}' value contains itself`);
      this.#expanding.add(node);
      try {
        return this.convert(target, path, depth + 1, true);
      } finally {
        this.#expanding.delete(node);
      }
    }
    if (isScalar(node)) {
      // an explicit tag is decided as go-yaml decides it, before the value is taken
      const tagged = node.tag === undefined ? undefined : explicitTagValue(node.tag, node.source ?? String(node.value ?? ''));
      return tagged === undefined ? scalarValue(node.value, node.source) : tagged;
    }
    if (isMap(node)) {
      const out: JsonObject = {};
      const seen = new Set<string>();
      for (const item of node.items) {
        if (!isPair(item)) continue;
        if (this.mergeKeys && isMergeKey(item.key)) {
          this.merge(out, seen, item.value, path, depth);
          continue;
        }
        const key = keyString(this.convert(item.key, path, depth + 1, viaAlias));
        const childPath = path === '' ? key : `${path}.${key}`;
        if (seen.has(key)) {
          // go-yaml v2 (setMapIndex) reports the line of the value node, not the key: for a block mapping or
          // sequence value, the line its first entry is on
          const range = (item.value as YamlNode | null)?.range ?? (item.key as YamlNode | null)?.range;
          const line = range && this.lines ? this.lines.linePos(range[0]).line : 0;
          this.onDuplicate(childPath, key, line);
        }
        seen.add(key);
        setOwn(out, key, this.convert(item.value, childPath, depth + 1, viaAlias));
      }
      return out;
    }
    if (isSeq(node)) {
      return node.items.map((item, i) => this.convert(item, `${path}[${i}]`, depth + 1, viaAlias));
    }
    return null;
  }

  // YAML 1.1 merge keys: keys already present win, as in go-yaml.
  private merge(out: JsonObject, seen: Set<string>, source: unknown, path: string, depth: number): void {
    const value = this.convert(source, path, depth + 1, true);
    const sources = Array.isArray(value) ? value : [value];
    for (const s of sources) {
      if (s === null || typeof s !== 'object' || Array.isArray(s)) {
        throw new DocumentSyntaxError('yaml: map merge requires map or sequence of maps as the value');
      }
      for (const [k, v] of Object.entries(s)) {
        if (!seen.has(k) && !Object.hasOwn(out, k)) setOwn(out, k, v);
      }
    }
  }
}

function keyString(key: JsonValue): string {
  if (typeof key === 'string') return key;
  if (key === null) return 'null';
  if (typeof key === 'object') return JSON.stringify(key);
  return String(key);
}

function scalarValue(value: unknown, source: string | undefined): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    // sigs.k8s.io/yaml turns .inf/.nan into JSON it cannot encode; they are errors there and here.
    if (!Number.isFinite(value)) throw new DocumentSyntaxError(`json: unsupported value: ${String(value).replace('Infinity', '+Inf')}`);
    return value;
  }
  if (typeof value === 'bigint') return Number(value);
  // Timestamps and !!binary: keep the text as written, which is what ends up in the JSON form.
  if (value instanceof Date || value instanceof Uint8Array) return source ?? String(value);
  return String(value);
}
