// The runtime value model of lib/cel's evaluator (planner.ts), after cel-go's: CEL int is a JS bigint (always within
// int64), double a number, string a JS string, bool a boolean, null null, bytes a Uint8Array, list a JS array, map
// either a plain object (string keys: JSON input, string-keyed literals) or a JS Map (any key), and the classes
// below for uint, timestamp, duration, type values and optionals. Kubernetes library types (Quantity, URL, IP,
// CIDR, Semver, NamedFormat) are classes that extend CelObject.
//
// Errors: a failed operation throws CelRuntimeError (message in cel-go's wording, e.g. `no such key: x`), which
// `&&`, `||`, `?:` and the comprehension macros may absorb as cel-go's error values are absorbed. Exceeding the
// cost budget or the deadline throws CelInterruption, which nothing absorbs.

/** An evaluation error: the value of a failed CEL operation. */
export class CelRuntimeError extends Error {
  override readonly name = 'CelRuntimeError';
}

/** Evaluation stopped (cost budget exhausted, deadline passed or aborted); never absorbed by CEL logic. */
export class CelInterruption extends Error {
  override readonly name = 'CelInterruption';
}

export function celError(message: string): CelRuntimeError {
  return new CelRuntimeError(message);
}

export const MAX_INT64 = 9223372036854775807n;
export const MIN_INT64 = -9223372036854775808n;
export const MAX_UINT64 = 18446744073709551615n;

/** CEL uint: a value in [0, 2^64). */
export class CelUint {
  constructor(readonly value: bigint) {}
  toString(): string {
    return `${this.value}u`;
  }
}

export function uint(value: bigint): CelUint {
  if (value < 0n || value > MAX_UINT64) throw celError('unsigned integer overflow');
  return new CelUint(value);
}

export function checkInt(value: bigint): bigint {
  if (value > MAX_INT64 || value < MIN_INT64) throw celError('integer overflow');
  return value;
}

export const NANOS_PER_SECOND = 1_000_000_000n;

/** CEL duration (google.protobuf.Duration): signed nanoseconds within int64, as cel-go's time.Duration. */
export class CelDuration {
  constructor(readonly nanos: bigint) {}
}

/** A duration from arithmetic: outside int64 nanoseconds is cel-go's errIntOverflow (types/overflow.go). */
export function duration(nanos: bigint): CelDuration {
  if (nanos > MAX_INT64 || nanos < MIN_INT64) throw celError('integer overflow');
  return new CelDuration(nanos);
}

/** Seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range of google.protobuf.Timestamp. */
export const MIN_TIMESTAMP_SECONDS = -62135596800n;
export const MAX_TIMESTAMP_SECONDS = 253402300799n;

/**
 * CEL timestamp (google.protobuf.Timestamp): nanoseconds since the Unix epoch, and the UTC offset (seconds east)
 * of the time.Time cel-go holds: the one it was parsed with, kept by arithmetic, 0 (UTC) otherwise. Only
 * string() shows it; comparisons and getters ignore it (the getters default to UTC).
 */
export class CelTimestamp {
  constructor(
    readonly nanos: bigint,
    readonly offset = 0,
  ) {}
  /** whole seconds (floor) */
  get seconds(): bigint {
    const s = this.nanos / NANOS_PER_SECOND;
    return this.nanos < 0n && s * NANOS_PER_SECOND !== this.nanos ? s - 1n : s;
  }
  /** the nanosecond part, in [0, 1e9) */
  get nanoOfSecond(): number {
    return Number(this.nanos - this.seconds * NANOS_PER_SECOND);
  }
}

/** cel-go's errTimestampOverflow (common/types/err.go): a timestamp outside 0001..9999. */
export const TIMESTAMP_OVERFLOW = 'timestamp overflow';

export function timestamp(nanos: bigint, offset = 0): CelTimestamp {
  const t = new CelTimestamp(nanos, offset);
  const s = t.seconds;
  if (s < MIN_TIMESTAMP_SECONDS || s > MAX_TIMESTAMP_SECONDS) throw celError(TIMESTAMP_OVERFLOW);
  return t;
}

/** A CEL type value (`int`, `type(x)`), compared by name. */
export class CelType {
  constructor(readonly name: string) {}
  toString(): string {
    return this.name;
  }
}

const typesByName = new Map<string, CelType>();

/** The one CelType value for a type name. */
export function celType(name: string): CelType {
  let t = typesByName.get(name);
  if (t === undefined) typesByName.set(name, (t = new CelType(name)));
  return t;
}

export const TYPE = {
  int: celType('int'),
  uint: celType('uint'),
  double: celType('double'),
  bool: celType('bool'),
  string: celType('string'),
  bytes: celType('bytes'),
  list: celType('list'),
  map: celType('map'),
  null: celType('null_type'),
  type: celType('type'),
  timestamp: celType('google.protobuf.Timestamp'),
  duration: celType('google.protobuf.Duration'),
  optional: celType('optional_type'),
  dyn: celType('dyn'),
} as const;

/** Type identifiers an expression may name (cel-go's standard declarations). */
export const TYPE_IDENTIFIERS: ReadonlyMap<string, CelType> = new Map([
  ['int', TYPE.int],
  ['uint', TYPE.uint],
  ['double', TYPE.double],
  ['bool', TYPE.bool],
  ['string', TYPE.string],
  ['bytes', TYPE.bytes],
  ['list', TYPE.list],
  ['map', TYPE.map],
  ['null_type', TYPE.null],
  ['type', TYPE.type],
  ['optional_type', TYPE.optional],
  ['google.protobuf.Timestamp', TYPE.timestamp],
  ['google.protobuf.Duration', TYPE.duration],
  // Kubernetes library.IP / library.CIDR declare their types by name
  ['net.IP', celType('net.IP')],
  ['net.CIDR', celType('net.CIDR')],
]);

/** CEL optional(T). */
export class CelOptional {
  static readonly NONE = new CelOptional(undefined);
  private constructor(private readonly inner: unknown) {}
  static of(value: unknown): CelOptional {
    return new CelOptional(value);
  }
  hasValue(): boolean {
    return this !== CelOptional.NONE;
  }
  /** the value; throws for optional.none() */
  value(): unknown {
    if (this === CelOptional.NONE) throw celError('optional.none() dereference');
    return this.inner;
  }
  /** the value, or undefined when empty */
  get valueOrUndefined(): unknown {
    return this.inner;
  }
}

/** Base of the opaque object types libraries add (Kubernetes' Quantity, URL, IP…). */
export abstract class CelObject {
  abstract readonly celType: CelType;
  /** CEL equality with another value of the same class */
  abstract equals(other: CelObject): boolean;
}

/** Whether a value is a CEL map: a JS Map or a plain (JSON-like) object. */
export function isMap(v: unknown): v is Map<unknown, unknown> | Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  if (v instanceof Map) return true;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The CEL type of a runtime value. */
export function typeOf(v: unknown): CelType {
  switch (typeof v) {
    case 'bigint':
      return TYPE.int;
    case 'number':
      return TYPE.double;
    case 'string':
      return TYPE.string;
    case 'boolean':
      return TYPE.bool;
    case 'object':
      if (v === null) return TYPE.null;
      if (Array.isArray(v)) return TYPE.list;
      if (v instanceof CelUint) return TYPE.uint;
      if (v instanceof Uint8Array) return TYPE.bytes;
      if (v instanceof CelTimestamp) return TYPE.timestamp;
      if (v instanceof CelDuration) return TYPE.duration;
      if (v instanceof CelOptional) return TYPE.optional;
      if (v instanceof CelType) return TYPE.type;
      if (v instanceof CelObject) return v.celType;
      if (isMap(v)) return TYPE.map;
      break;
    default:
  }
  throw celError(`unsupported value type: ${describeJs(v)}`);
}

function describeJs(v: unknown): string {
  if (typeof v === 'object' && v !== null) return (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
  return typeof v;
}

/** The CEL type name of a value, for messages (`int`, `map`, `google.protobuf.Timestamp`). */
export function typeName(v: unknown): string {
  try {
    return typeOf(v).name;
  } catch {
    return describeJs(v);
  }
}

/**
 * A call no overload accepts, as cel-go words it when it dispatches on runtime types (decls.MaybeNoSuchOverload,
 * common/decls/decls.go): `no such overload: size(int)`. This is the text of functions bound per overload
 * (conversions, getters, the extensions and the Kubernetes libraries).
 */
export function noSuchOverload(fn: string, ...args: unknown[]): CelRuntimeError {
  return celError(`no such overload: ${fn}(${args.map(typeName).join(', ')})`);
}

/**
 * cel-go's bare `no such overload` (types.MaybeNoSuchOverloadErr / NoSuchOverloadErr, common/types/err.go): what
 * a value's own method returns for an operand of the wrong type (`1 + 'a'`), what a receiver type returns for a
 * function it lacks, and what the logical operators, `!`, `?:` and `in` return for operands they do not take.
 */
export function noSuchOverloadError(): CelRuntimeError {
  return celError('no such overload');
}

/** The runtime type traits cel-go's singleton-bound operators dispatch on (common/types/traits, types.go). */
export const Trait = {
  Adder: 1,
  Comparer: 2,
  Divider: 4,
  Modder: 8,
  Multiplier: 16,
  Negator: 32,
  Subtractor: 64,
  Sizer: 128,
  Matcher: 256,
  Receiver: 512,
} as const;
export type Trait = (typeof Trait)[keyof typeof Trait];

/** Each type's trait mask (common/types/types.go); list and map are types.ListType/MapType's. */
function traitsOf(v: unknown): number {
  switch (typeof v) {
    case 'bigint':
      return Trait.Adder | Trait.Comparer | Trait.Divider | Trait.Modder | Trait.Multiplier | Trait.Negator | Trait.Subtractor;
    case 'number':
      return Trait.Adder | Trait.Comparer | Trait.Divider | Trait.Multiplier | Trait.Negator | Trait.Subtractor;
    case 'string':
      return Trait.Adder | Trait.Comparer | Trait.Matcher | Trait.Receiver | Trait.Sizer;
    case 'boolean':
      return Trait.Comparer | Trait.Negator;
    case 'object':
      if (v instanceof CelUint) return Trait.Adder | Trait.Comparer | Trait.Divider | Trait.Modder | Trait.Multiplier | Trait.Subtractor;
      if (v instanceof Uint8Array) return Trait.Adder | Trait.Comparer | Trait.Sizer;
      if (v instanceof CelTimestamp) return Trait.Adder | Trait.Comparer | Trait.Receiver | Trait.Subtractor;
      if (v instanceof CelDuration) return Trait.Adder | Trait.Comparer | Trait.Negator | Trait.Receiver | Trait.Subtractor;
      if (Array.isArray(v)) return Trait.Adder | Trait.Sizer;
      if (isMap(v)) return Trait.Sizer;
      return 0;
    default:
      return 0;
  }
}

export function hasTrait(v: unknown, trait: Trait): boolean {
  return (traitsOf(v) & trait) !== 0;
}

/**
 * The error of a singleton-bound function (operators, size, matches: common/stdlib/standard.go) whose first
 * operand's method did not accept the call: the bare `no such overload` when the operand has the trait (its
 * method refused the other operand) or is a receiver type (string, timestamp, duration: Receive refuses unknown
 * functions), else `no such overload: <function>` (interpreter/interpretable.go evalUnary/evalBinary).
 */
export function traitMismatch(fn: string, operand: unknown, trait: Trait): CelRuntimeError {
  if (hasTrait(operand, trait) || hasTrait(operand, Trait.Receiver)) return noSuchOverloadError();
  return celError(`no such overload: ${fn}`);
}

export { ownValue, setOwn } from '../../json/own.js';

/** Go types of the Kubernetes library values (k8s.io/apiserver/pkg/cel), by CEL type name. */
const KUBERNETES_GO_TYPES: Readonly<Record<string, string>> = {
  'kubernetes.Quantity': 'cel.Quantity',
  'kubernetes.URL': 'cel.URL',
  'kubernetes.Semver': 'cel.Semver',
  'kubernetes.NamedFormat': 'cel.Format',
  'net.IP': 'cel.IP',
  'net.CIDR': 'cel.CIDR',
};

/** The Go type cel-go holds a value as, as fmt's `%T` prints it (for the messages that print it). */
export function goTypeName(v: unknown): string {
  switch (typeof v) {
    case 'bigint':
      return 'types.Int';
    case 'number':
      return 'types.Double';
    case 'string':
      return 'types.String';
    case 'boolean':
      return 'types.Bool';
    case 'object':
      if (v === null) return 'types.Null';
      if (v instanceof CelUint) return 'types.Uint';
      if (v instanceof Uint8Array) return 'types.Bytes';
      if (v instanceof CelTimestamp) return 'types.Timestamp';
      if (v instanceof CelDuration) return 'types.Duration';
      if (v instanceof CelOptional) return '*types.Optional';
      if (v instanceof CelType) return '*types.Type';
      if (v instanceof CelObject) return KUBERNETES_GO_TYPES[v.celType.name] ?? v.celType.name;
      break;
    default:
  }
  return typeName(v);
}
