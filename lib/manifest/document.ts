// Turns one manifest document into plain JSON-like data the way apimachinery's universal deserializer reads it:
// a document whose first non-space byte is `{` is JSON, anything else YAML 1.1 (go-yaml v2 via sigs.k8s.io/yaml).
// Duplicate keys are collected (not fatal): strict decoding reports them with unknown fields.
import { goQuote } from '../validation/go-format.js';
import { DocumentSyntaxError } from './document-error.js';
import { decodeDocument } from './yaml-decode/decode.js';
import { readFirstDocument } from './yaml-syntax/check.js';

export { DocumentSyntaxError };

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
 * go-yaml v2 through sigs.k8s.io/yaml YAMLToJSON, as apimachinery's YAML serializer calls it: the port in yaml-syntax/
 * reads the first document (a directive, `---` or `...` the splitter left inside the text ends it; the rest is never
 * read) into nodes, failing with upstream's syntax errors, and yaml-decode/ decodes those nodes as go-yaml does and
 * turns the result into JSON-like data as sigs.k8s.io/yaml does.
 */
function parseYAML(text: string, bytes?: Uint8Array): ParsedDocument {
  const input = bytes ?? Buffer.from(text, 'utf8');
  // as many UTF-8 bytes as characters: all ASCII, so the scanner may cut scalars from the string
  const first = readFirstDocument(input, bytes === undefined && input.length === text.length ? text : undefined);
  if (first.error !== undefined) throw new DocumentSyntaxError(first.error.message);
  const { value, duplicates } = decodeDocument(first.root);
  return { format: 'yaml', value, duplicateErrors: duplicates.length > 0 ? [`yaml: unmarshal errors:\n${duplicates.join('\n')}`] : [] };
}
