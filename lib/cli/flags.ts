// Kube-style flag parsing as spf13/pflag does it (flag.go parseArgs, parseLongArg, parseShortArg): `--name=value`,
// `--name value`, shorthands `-v=2`, `-v 2`, `-v2`, `-ho json`, booleans bare or `=true|false`, positional args. A
// single-dash long flag (`-admission-config`) is a run of shorthands, refused at its first unknown letter.
import { parseGoDuration } from '../server/request-checks.js';

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean' | 'int' | 'duration';
  readonly default?: string | boolean | number;
  readonly usage: string;
  /** accepted more than once (values collected) */
  readonly repeated?: boolean;
  /** what the help prints as the default where the default is computed (e.g. from the CPU count) */
  readonly defaultText?: string;
}

export type FlagValue = string | boolean | number | string[];

export interface ParsedFlags {
  readonly values: ReadonlyMap<string, FlagValue>;
  readonly positional: readonly string[];
  readonly set: ReadonlySet<string>;
}

export class UsageError extends Error {
  /** what the user may have meant (flags with their dashes, or command names), nearest first */
  readonly suggestions: readonly string[];
  constructor(message: string, suggestions: readonly string[] = []) {
    super(message);
    this.name = 'UsageError';
    this.suggestions = suggestions;
  }
}

/** Levenshtein distance, for suggestions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The names nearest `typed`, as cobra suggests commands (command.go SuggestionsFor): within an edit distance of 2,
 * or starting with what was typed; here also a name the typed one starts with (`--admission-config-file`).
 */
export function nearestNames(typed: string, names: readonly string[]): string[] {
  const lower = typed.toLowerCase();
  return names
    .map((name) => ({ name, distance: editDistance(lower, name.toLowerCase()) }))
    .filter(({ name, distance }) => distance <= 2 || (lower.length > 1 && (name.startsWith(lower) || lower.startsWith(name))))
    .sort((a, b) => a.distance - b.distance)
    .map(({ name }) => name);
}

/** Go's time.ParseDuration, in milliseconds (the listener's parser: one reading of a duration everywhere). */
export function parseDuration(s: string): number {
  try {
    return parseGoDuration(s);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** pflag's name of a flag in value errors: `-o, --output` or `--name`. */
function flagTitle(spec: FlagSpec): string {
  return spec.short ? `-${spec.short}, --${spec.name}` : `--${spec.name}`;
}

function convert(spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'string': return raw;
    case 'boolean':
      if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(raw)) return true;
      if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(raw)) return false;
      throw new UsageError(`invalid argument ${JSON.stringify(raw)} for ${JSON.stringify(flagTitle(spec))} flag: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new UsageError(`invalid argument ${JSON.stringify(raw)} for ${JSON.stringify(flagTitle(spec))} flag: strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return Number(raw);
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch (err) {
        throw new UsageError(`invalid argument ${JSON.stringify(raw)} for ${JSON.stringify(flagTitle(spec))} flag: ${(err as Error).message}`);
      }
  }
}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map<string, FlagSpec>();
  const byShort = new Map<string, FlagSpec>();
  for (const s of specs) {
    byName.set(s.name, s);
    if (s.short) byShort.set(s.short, s);
  }
  const values = new Map<string, FlagValue>();
  const set = new Set<string>();
  for (const s of specs) {
    if (s.default !== undefined) values.set(s.name, s.type === 'duration' && typeof s.default === 'string' ? parseDuration(s.default) : s.default);
    else if (s.repeated) values.set(s.name, []);
  }
  const assign = (spec: FlagSpec, raw: string): void => {
    const value = convert(spec, raw);
    if (spec.repeated) values.set(spec.name, [...(values.get(spec.name) as string[]), String(value)]);
    else values.set(spec.name, value);
    set.add(spec.name);
  };
  const longNames = specs.map((s) => s.name);
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      if (body.startsWith('-') || body.startsWith('=')) throw new UsageError(`bad flag syntax: ${arg}`);
      const eq = body.indexOf('=');
      const name = eq === -1 ? body : body.slice(0, eq);
      const spec = byName.get(name);
      if (!spec) throw new UsageError(`unknown flag: --${name}`, nearestNames(name, longNames).map((n) => `--${n}`));
      if (eq !== -1) assign(spec, body.slice(eq + 1));
      else if (spec.type === 'boolean') assign(spec, 'true');
      else if (i + 1 < argv.length) assign(spec, argv[++i]!);
      else throw new UsageError(`flag needs an argument: ${arg}`);
      continue;
    }
    // a run of shorthands: each letter a flag, until one takes the rest of the run (or the next argument) as its value
    let shorthands = arg.slice(1);
    while (shorthands.length > 0) {
      const letter = shorthands[0]!;
      const spec = byShort.get(letter);
      if (!spec) {
        // `-admission-config`: the user meant a long flag
        const meant = nearestNames(arg.slice(1).split('=')[0]!, longNames).map((n) => `--${n}`);
        throw new UsageError(`unknown shorthand flag: '${letter}' in -${shorthands}`, meant);
      }
      if (shorthands.length > 2 && shorthands[1] === '=') {
        assign(spec, shorthands.slice(2));
        shorthands = '';
      } else if (spec.type === 'boolean') {
        assign(spec, 'true');
        shorthands = shorthands.slice(1);
      } else if (shorthands.length > 1) {
        assign(spec, shorthands.slice(1));
        shorthands = '';
      } else if (i + 1 < argv.length) {
        assign(spec, argv[++i]!);
        shorthands = '';
      } else {
        throw new UsageError(`flag needs an argument: '${letter}' in -${shorthands}`);
      }
    }
  }
  return { values, positional, set };
}

/** -h, --help: every command's. */
export const helpFlag: FlagSpec = { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' };

/** Go's time.Duration String() of whole milliseconds: `500ms`, `3s`, `1m0s`, `1h2m3.5s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (Math.abs(ms) < 1000) return `${ms}ms`;
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  const seconds = (rest - minutes * 60_000) / 1000;
  return `${sign}${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${seconds}s`;
}

/** How the help prints a default, as pflag's FlagUsages does: strings quoted, others in their own syntax, zero values not at all. */
function defaultShown(spec: FlagSpec): string {
  if (spec.defaultText !== undefined) return ` (default ${spec.defaultText})`;
  if (spec.default === undefined || spec.default === '' || spec.default === false || spec.default === 0) return '';
  if (spec.type === 'string') return ` (default ${JSON.stringify(spec.default)})`;
  if (spec.type === 'duration') return ` (default ${goDuration(typeof spec.default === 'number' ? spec.default : parseDuration(String(spec.default)))})`;
  return ` (default ${String(spec.default)})`;
}

export function usageText(command: string, summary: string, specs: readonly FlagSpec[]): string {
  const names = specs.map((s) => `${s.short ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.type}`}`);
  // one column for the usage, however long the longest flag
  const width = Math.max(34, ...names.map((n) => n.length));
  const lines = specs.map((s, i) => {
    return `  ${names[i]!.padEnd(width)} ${s.usage}${defaultShown(s)}`;
  });
  return `Usage: ${command}\n\n${summary}\n\nFlags:\n${lines.join('\n')}\n`;
}

/** Typed accessors over ParsedFlags. */
export function flagString(f: ParsedFlags, name: string): string {
  const v = f.values.get(name);
  return typeof v === 'string' ? v : '';
}
export function flagNumber(f: ParsedFlags, name: string): number {
  const v = f.values.get(name);
  return typeof v === 'number' ? v : 0;
}
export function flagBool(f: ParsedFlags, name: string): boolean {
  return f.values.get(name) === true;
}
