// Go's text for the values go-yaml v2 decodes, where upstream's errors print them: fmt's `%#v` (decode.go `invalid map
// key: %#v`, `key %#v already set in map`; sigs.k8s.io/yaml v1.6.0 `unsupported map key of type: %s, key: %+#v, value:
// %+#v`) and strconv.FormatFloat(f, 'g', -1, 32), which sigs.k8s.io/yaml turns float map keys into.
import { goQuote } from '../../validation/go-format.js';
import type { GoScalar } from './resolve.js';

/** A map go-yaml v2 decodes (map[interface{}]interface{}), in insertion order. */
export type GoMap = Map<GoKey, GoValue>;
/** A map key: a scalar, or a NaN float (never equal to another, so each is its own object). */
export type GoKey = GoScalar | NaNKey;
export type GoValue = GoScalar | NaNKey | GoValue[] | GoMap;

export class NaNKey {}

const INT64_MAX = 0x7fffffffffffffffn;

/** The Go type name of a decoded scalar (reflect.TypeOf(v).String()); undefined for nil. */
export function goTypeName(v: GoKey): string | undefined {
  if (v === null) return undefined;
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return v > INT64_MAX ? 'uint64' : 'int';
  return 'float64';
}

/** fmt's `%#v` of `v`; `top`: passed to Sprintf itself (a nil there is `<nil>`, inside a container `interface {}(nil)`). */
export function goSyntax(v: GoValue, top = true): string {
  if (v === null) return top ? '<nil>' : 'interface {}(nil)';
  if (v instanceof NaNKey) return 'NaN';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return v > INT64_MAX ? `0x${v.toString(16)}` : v.toString();
  if (typeof v === 'number') return formatFloat(v, 64);
  if (Array.isArray(v)) return `[]interface {}{${v.map((e) => goSyntax(e, false)).join(', ')}}`;
  const entries = [...v].sort(([a], [b]) => compareKeys(a, b));
  return `map[interface {}]interface {}{${entries.map(([k, e]) => `${goSyntax(k, false)}:${goSyntax(e, false)}`).join(', ')}}`;
}

/**
 * The order fmt prints an interface{}-keyed map in (internal/fmtsort): nil first, then by concrete type, then by value.
 * Types compare by the address of their type descriptor in the binary; this is the order kube-apiserver's oracle build
 * shows (nil, string, uint64, int, float64, bool).
 */
const TYPE_ORDER = ['string', 'uint64', 'int', 'float64', 'bool'];

function compareKeys(a: GoKey, b: GoKey): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  const ta = a instanceof NaNKey ? 'float64' : goTypeName(a)!;
  const tb = b instanceof NaNKey ? 'float64' : goTypeName(b)!;
  if (ta !== tb) return TYPE_ORDER.indexOf(ta) - TYPE_ORDER.indexOf(tb);
  if (typeof a === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b as string));
  if (a instanceof NaNKey || b instanceof NaNKey) return a instanceof NaNKey ? (b instanceof NaNKey ? 0 : -1) : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * strconv.FormatFloat(f, 'g', -1, bits): the shortest digits that read back as the same float64 (or float32), in %e
 * form where the exponent is below -4 or at least 6, else %f.
 */
export function formatFloat(f: number, bits: 32 | 64): string {
  const v = bits === 32 ? Math.fround(f) : f;
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const [digits, exp] = shortestDigits(Math.abs(v), bits);
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** The shortest decimal digits (no trailing zeros) of a non-negative finite `v`, and the exponent of the first. */
function shortestDigits(v: number, bits: 32 | 64): [string, number] {
  if (v === 0) return ['0', 0];
  let text = v.toExponential();
  if (bits === 32) {
    for (let p = 1; p <= 9; p++) {
      const candidate = v.toExponential(p - 1);
      if (Math.fround(Number(candidate)) === v) {
        text = candidate;
        break;
      }
    }
  }
  const [mantissa, exponent] = text.split('e') as [string, string];
  return [mantissa.replace('.', '').replace(/0+$/, '') || '0', Number(exponent)];
}
