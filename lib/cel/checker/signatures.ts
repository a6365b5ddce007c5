// Function declarations in a compact text form, parsed once: `name(int, list(A)) bool` for a global overload,
// `(string).startsWith(string) bool` for a member overload. Single capital letters are type parameters. The same
// type parser reads cel-go's `Type.String()` spellings (`list(int)`, `google.protobuf.Timestamp`, `null_type`,
// `optional_type(int)`), in which compiled expressions report their output type.

import { ANY, BOOL, BYTES, DOUBLE, DURATION, DYN, INT, listOf, mapOf, NULL, OPTIONAL_NAME, opaqueType, optionalOf, STRING, structType, TIMESTAMP, TYPE, typeOf, typeParam, UINT } from './types.js';
import type { Type } from './types.js';

const NAMED: Readonly<Record<string, Type>> = {
  bool: BOOL,
  bytes: BYTES,
  double: DOUBLE,
  int: INT,
  string: STRING,
  uint: UINT,
  null: NULL,
  null_type: NULL,
  dyn: DYN,
  any: ANY,
  'google.protobuf.Any': ANY,
  duration: DURATION,
  'google.protobuf.Duration': DURATION,
  timestamp: TIMESTAMP,
  'google.protobuf.Timestamp': TIMESTAMP,
  type: TYPE,
};

class TypeParser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Type {
    const t = this.type();
    this.skip();
    if (this.at !== this.text.length) throw new Error(`unexpected '${this.text.slice(this.at)}' in type '${this.text}'`);
    return t;
  }

  private skip(): void {
    while (this.text[this.at] === ' ') this.at++;
  }

  type(): Type {
    this.skip();
    const m = /^[A-Za-z_][\w.]*/.exec(this.text.slice(this.at));
    if (m === null) throw new Error(`type expected in '${this.text}' at ${this.at}`);
    const name = m[0];
    this.at += name.length;
    const params: Type[] = [];
    if (this.text[this.at] === '(') {
      this.at++;
      for (;;) {
        params.push(this.type());
        this.skip();
        const c = this.text[this.at++];
        if (c === ')') break;
        if (c !== ',') throw new Error(`',' or ')' expected in '${this.text}'`);
      }
    }
    return build(name, params);
  }
}

function build(name: string, params: Type[]): Type {
  if (/^[A-Z]$/.test(name)) return typeParam(name);
  switch (name) {
    case 'list':
      return listOf(params[0] ?? DYN);
    case 'map':
      return mapOf(params[0] ?? DYN, params[1] ?? DYN);
    case 'optional':
    case OPTIONAL_NAME:
      return optionalOf(params[0] ?? DYN);
    case 'type':
      return params[0] === undefined ? TYPE : typeOf(params[0]);
    default: {
      const known = NAMED[name];
      if (known !== undefined) return known;
      return params.length > 0 ? opaqueType(name, ...params) : structType(name);
    }
  }
}

const parsedTypes = new Map<string, Type>();

/** Parses a type spelled as in the declarations or as cel-go's `Type.String()` prints it. */
export function parseType(text: string): Type {
  let t = parsedTypes.get(text);
  if (t === undefined) {
    t = new TypeParser(text).parse();
    parsedTypes.set(text, t);
  }
  return t;
}

export interface Overload {
  readonly member: boolean;
  /** for a member overload, the receiver first */
  readonly args: readonly Type[];
  readonly result: Type;
  /** the type parameters it names, renamed to fresh variables at each resolution */
  readonly typeParams: readonly string[];
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: Overload[];
}

function collectParams(t: Type, into: Set<string>): void {
  if (t.kind === 'param') into.add(t.name);
  for (const p of t.params) collectParams(p, into);
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim() !== '') parts.push(text.slice(start));
  return parts;
}

/** Index of the `)` closing the `(` at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced '${text}'`);
}

/** Parses one declaration line into its function name and overload. */
export function parseSignature(line: string): { name: string; overload: Overload } {
  let rest = line.trim();
  let receiver: Type | undefined;
  if (rest.startsWith('(')) {
    const end = closing(rest, 0);
    receiver = parseType(rest.slice(1, end));
    rest = rest.slice(end + 2);
  }
  const open = rest.indexOf('(');
  const name = rest.slice(0, open);
  const end = closing(rest, open);
  const args = splitTopLevel(rest.slice(open + 1, end)).map((a) => parseType(a.trim()));
  const result = parseType(rest.slice(end + 1).trim());
  const all = receiver === undefined ? args : [receiver, ...args];
  const params = new Set<string>();
  for (const t of [...all, result]) collectParams(t, params);
  return { name, overload: { member: receiver !== undefined, args: all, result, typeParams: [...params] } };
}

/** Builds a function table from declaration lines, overloads in line order. */
export function declareFunctions(lines: readonly string[], into: Map<string, FunctionDecl> = new Map()): Map<string, FunctionDecl> {
  for (const line of lines) {
    const { name, overload } = parseSignature(line);
    let fn = into.get(name);
    if (fn === undefined) {
      fn = { name, overloads: [] };
      into.set(name, fn);
    }
    fn.overloads.push(overload);
  }
  return into;
}
