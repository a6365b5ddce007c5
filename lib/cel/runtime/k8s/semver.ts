// Kubernetes library.Semver (version 1): semver(string[, normalize]), isSemver(string[, normalize]) and the Semver
// methods, with github.com/blang/semver/v4 parsing and SemVer 2.0.0 precedence.

import { arity, defineGlobal, defineMember, stringArg } from '../functions.js';
import { CelObject, celError, celType, noSuchOverload } from '../values.js';

const SEMVER_TYPE = celType('kubernetes.Semver');
const ALNUM_HYPHEN = /^[0-9A-Za-z-]+$/;
const NUMERIC = /^[0-9]+$/;
const MAX_UINT64 = 18446744073709551615n;

type PreRelease = string | bigint;

export class Semver extends CelObject {
  readonly celType = SEMVER_TYPE;
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PreRelease[],
    readonly build: readonly string[],
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof Semver && this.compare(other) === 0;
  }
  compare(other: CelObject): number {
    if (!(other instanceof Semver)) throw noSuchOverload('compareTo', this, other);
    for (const [a, b] of [
      [this.major, other.major],
      [this.minor, other.minor],
      [this.patch, other.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre.length === 0 || other.pre.length === 0) {
      if (this.pre.length === other.pre.length) return 0;
      return this.pre.length === 0 ? 1 : -1;
    }
    for (let i = 0; i < Math.min(this.pre.length, other.pre.length); i++) {
      const a = this.pre[i]!;
      const b = other.pre[i]!;
      if (a === b) continue;
      if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : 1;
      if (typeof a === 'bigint') return -1;
      if (typeof b === 'bigint') return 1;
      return a < b ? -1 : 1;
    }
    return this.pre.length === other.pre.length ? 0 : this.pre.length < other.pre.length ? -1 : 1;
  }
  toCelString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre.length > 0) s += `-${this.pre.join('.')}`;
    if (this.build.length > 0) s += `+${this.build.join('.')}`;
    return s;
  }
}

function number(part: string, what: string): bigint {
  if (part === '' || !NUMERIC.test(part)) throw celError(`Invalid character(s) found in ${what} number ${JSON.stringify(part)}`);
  if (part.length > 1 && part.startsWith('0')) throw celError(`${what[0]!.toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(part)}`);
  const v = BigInt(part);
  if (v > MAX_UINT64) throw celError(`strconv.ParseUint: parsing ${JSON.stringify(part)}: value out of range`);
  return v;
}

/** blang/semver Parse */
export function parseSemver(s: string): Semver {
  if (s === '') throw celError('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw celError('No Major.Minor.Patch elements found');
  const [majorText, minorText] = parts;
  const rest = parts.slice(2).join('.');
  const major = number(majorText!, 'major');
  const minor = number(minorText!, 'minor');
  const preAt = rest.indexOf('-');
  const buildAt = rest.indexOf('+');
  const cut = [preAt, buildAt].filter((i) => i >= 0);
  const patchEnd = cut.length === 0 ? rest.length : Math.min(...cut);
  const patch = number(rest.slice(0, patchEnd), 'patch');
  let build: string[] = [];
  let pre: PreRelease[] = [];
  let tail = rest.slice(patchEnd);
  if (buildAt >= 0 && buildAt >= patchEnd) {
    const b = rest.slice(buildAt + 1);
    tail = rest.slice(patchEnd, buildAt);
    build = b.split('.');
    for (const id of build) {
      if (id === '') throw celError('Build meta data is empty');
      if (!ALNUM_HYPHEN.test(id)) throw celError(`Invalid character(s) found in build meta data ${JSON.stringify(id)}`);
    }
  }
  if (tail.startsWith('-')) {
    pre = tail
      .slice(1)
      .split('.')
      .map((id) => {
        if (id === '') throw celError('Prerelease is empty');
        if (NUMERIC.test(id)) {
          if (id.length > 1 && id.startsWith('0')) throw celError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(id)}`);
          return BigInt(id);
        }
        if (!ALNUM_HYPHEN.test(id)) throw celError(`Invalid character(s) found in prerelease ${JSON.stringify(id)}`);
        return id;
      });
  }
  return new Semver(major, minor, patch, pre, build);
}

/** The library's normalizeAndParse: no `v` prefix, missing minor/patch filled with 0, leading zeros removed. */
function normalizeAndParse(input: string): Semver {
  const s = input.startsWith('v') ? input.slice(1) : input;
  const parts = s.split('.');
  const head = parts.length > 3 ? [parts[0]!, parts[1]!, parts.slice(2).join('.')] : parts;
  for (let i = 0; i < head.length; i++) {
    let p = head[i]!;
    if (p.length > 1) {
      p = p.replace(/^0+/, '');
      if (p.length === 0 || !/^[0-9]/.test(p)) p = `0${p}`;
      head[i] = p;
    }
  }
  if (head.length < 3) {
    if (/[+-]/.test(head[head.length - 1]!)) throw celError('short version cannot contain PreRelease/Build meta data');
    while (head.length < 3) head.push('0');
  }
  return parseSemver(head.join('.'));
}

function parse(args: unknown[], fn: string): Semver {
  arity(fn, args, 1, 2);
  const s = stringArg(fn, args, 0);
  if (args.length === 2) {
    if (typeof args[1] !== 'boolean') throw noSuchOverload(fn, ...args);
    if (args[1]) return normalizeAndParse(s);
  }
  return parseSemver(s);
}

defineGlobal('semver', (args) => parse(args, 'semver'));
defineGlobal('isSemver', (args) => {
  try {
    parse(args, 'isSemver');
    return true;
  } catch (error) {
    if (error instanceof Error && !error.message.startsWith('no such overload')) return false;
    throw error;
  }
});

function semverOf(v: unknown, fn: string): Semver {
  if (v instanceof Semver) return v;
  throw noSuchOverload(fn, v);
}

const isSemverValue = (v: unknown): boolean => v instanceof Semver;
defineMember('major', (args) => (arity('major', args, 1), semverOf(args[0], 'major').major), isSemverValue);
defineMember('minor', (args) => (arity('minor', args, 1), semverOf(args[0], 'minor').minor), isSemverValue);
defineMember('patch', (args) => (arity('patch', args, 1), semverOf(args[0], 'patch').patch), isSemverValue);
defineMember('isGreaterThan', (args) => (arity('isGreaterThan', args, 2), semverOf(args[0], 'isGreaterThan').compare(semverOf(args[1], 'isGreaterThan')) > 0), isSemverValue);
defineMember('isLessThan', (args) => (arity('isLessThan', args, 2), semverOf(args[0], 'isLessThan').compare(semverOf(args[1], 'isLessThan')) < 0), isSemverValue);
defineMember('compareTo', (args) => (arity('compareTo', args, 2), BigInt(semverOf(args[0], 'compareTo').compare(semverOf(args[1], 'compareTo')))), isSemverValue);
