// Kubernetes library.Quantity: quantity(), isQuantity() and the Quantity methods, with
// k8s.io/apimachinery resource.ParseQuantity's grammar (binary Ki…Ei, decimal n…E and e-notation suffixes) and
// exact decimal arithmetic; like ParseQuantity, precision below 1n is rounded up (away from zero).

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { CelObject, celError, celType, checkInt, noSuchOverload } from '../values.js';

const QUANTITY_TYPE = celType('kubernetes.Quantity');

const FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";

const BINARY: Readonly<Record<string, bigint>> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** value = num / 10^scale, scale in [0, 9]. */
export class Quantity extends CelObject {
  readonly celType = QUANTITY_TYPE;
  constructor(
    readonly num: bigint,
    readonly scale: number,
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof Quantity && this.compare(other) === 0;
  }
  compare(other: CelObject): number {
    if (!(other instanceof Quantity)) throw noSuchOverload('compareTo', this, other);
    const s = Math.max(this.scale, other.scale);
    const a = this.num * 10n ** BigInt(s - this.scale);
    const b = other.num * 10n ** BigInt(s - other.scale);
    return a < b ? -1 : a > b ? 1 : 0;
  }
  plus(other: Quantity, sign: 1n | -1n): Quantity {
    const s = Math.max(this.scale, other.scale);
    return new Quantity(this.num * 10n ** BigInt(s - this.scale) + sign * other.num * 10n ** BigInt(s - other.scale), s);
  }
  /** the int64 value, if the quantity is an integer within int64 */
  asInt64(): bigint | undefined {
    const unit = 10n ** BigInt(this.scale);
    if (this.num % unit !== 0n) return undefined;
    const v = this.num / unit;
    try {
      return checkInt(v);
    } catch {
      return undefined;
    }
  }
  toCelString(): string {
    if (this.scale === 0) return this.num.toString();
    const neg = this.num < 0n;
    const digits = (neg ? -this.num : this.num).toString().padStart(this.scale + 1, '0');
    const whole = digits.slice(0, digits.length - this.scale);
    const frac = digits.slice(digits.length - this.scale).replace(/0+$/, '');
    return `${neg ? '-' : ''}${whole}${frac === '' ? '' : `.${frac}`}`;
  }
}

/** resource.ParseQuantity */
export function parseQuantity(str: string): Quantity {
  if (str === '') throw celError(FORMAT_ERROR);
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(str)!;
  const [, sign, whole, frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') throw celError(FORMAT_ERROR);
  if (/[^eEinumkKMGTP0-9+-]/.test(suffix)) throw celError(FORMAT_ERROR);
  let num = BigInt(`${whole}${frac}` || '0');
  let scale = frac.length;
  if (suffix in BINARY) num *= BINARY[suffix]!;
  else if (suffix in DECIMAL) scale -= DECIMAL[suffix]!;
  else if (/^[eE][-+]?[0-9]+$/.test(suffix)) scale -= Number(suffix.slice(1));
  else throw celError(SUFFIX_ERROR);
  if (sign === '-') num = -num;
  if (scale < 0) {
    num *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (scale > 9) {
    // ParseQuantity keeps nano precision, rounding up (away from zero).
    const unit = 10n ** BigInt(scale - 9);
    let q = num / unit;
    if (q * unit !== num) q += num < 0n ? -1n : 1n;
    num = q;
    scale = 9;
  }
  return new Quantity(num, scale);
}

function quantityOf(v: unknown, fn: string): Quantity {
  if (v instanceof Quantity) return v;
  throw noSuchOverload(fn, v);
}

const isQuantityValue = (v: unknown): boolean => v instanceof Quantity;

defineGlobal('quantity', (args) => (arity('quantity', args, 1), parseQuantity(stringArg('quantity', args, 0))));
defineGlobal('isQuantity', (args) => {
  arity('isQuantity', args, 1);
  try {
    parseQuantity(stringArg('isQuantity', args, 0));
    return true;
  } catch (error) {
    if (error instanceof Error && !error.message.startsWith('no such overload')) return false;
    throw error;
  }
});

const sign = (args: unknown[]): bigint => {
  arity('sign', args, 1);
  const q = quantityOf(args[0], 'sign');
  return q.num > 0n ? 1n : q.num < 0n ? -1n : 0n;
};
// Upstream declares sign as a global overload on Quantity; its documentation calls it as a method. Both work.
defineGlobal('sign', sign);
defineMember('sign', sign, isQuantityValue);
defineMember('isInteger', (args) => (arity('isInteger', args, 1), quantityOf(args[0], 'isInteger').asInt64() !== undefined), isQuantityValue);
defineMember(
  'asInteger',
  (args) => {
    arity('asInteger', args, 1);
    const v = quantityOf(args[0], 'asInteger').asInt64();
    if (v === undefined) throw celError('cannot convert value to integer');
    return v;
  },
  isQuantityValue,
);
defineMember(
  'asApproximateFloat',
  (args) => {
    arity('asApproximateFloat', args, 1);
    const q = quantityOf(args[0], 'asApproximateFloat');
    return Number(q.num) / 10 ** q.scale;
  },
  isQuantityValue,
);

function operand(v: unknown, fn: string): Quantity {
  if (typeof v === 'bigint') return new Quantity(v, 0);
  return quantityOf(v, fn);
}

defineMember('add', (args) => (arity('add', args, 2), quantityOf(args[0], 'add').plus(operand(args[1], 'add'), 1n)), isQuantityValue);
defineMember('sub', (args) => (arity('sub', args, 2), quantityOf(args[0], 'sub').plus(operand(args[1], 'sub'), -1n)), isQuantityValue);
defineMember('isGreaterThan', (args) => (arity('isGreaterThan', args, 2), quantityOf(args[0], 'isGreaterThan').compare(quantityOf(args[1], 'isGreaterThan')) > 0), isQuantityValue);
defineMember('isLessThan', (args) => (arity('isLessThan', args, 2), quantityOf(args[0], 'isLessThan').compare(quantityOf(args[1], 'isLessThan')) < 0), isQuantityValue);
defineMember('compareTo', (args) => (arity('compareTo', args, 2), BigInt(quantityOf(args[0], 'compareTo').compare(quantityOf(args[1], 'compareTo')))), isQuantityValue);
