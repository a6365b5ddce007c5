// The checker's type model, after cel-go v0.26.0 common/types (Type, Kind) and checker/types.go (assignability with
// type-parameter substitution, mostGeneral, substitute). Types are immutable; a Mapping holds the substitutions
// found while checking one expression.

export type Kind =
  | 'bool'
  | 'bytes'
  | 'double'
  | 'int'
  | 'string'
  | 'uint'
  | 'null'
  | 'dyn'
  | 'any'
  | 'error'
  | 'duration'
  | 'timestamp'
  | 'list'
  | 'map'
  | 'opaque'
  | 'struct'
  | 'type'
  | 'param';

export interface Type {
  readonly kind: Kind;
  /** cel-go TypeName(): `int`, `list`, `google.protobuf.Timestamp`, `optional_type`, a struct's or parameter's name */
  readonly name: string;
  readonly params: readonly Type[];
}

const simple = (kind: Kind, name: string): Type => Object.freeze({ kind, name, params: [] });

export const BOOL = simple('bool', 'bool');
export const BYTES = simple('bytes', 'bytes');
export const DOUBLE = simple('double', 'double');
export const INT = simple('int', 'int');
export const STRING = simple('string', 'string');
export const UINT = simple('uint', 'uint');
export const NULL = simple('null', 'null_type');
export const DYN = simple('dyn', 'dyn');
export const ANY = simple('any', 'google.protobuf.Any');
export const ERROR = simple('error', 'error');
export const DURATION = simple('duration', 'google.protobuf.Duration');
export const TIMESTAMP = simple('timestamp', 'google.protobuf.Timestamp');
/** `type` without a parameter (cel-go types.TypeType) */
export const TYPE = simple('type', 'type');

export const OPTIONAL_NAME = 'optional_type';

export function listOf(element: Type): Type {
  return { kind: 'list', name: 'list', params: [element] };
}
export function mapOf(key: Type, value: Type): Type {
  return { kind: 'map', name: 'map', params: [key, value] };
}
export function optionalOf(value: Type): Type {
  return { kind: 'opaque', name: OPTIONAL_NAME, params: [value] };
}
export function typeOf(value: Type): Type {
  return { kind: 'type', name: 'type', params: [value] };
}
export function structType(name: string): Type {
  return { kind: 'struct', name, params: [] };
}
export function opaqueType(name: string, ...params: Type[]): Type {
  return { kind: 'opaque', name, params };
}
export function typeParam(name: string): Type {
  return { kind: 'param', name, params: [] };
}

/** The kinds whose types carry no parameters and are assignable only to themselves (no wrappers are declared). */
export const SCALAR_KINDS: ReadonlySet<Kind> = new Set<Kind>(['bool', 'bytes', 'double', 'int', 'string', 'uint', 'duration', 'timestamp']);

export function isDyn(t: Type): boolean {
  return t.kind === 'dyn' || t.kind === 'any';
}
export function isDynOrError(t: Type): boolean {
  return isDyn(t) || t.kind === 'error';
}
export function isOptional(t: Type): boolean {
  return t.kind === 'opaque' && t.name === OPTIONAL_NAME;
}

/** cel-go `Type.IsExactType`. */
export function isExactType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.name !== b.name || a.params.length !== b.params.length) return false;
  return a.params.every((p, i) => isExactType(p, b.params[i]!));
}

const WELL_KNOWN_FORMAT: Partial<Record<Kind, string>> = { any: 'any', duration: 'duration', error: '!error!', null: 'null', timestamp: 'timestamp' };

/** cel-go checker.FormatCELType: the spelling inside checker messages (`(int, null)`, `type(int)`). */
export function formatType(t: Type): string {
  const fixed = WELL_KNOWN_FORMAT[t.kind];
  if (fixed !== undefined) return fixed;
  if (t.params.length === 0) return t.name;
  return `${t.name}(${t.params.map(formatType).join(', ')})`;
}

/** cel-go `(*types.Type).String()`: the spelling of compile.go's `must evaluate to … but got …`. */
export function typeString(t: Type): string {
  if (t.params.length === 0) return t.name;
  return `${t.name}(${t.params.map(typeString).join(', ')})`;
}

/**
 * Type-parameter substitutions, keyed by parameter name (cel-go checker/mapping.go). A trial (`trial()`) records
 * its additions on top of its base without copying it; `settle()` gives the base back when the trial added
 * nothing, so most overload attempts copy nothing.
 */
export class Mapping {
  private own: Map<string, Type> | undefined;
  constructor(private readonly base?: Mapping) {}
  find(t: Type): Type | undefined {
    if (t.kind !== 'param') return undefined;
    return this.own?.get(t.name) ?? this.base?.find(t);
  }
  add(param: Type, to: Type): void {
    (this.own ??= new Map()).set(param.name, to);
  }
  trial(): Mapping {
    return new Mapping(this);
  }
  /** A flat mapping equal to this trial's view: its base when nothing was added. */
  settle(): Mapping {
    if (this.own === undefined) return this.base ?? this;
    const flat = new Mapping();
    flat.own = new Map(this.base?.entries());
    for (const [k, v] of this.own) flat.own.set(k, v);
    return flat;
  }
  private entries(): Iterable<[string, Type]> {
    return this.own ?? [];
  }
}

/** Legacy null-assignability (checker/types.go isLegacyNullable): opaque, struct, any, duration, timestamp. */
function isNullable(t: Type): boolean {
  return t.kind === 'opaque' || t.kind === 'struct' || t.kind === 'any' || t.kind === 'duration' || t.kind === 'timestamp';
}

function isEqualOrLessSpecific(t1: Type, t2: Type): boolean {
  if (isDyn(t1) || t1.kind === 'param') return true;
  if (isDyn(t2) || t2.kind === 'param') return false;
  if (t1.kind !== t2.kind) return false;
  switch (t1.kind) {
    case 'opaque':
      return t1.name === t2.name && t1.params.length === t2.params.length && t1.params.every((p, i) => isEqualOrLessSpecific(p, t2.params[i]!));
    case 'list':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!);
    case 'map':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!) && isEqualOrLessSpecific(t1.params[1]!, t2.params[1]!);
    case 'type':
      return true;
    default:
      return isExactType(t1, t2);
  }
}

/** The more general of two types known to unify (checker/types.go mostGeneral). */
export function mostGeneral(t1: Type, t2: Type): Type {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

function notReferencedIn(m: Mapping, t: Type, within: Type): boolean {
  if (isExactType(t, within)) return false;
  switch (within.kind) {
    case 'param': {
      const sub = m.find(within);
      return sub === undefined ? true : notReferencedIn(m, t, sub);
    }
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return within.params.every((p) => notReferencedIn(m, t, p));
    default:
      return true;
  }
}

function isValidTypeSubstitution(m: Mapping, t1: Type, t2: Type): [valid: boolean, hasSub: boolean] {
  if (t1.kind === t2.kind && isExactType(t1, t2)) return [true, true];
  const t2Sub = m.find(t2);
  if (t2Sub !== undefined) {
    if (t1.kind === t2Sub.kind && isExactType(t1, t2Sub)) return [true, true];
    if (internalIsAssignable(m, t1, t2Sub)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.add(t2, t2New);
      return [true, true];
    }
    return [false, true];
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return [true, false];
  }
  return [false, false];
}

/** Whether t1 is assignable to t2, recording substitutions in m (checker/types.go internalIsAssignable). */
function internalIsAssignable(m: Mapping, t1: Type, t2: Type): boolean {
  if (t2.kind === 'param') {
    const [valid, hasSub] = isValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (hasSub) return false;
  }
  if (t1.kind === 'param') return isValidTypeSubstitution(m, t2, t1)[0];
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === 'null') return isNullable(t2);
  if (t2.kind === 'null') return isNullable(t1);
  // t2.IsAssignableType(t1) for scalars and structs: the same type (no wrapper types are declared in Kubernetes')
  if (SCALAR_KINDS.has(t1.kind) || t1.kind === 'struct') return t1.kind === t2.kind && t1.name === t2.name;
  switch (t1.kind) {
    case 'type':
      return t2.kind === 'type';
    case 'opaque':
    case 'list':
    case 'map':
      return t1.kind === t2.kind && t1.name === t2.name && internalIsAssignableList(m, t1.params, t2.params);
    default:
      return false;
  }
}

function internalIsAssignableList(m: Mapping, l1: readonly Type[], l2: readonly Type[]): boolean {
  if (l1.length !== l2.length) return false;
  return l1.every((t, i) => internalIsAssignable(m, t, l2[i]!));
}

/** A copy of m extended so that t1 is assignable to t2, or undefined. */
export function isAssignable(m: Mapping, t1: Type, t2: Type): Mapping | undefined {
  const trial = m.trial();
  return internalIsAssignable(trial, t1, t2) ? trial.settle() : undefined;
}

export function isAssignableList(m: Mapping, l1: readonly Type[], l2: readonly Type[]): Mapping | undefined {
  const trial = m.trial();
  return internalIsAssignableList(trial, l1, l2) ? trial.settle() : undefined;
}

/** Replaces bound type parameters; unbound ones become dyn when `paramToDyn` (checker/types.go substitute). */
export function substitute(m: Mapping, t: Type, paramToDyn: boolean): Type {
  const sub = m.find(t);
  if (sub !== undefined) return substitute(m, sub, paramToDyn);
  if (paramToDyn && t.kind === 'param') return DYN;
  if (t.params.length === 0) return t;
  return { kind: t.kind, name: t.name, params: t.params.map((p) => substitute(m, p, paramToDyn)) };
}
