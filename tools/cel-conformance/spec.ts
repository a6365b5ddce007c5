// The cel-spec "simple" conformance tests (tests/simple/testdata/*.textproto, described by simple.proto) read into
// plain test cases: expression, container, declared variables, bindings and the expected outcome as canonical
// values. Tests this project cannot run are classified with the same skip rules as ../shared's harness: they need
// protobuf messages (TestAllTypes, wrappers, Any, Struct, enums…), are check_only / only check the deduced type, or
// test unknowns.

import fs from 'node:fs';
import path from 'node:path';
import { all, first, messageField, parseTextproto, stringField, text } from './textproto.js';
import type { TextMessage, TextValue } from './textproto.js';

/** A CEL value, independent of any engine's representation. */
export type Canon =
  | { readonly k: 'int' | 'uint'; readonly v: bigint }
  | { readonly k: 'double'; readonly v: number }
  | { readonly k: 'string'; readonly v: string }
  | { readonly k: 'bytes'; readonly v: Uint8Array }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'null' }
  | { readonly k: 'list'; readonly v: readonly Canon[] }
  | { readonly k: 'map'; readonly v: readonly (readonly [Canon, Canon])[] }
  | { readonly k: 'type'; readonly v: string }
  | { readonly k: 'timestamp' | 'duration'; readonly s: bigint; readonly n: number }
  | { readonly k: 'optional'; readonly v: Canon | undefined }
  /** a protobuf message or enum value (tests using them are skipped) */
  | { readonly k: 'proto'; readonly v: string }
  /** what an adapter could not map back */
  | { readonly k: 'other'; readonly v: string };

export type SkipReason = 'proto_messages' | 'check_only' | 'unknowns' | 'binding_error';

export interface SpecTest {
  /** `file/section/test` */
  readonly name: string;
  readonly file: string;
  readonly expr: string;
  readonly container: string;
  readonly skip?: SkipReason;
  /** declared variables (type_env idents) in the engine's type syntax, e.g. `map<string, int>` */
  readonly variables: Readonly<Record<string, string>>;
  readonly bindings: Readonly<Record<string, Canon>>;
  readonly disableCheck: boolean;
  readonly disableMacros: boolean;
  /** expected value, when the test expects one */
  readonly expected?: Canon;
  /** the test expects an evaluation (or compile) error */
  readonly expectError: boolean;
}

const TYPE_ALIASES: Readonly<Record<string, string>> = {
  null: 'null_type',
  timestamp: 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
  optional: 'optional_type',
};

/** cel-go's names and the short ones it also prints compare equal. */
export function normalizeTypeName(name: string): string {
  return TYPE_ALIASES[name] ?? name;
}

function scalar(value: TextValue | undefined): string {
  return text(value) ?? '';
}

function parseDouble(t: string): number {
  if (/^[-+]?inf(inity)?$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?nan$/i.test(t)) return NaN;
  return Number(t.replace(/[fF]$/, ''));
}

/** A cel.expr.Value message as a canonical value. */
export function canonFromValue(v: TextMessage | undefined): Canon | undefined {
  if (v === undefined) return undefined;
  const f = v.fields;
  if (f.has('int64_value')) return { k: 'int', v: BigInt(scalar(first(v, 'int64_value'))) };
  if (f.has('uint64_value')) return { k: 'uint', v: BigInt(scalar(first(v, 'uint64_value'))) };
  if (f.has('double_value')) return { k: 'double', v: parseDouble(scalar(first(v, 'double_value'))) };
  if (f.has('string_value')) return { k: 'string', v: stringField(v, 'string_value') ?? '' };
  if (f.has('bytes_value')) {
    const b = first(v, 'bytes_value');
    return { k: 'bytes', v: b?.kind === 'string' ? b.bytes : new Uint8Array() };
  }
  if (f.has('bool_value')) return { k: 'bool', v: scalar(first(v, 'bool_value')) === 'true' };
  if (f.has('null_value')) return { k: 'null' };
  if (f.has('list_value')) {
    const values = all(messageField(v, 'list_value'), 'values').map((x) => canonFromValue(x as TextMessage) ?? { k: 'other', v: '?' });
    return { k: 'list', v: values as Canon[] };
  }
  if (f.has('map_value')) {
    const entries = all(messageField(v, 'map_value'), 'entries').map((e) => {
      const m = e as TextMessage;
      return [canonFromValue(messageField(m, 'key')) ?? { k: 'other', v: '?' }, canonFromValue(messageField(m, 'value')) ?? { k: 'other', v: '?' }] as const;
    });
    return { k: 'map', v: entries };
  }
  if (f.has('type_value')) return { k: 'type', v: normalizeTypeName(stringField(v, 'type_value') ?? '') };
  if (f.has('object_value')) {
    const any = messageField(v, 'object_value');
    const key = any === undefined ? '' : ([...any.fields.keys()][0] ?? '');
    const body = messageField(any, key);
    const typeName = key.replace(/^\[type\.googleapis\.com\//, '').replace(/\]$/, '');
    const s = BigInt(scalar(first(body, 'seconds')) || '0');
    const n = Number(scalar(first(body, 'nanos')) || '0');
    if (typeName === 'google.protobuf.Timestamp') return { k: 'timestamp', s, n };
    if (typeName === 'google.protobuf.Duration') return { k: 'duration', s, n };
    return { k: 'proto', v: typeName };
  }
  if (f.has('enum_value')) return { k: 'proto', v: 'enum' };
  return { k: 'other', v: 'unrecognized value' };
}

function containsProto(c: Canon | undefined): boolean {
  if (c === undefined) return false;
  switch (c.k) {
    case 'proto':
      return true;
    case 'list':
      return c.v.some(containsProto);
    case 'map':
      return c.v.some(([k, v]) => containsProto(k) || containsProto(v));
    default:
      return false;
  }
}

const PRIMITIVES: Readonly<Record<string, string>> = {
  BOOL: 'bool',
  INT64: 'int',
  UINT64: 'uint',
  DOUBLE: 'double',
  STRING: 'string',
  BYTES: 'bytes',
};

const WELL_KNOWN: Readonly<Record<string, string>> = {
  TIMESTAMP: 'google.protobuf.Timestamp',
  DURATION: 'google.protobuf.Duration',
  ANY: 'dyn',
};

/** A cel.expr.Type as an engine type string; undefined for message types (tests with them are skipped). */
function typeFromDecl(t: TextMessage | undefined): string | undefined {
  if (t === undefined) return 'dyn';
  const f = t.fields;
  if (f.has('primitive')) return PRIMITIVES[scalar(first(t, 'primitive'))];
  if (f.has('null')) return 'null';
  if (f.has('dyn')) return 'dyn';
  if (f.has('well_known')) return WELL_KNOWN[scalar(first(t, 'well_known'))];
  if (f.has('list_type')) {
    const elem = typeFromDecl(messageField(messageField(t, 'list_type'), 'elem_type'));
    return elem === undefined ? undefined : `list<${elem}>`;
  }
  if (f.has('map_type')) {
    const m = messageField(t, 'map_type');
    const key = typeFromDecl(messageField(m, 'key_type'));
    const value = typeFromDecl(messageField(m, 'value_type'));
    return key === undefined || value === undefined ? undefined : `map<${key}, ${value}>`;
  }
  if (f.has('message_type')) {
    const name = stringField(t, 'message_type') ?? '';
    return name === 'google.protobuf.Timestamp' || name === 'google.protobuf.Duration' ? name : undefined;
  }
  if (f.has('abstract_type')) {
    const a = messageField(t, 'abstract_type');
    if (stringField(a, 'name') !== 'optional_type') return undefined;
    const param = typeFromDecl(messageField(a, 'parameter_types'));
    return param === undefined ? undefined : `optional<${param}>`;
  }
  if (f.has('type_param') || f.has('type')) return 'dyn';
  return undefined;
}

const PROTO_RE =
  /TestAllTypes|NestedTestAllTypes|google\.protobuf\.(Any|Struct|Value|ListValue|NullValue|[A-Z][a-zA-Z0-9]*Value\b|FieldMask|Empty)|cel\.expr\.conformance|GlobalEnum|TestRequired/;

function readTest(file: string, section: string, t: TextMessage): SpecTest {
  const expr = stringField(t, 'expr') ?? '';
  const container = stringField(t, 'container') ?? '';
  const name = `${file}/${section}/${stringField(t, 'name') ?? ''}`;
  const base = {
    name,
    file,
    expr,
    container,
    disableCheck: scalar(first(t, 'disable_check')) === 'true',
    disableMacros: scalar(first(t, 'disable_macros')) === 'true',
  };
  const skipped = (skip: SkipReason): SpecTest => ({ ...base, skip, variables: {}, bindings: {}, expectError: false });
  if (scalar(first(t, 'check_only')) === 'true') return skipped('check_only');
  if (t.fields.has('unknown') || t.fields.has('any_unknowns')) return skipped('unknowns');

  let expected: Canon | undefined;
  let expectError = false;
  if (t.fields.has('value')) expected = canonFromValue(messageField(t, 'value'));
  else if (t.fields.has('typed_result')) {
    const tr = messageField(t, 'typed_result');
    if (!tr?.fields.has('result')) return skipped('check_only');
    expected = canonFromValue(messageField(tr, 'result'));
  } else if (t.fields.has('eval_error') || t.fields.has('any_eval_errors')) expectError = true;
  else if (t.fields.has('deduced_type')) return skipped('check_only');
  // simple.proto: no result matcher means the expected value is `true`.
  else expected = { k: 'bool', v: true };

  const bindings: Record<string, Canon> = {};
  for (const b of all(t, 'bindings')) {
    const entry = b as TextMessage;
    const key = stringField(entry, 'key') ?? '';
    const value = canonFromValue(messageField(messageField(entry, 'value'), 'value'));
    if (value === undefined) return skipped('binding_error');
    bindings[key] = value;
  }

  let proto = PROTO_RE.test(expr) || /conformance/.test(container) || containsProto(expected) || Object.values(bindings).some(containsProto);
  const variables: Record<string, string> = {};
  for (const d of all(t, 'type_env')) {
    const decl = d as TextMessage;
    const ident = messageField(decl, 'ident');
    if (ident === undefined) continue; // function declarations are for check-only tests
    const type = typeFromDecl(messageField(ident, 'type'));
    if (type === undefined) proto = true;
    else variables[stringField(decl, 'name') ?? ''] = type;
  }
  if (proto) return skipped('proto_messages');
  // Bindings without a declaration are dyn, as cel-go's conformance runner declares them when checking is off.
  for (const key of Object.keys(bindings)) variables[key] ??= 'dyn';
  return { ...base, variables, bindings, ...(expected === undefined ? {} : { expected }), expectError };
}

/** Reads one `<name>.textproto` file. */
export function readSpecFile(file: string): SpecTest[] {
  const doc = parseTextproto(fs.readFileSync(file, 'utf8'));
  const name = path.basename(file, '.textproto');
  const tests: SpecTest[] = [];
  for (const s of all(doc, 'section')) {
    const section = s as TextMessage;
    const sectionName = stringField(section, 'name') ?? '';
    for (const t of all(section, 'test')) tests.push(readTest(name, sectionName, t as TextMessage));
  }
  return tests;
}

export function canonEqual(a: Canon, b: Canon): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'int':
    case 'uint':
    case 'string':
    case 'bool':
    case 'type':
    case 'proto':
    case 'other':
      return a.v === (b as typeof a).v;
    case 'double': {
      const bv = (b as typeof a).v;
      return a.v === bv || (Number.isNaN(a.v) && Number.isNaN(bv));
    }
    case 'null':
      return true;
    case 'bytes': {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => x === bv[i]);
    }
    case 'list': {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every((x, i) => canonEqual(x, bv[i]!));
    }
    case 'map': {
      const bv = (b as typeof a).v;
      return a.v.length === bv.length && a.v.every(([k, v]) => bv.some(([k2, v2]) => canonEqual(k, k2) && canonEqual(v, v2)));
    }
    case 'timestamp':
    case 'duration': {
      const o = b as typeof a;
      return a.s === o.s && a.n === o.n;
    }
    case 'optional': {
      const o = b as typeof a;
      return a.v === undefined ? o.v === undefined : o.v !== undefined && canonEqual(a.v, o.v);
    }
  }
}

export function canonString(c: Canon | undefined): string {
  if (c === undefined) return 'undefined';
  switch (c.k) {
    case 'list':
      return `[${c.v.map(canonString).join(', ')}]`;
    case 'map':
      return `{${c.v.map(([k, v]) => `${canonString(k)}: ${canonString(v)}`).join(', ')}}`;
    case 'timestamp':
    case 'duration':
      return `${c.k}(${c.s}s, ${c.n}ns)`;
    case 'bytes':
      return `b${JSON.stringify(Buffer.from(c.v).toString('latin1'))}`;
    case 'null':
      return 'null';
    case 'optional':
      return c.v === undefined ? 'optional.none()' : `optional.of(${canonString(c.v)})`;
    case 'string':
      return JSON.stringify(c.v);
    default:
      return `${c.k}(${String(c.v)})`;
  }
}
