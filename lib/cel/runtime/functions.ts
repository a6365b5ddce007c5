// The runtime function table: CEL's standard functions and cel-go's strings and optional extensions, looked up
// by name by the planner. A global function `f(a, b)` is called with [a, b]; a member function `x.f(a)` with
// [x, a]. Each implementation checks its arguments' runtime types and throws `no such overload` otherwise, as
// cel-go's dispatcher does for dyn values. Libraries (k8s/*.ts) add their functions with defineGlobal/defineMember.

import { celEquals, mapSize } from './compare.js';
import type { CelMap } from './compare.js';
import { formatDouble, toBool, toDouble, toInt, toUint } from './numbers.js';
import { compileRegex, find, findAll, matches } from './regex.js';
import type { EvalState } from './state.js';
import * as str from './strings.js';
import { DURATION_FIELDS, TIMESTAMP_FIELDS, durationField, formatDuration, formatTimestamp, parseDuration, parseTimestamp, timestampField, timestampFromSeconds } from './time.js';
import type { TimestampField } from './time.js';
import {
  CelDuration,
  CelObject,
  CelOptional,
  CelTimestamp,
  CelUint,
  MIN_TIMESTAMP_SECONDS,
  NANOS_PER_SECOND,
  Trait,
  celError,
  isMap,
  noSuchOverload,
  noSuchOverloadError,
  traitMismatch,
  typeOf,
} from './values.js';

export type Impl = (args: unknown[], s: EvalState) => unknown;

/** Global functions by (qualified) name: `size`, `optional.of`, `strings.quote`… */
export const GLOBAL = new Map<string, Impl>();
/** Member functions by name: `x.size()`, `s.contains(t)`… */
export const MEMBER = new Map<string, Impl>();

export function defineGlobal(name: string, impl: Impl): void {
  GLOBAL.set(name, impl);
}

interface MemberOverload {
  readonly accepts: ((receiver: unknown) => boolean) | undefined;
  readonly impl: Impl;
}

const memberOverloads = new Map<string, MemberOverload[]>();

/**
 * Adds a member function. Several libraries may define the same name for different receivers (`indexOf` on
 * strings and on lists): `accepts` tells which receivers an implementation is for.
 */
export function defineMember(name: string, impl: Impl, accepts?: (receiver: unknown) => boolean): void {
  let overloads = memberOverloads.get(name);
  if (overloads === undefined) memberOverloads.set(name, (overloads = []));
  overloads.push({ accepts, impl });
  if (overloads.length === 1) {
    MEMBER.set(name, impl);
    return;
  }
  const all = [...overloads];
  MEMBER.set(name, (args, s) => {
    const receiver = args[0];
    for (const o of all) if (o.accepts === undefined || o.accepts(receiver)) return o.impl(args, s);
    throw noSuchOverload(name, ...args);
  });
}

/** Adds the function under both forms: `f(x, …)` and `x.f(…)`. */
function defineBoth(name: string, impl: Impl): void {
  defineGlobal(name, impl);
  defineMember(name, impl);
}

function arity(name: string, args: unknown[], ...counts: number[]): void {
  if (!counts.includes(args.length)) throw noSuchOverload(name, ...args);
}

function string(name: string, args: unknown[], i: number): string {
  const v = args[i];
  if (typeof v !== 'string') throw noSuchOverload(name, ...args);
  return v;
}

function int(name: string, args: unknown[], i: number): bigint {
  const v = args[i];
  if (typeof v !== 'bigint') throw noSuchOverload(name, ...args);
  return v;
}

function list(name: string, args: unknown[], i: number): unknown[] {
  const v = args[i];
  if (!Array.isArray(v)) throw noSuchOverload(name, ...args);
  return v;
}

/** Length used for cost: characters, bytes, elements or entries. */
export function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (isMap(v)) return mapSize(v as CelMap);
  return 0;
}

// ---- size, type conversions ----

// size is a singleton bound to the Sizer trait (stdlib/standard.go).
defineBoth('size', (args) => {
  arity('size', args, 1);
  const v = args[0];
  if (typeof v === 'string') return str.stringSize(v);
  if (Array.isArray(v) || v instanceof Uint8Array) return BigInt(v.length);
  if (isMap(v)) return BigInt(mapSize(v as CelMap));
  throw traitMismatch('size', v, Trait.Sizer);
});

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** string(x) */
export function toStringValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return formatDouble(v);
    case 'object':
      if (v instanceof CelUint) return v.value.toString();
      if (v instanceof Uint8Array) {
        try {
          return utf8.decode(v);
        } catch {
          throw celError('invalid UTF-8 in bytes, cannot convert to string');
        }
      }
      if (v instanceof CelTimestamp) return formatTimestamp(v);
      if (v instanceof CelDuration) return formatDuration(v);
      if (v instanceof CelObject) {
        const s = (v as CelObject & { toCelString?: () => string }).toCelString?.();
        if (s !== undefined) return s;
      }
      break;
    default:
  }
  throw noSuchOverload('string', v);
}

defineGlobal('int', (args) => (arity('int', args, 1), toInt(args[0])));
defineGlobal('uint', (args) => (arity('uint', args, 1), toUint(args[0])));
defineGlobal('double', (args) => (arity('double', args, 1), toDouble(args[0])));
defineGlobal('bool', (args) => (arity('bool', args, 1), toBool(args[0])));
defineGlobal('string', (args) => (arity('string', args, 1), toStringValue(args[0])));
defineGlobal('bytes', (args) => {
  arity('bytes', args, 1);
  const v = args[0];
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return encoder.encode(v);
  throw noSuchOverload('bytes', v);
});
defineGlobal('dyn', (args) => (arity('dyn', args, 1), args[0]));
defineGlobal('type', (args) => (arity('type', args, 1), typeOf(args[0])));
defineGlobal('timestamp', (args) => {
  arity('timestamp', args, 1);
  const v = args[0];
  if (typeof v === 'string') return parseTimestamp(v);
  if (typeof v === 'bigint') return timestampFromSeconds(v);
  if (v instanceof CelTimestamp) return v;
  throw noSuchOverload('timestamp', v);
});
defineGlobal('duration', (args) => {
  arity('duration', args, 1);
  const v = args[0];
  if (typeof v === 'string') return parseDuration(v);
  if (v instanceof CelDuration) return v;
  // cel-go v0.26.0 declares duration(int) (int64_to_duration) but Int.ConvertToType has no duration case
  if (typeof v === 'bigint') throw celError("type conversion error from 'int' to 'google.protobuf.Duration'");
  throw noSuchOverload('duration', v);
});

// ---- strings (standard) ----

/** contains, startsWith, endsWith run without type guards (DisableTypeGuards): types.StringContains… answer bare. */
function unguardedStrings(args: unknown[]): [string, string] {
  const [s, t] = args;
  if (args.length !== 2 || typeof s !== 'string' || typeof t !== 'string') throw noSuchOverloadError();
  return [s, t];
}

defineMember('contains', (args) => {
  const [s, t] = unguardedStrings(args);
  return s.includes(t);
});
defineMember('startsWith', (args) => {
  const [s, t] = unguardedStrings(args);
  return s.startsWith(t);
});
defineMember('endsWith', (args) => {
  const [s, t] = unguardedStrings(args);
  return s.endsWith(t);
});
// matches is a singleton bound to the Matcher trait: String.Match refuses a non-string pattern bare.
defineBoth('matches', (args) => {
  arity('matches', args, 2);
  const [s, pattern] = args;
  if (typeof s !== 'string') throw traitMismatch('matches', s, Trait.Matcher);
  if (typeof pattern !== 'string') throw noSuchOverloadError();
  return matches(s, pattern);
});

// ---- timestamps and durations ----

for (const field of new Set([...TIMESTAMP_FIELDS, ...DURATION_FIELDS])) {
  defineMember(field, (args) => {
    const v = args[0];
    if (v instanceof CelTimestamp && TIMESTAMP_FIELDS.has(field)) {
      arity(field, args, 1, 2);
      const zone = args.length === 2 ? string(field, args, 1) : undefined;
      return timestampField(v, field as TimestampField, zone);
    }
    if (v instanceof CelDuration && DURATION_FIELDS.has(field) && args.length === 1) return durationField(v, field);
    throw noSuchOverload(field, ...args);
  });
}

// ---- strings extension (cel-go ext.Strings) ----

defineMember('charAt', (args) => (arity('charAt', args, 2), str.charAt(string('charAt', args, 0), int('charAt', args, 1))));
const isString = (v: unknown): boolean => typeof v === 'string';
defineMember(
  'indexOf',
  (args) => {
    arity('indexOf', args, 2, 3);
    return str.indexOf(string('indexOf', args, 0), string('indexOf', args, 1), args.length === 3 ? int('indexOf', args, 2) : undefined);
  },
  isString,
);
defineMember(
  'lastIndexOf',
  (args) => {
    arity('lastIndexOf', args, 2, 3);
    return str.lastIndexOf(string('lastIndexOf', args, 0), string('lastIndexOf', args, 1), args.length === 3 ? int('lastIndexOf', args, 2) : undefined);
  },
  isString,
);
defineMember('lowerAscii', (args) => (arity('lowerAscii', args, 1), str.lowerAscii(string('lowerAscii', args, 0))));
defineMember('upperAscii', (args) => (arity('upperAscii', args, 1), str.upperAscii(string('upperAscii', args, 0))));
defineMember('replace', (args) => {
  arity('replace', args, 3, 4);
  const n = args.length === 4 ? int('replace', args, 3) : -1n;
  return str.replace(string('replace', args, 0), string('replace', args, 1), string('replace', args, 2), n);
});
defineMember('split', (args) => {
  arity('split', args, 2, 3);
  const n = args.length === 3 ? int('split', args, 2) : -1n;
  return str.split(string('split', args, 0), string('split', args, 1), n);
});
defineMember('substring', (args) => {
  arity('substring', args, 2, 3);
  return str.substring(string('substring', args, 0), int('substring', args, 1), args.length === 3 ? int('substring', args, 2) : undefined);
});
defineMember('trim', (args) => (arity('trim', args, 1), str.trim(string('trim', args, 0))));
defineMember('join', (args) => {
  arity('join', args, 1, 2);
  return str.join(list('join', args, 0), args.length === 2 ? string('join', args, 1) : '');
});
defineMember('reverse', (args) => (arity('reverse', args, 1), str.reverse(string('reverse', args, 0))), (r) => typeof r === 'string');
defineMember('format', (args) => (arity('format', args, 2), str.format(string('format', args, 0), list('format', args, 1))));
defineGlobal('strings.quote', (args) => (arity('strings.quote', args, 1), str.quote(string('strings.quote', args, 0))));

// ---- Kubernetes regex library (find, findAll) ----

// A pattern known only at run time is compiled per call; library/regex.go words its failure `Illegal regex: …`.
// (A constant pattern is compiled when the program is built: planner.ts.)
function runtimeRegex(pattern: string): ReturnType<typeof compileRegex> {
  try {
    return compileRegex(pattern);
  } catch (error) {
    throw celError(`Illegal regex: ${(error as Error).message}`);
  }
}

defineMember('find', (args) => (arity('find', args, 2), find(string('find', args, 0), runtimeRegex(string('find', args, 1)))));
defineMember('findAll', (args) => {
  arity('findAll', args, 2, 3);
  const s = string('findAll', args, 0);
  const pattern = runtimeRegex(string('findAll', args, 1));
  return findAll(s, pattern, args.length === 3 ? int('findAll', args, 2) : -1n);
});

// ---- optionals (cel-go OptionalTypes) ----

/** Whether a value is its type's zero value (cel-go IsZeroValue). */
export function isZeroValue(v: unknown): boolean {
  switch (typeof v) {
    case 'bigint':
      return v === 0n;
    case 'number':
      return v === 0;
    case 'string':
      return v === '';
    case 'boolean':
      return !v;
    case 'object':
      if (v === null) return true;
      if (v instanceof CelUint) return v.value === 0n;
      if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
      if (v instanceof CelDuration) return v.nanos === 0n;
      if (v instanceof CelTimestamp) return v.nanos === MIN_TIMESTAMP_SECONDS * NANOS_PER_SECOND;
      if (v instanceof CelOptional) return !v.hasValue();
      if (isMap(v)) return mapSize(v as CelMap) === 0;
      return false;
    default:
      return false;
  }
}

defineGlobal('optional.of', (args) => (arity('optional.of', args, 1), CelOptional.of(args[0])));
defineGlobal('optional.none', (args) => (arity('optional.none', args, 0), CelOptional.NONE));
defineGlobal('optional.ofNonZeroValue', (args) => {
  arity('optional.ofNonZeroValue', args, 1);
  return isZeroValue(args[0]) ? CelOptional.NONE : CelOptional.of(args[0]);
});
defineMember('hasValue', (args) => {
  arity('hasValue', args, 1);
  if (!(args[0] instanceof CelOptional)) throw noSuchOverload('hasValue', ...args);
  return args[0].hasValue();
});
defineMember('value', (args) => {
  arity('value', args, 1);
  if (!(args[0] instanceof CelOptional)) throw noSuchOverload('value', ...args);
  return args[0].value();
});

export { celEquals, int as intArg, string as stringArg, list as listArg, arity };
