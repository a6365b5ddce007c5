// The conformance adapter for this project's CEL layer (lib/cel): compile with compileStandalone (the same pipeline
// as compileExpression, with the test's declarations instead of an admission environment), bind, evaluate, and map
// values between the canonical form of spec.ts and lib/cel's runtime representation.

import { CelDuration, CelOptional, CelTimestamp, CelType, CelUint, compileStandalone } from '../../lib/cel/index.js';
import type { Canon, SpecTest } from './spec.js';
import { normalizeTypeName } from './spec.js';

export interface Compiled {
  run(bindings: Record<string, unknown>): unknown;
}

export interface ConformanceAdapter {
  readonly name: string;
  /** compiles a test's expression; throws (any error) when compilation fails */
  compile(test: SpecTest): Compiled;
  toInput(value: Canon): unknown;
  toCanon(value: unknown): Canon;
}

function toInput(c: Canon): unknown {
  switch (c.k) {
    case 'int':
    case 'double':
    case 'string':
    case 'bytes':
    case 'bool':
      return c.v;
    case 'uint':
      return new CelUint(c.v);
    case 'null':
      return null;
    case 'list':
      return c.v.map(toInput);
    case 'map':
      return new Map(c.v.map(([k, v]) => [toInput(k), toInput(v)]));
    case 'timestamp':
      return new CelTimestamp(c.s * 1_000_000_000n + BigInt(c.n));
    case 'duration':
      return new CelDuration(c.s * 1_000_000_000n + BigInt(c.n));
    default:
      throw new Error(`unsupported input ${c.k}`);
  }
}

function toCanon(r: unknown): Canon {
  switch (typeof r) {
    case 'bigint':
      return { k: 'int', v: r };
    case 'number':
      return { k: 'double', v: r };
    case 'string':
      return { k: 'string', v: r };
    case 'boolean':
      return { k: 'bool', v: r };
    case 'undefined':
      return { k: 'null' };
    default:
  }
  if (r === null) return { k: 'null' };
  if (r instanceof Uint8Array) return { k: 'bytes', v: r };
  if (r instanceof CelUint) return { k: 'uint', v: r.value };
  if (Array.isArray(r)) return { k: 'list', v: r.map(toCanon) };
  if (r instanceof Map) return { k: 'map', v: [...r.entries()].map(([k, v]) => [toCanon(k), toCanon(v)] as const) };
  if (r instanceof CelTimestamp || r instanceof CelDuration) {
    const s = r.nanos / 1_000_000_000n;
    const floor = r instanceof CelTimestamp && r.nanos < 0n && s * 1_000_000_000n !== r.nanos ? s - 1n : s;
    return { k: r instanceof CelTimestamp ? 'timestamp' : 'duration', s: floor, n: Number(r.nanos - floor * 1_000_000_000n) };
  }
  if (r instanceof CelOptional) return { k: 'optional', v: r.hasValue() ? toCanon(r.value()) : undefined };
  if (r instanceof CelType) return { k: 'type', v: normalizeTypeName(r.name) };
  if (typeof r === 'object' && (Object.getPrototypeOf(r) === Object.prototype || Object.getPrototypeOf(r) === null)) {
    return { k: 'map', v: Object.entries(r as Record<string, unknown>).map(([k, v]) => [{ k: 'string', v: k }, toCanon(v)] as const) };
  }
  return { k: 'other', v: String((r as { constructor?: { name?: string } })?.constructor?.name) };
}

export const libCelAdapter: ConformanceAdapter = {
  name: 'lib/cel',
  compile(test: SpecTest): Compiled {
    const result = compileStandalone({ expression: test.expr, variables: test.variables, check: !test.disableCheck });
    if (!result.ok) throw new Error(result.message);
    const compiled = result.compiled;
    return { run: (bindings) => compiled.evaluate(bindings) };
  },
  toInput,
  toCanon,
};
