// Kube-style flag parsing: `--name=value`, `--name value`, `-v=2`, booleans bare or `=true|false`, positional args.
import { parseGoDuration } from '../server/request-checks.js';

export interface FlagSpec {
  readonly name: string;
  readonly short?: string;
  readonly type: 'string' | 'boolean' | 'int' | 'duration';
  readonly default?: string | boolean | number;
  readonly usage: string;
  /** accepted more than once (values collected) */
  readonly repeated?: boolean;
}

export type FlagValue = string | boolean | number | string[];

export interface ParsedFlags {
  readonly values: ReadonlyMap<string, FlagValue>;
  readonly positional: readonly string[];
  readonly set: ReadonlySet<string>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Go's time.ParseDuration, in milliseconds (the listener's parser: one reading of a duration everywhere). */
export function parseDuration(s: string): number {
  try {
    return parseGoDuration(s);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function convert(spec: FlagSpec, raw: string): FlagValue {
  switch (spec.type) {
    case 'string': return raw;
    case 'boolean':
      if (['true', '1', 't', 'T', 'TRUE', 'True'].includes(raw)) return true;
      if (['false', '0', 'f', 'F', 'FALSE', 'False'].includes(raw)) return false;
      throw new UsageError(`invalid argument ${JSON.stringify(raw)} for "--${spec.name}" flag: strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new UsageError(`invalid argument ${JSON.stringify(raw)} for "--${spec.name}" flag: strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
      return Number(raw);
    }
    case 'duration':
      try {
        return parseDuration(raw);
      } catch (err) {
        throw new UsageError(`invalid argument ${JSON.stringify(raw)} for "--${spec.name}" flag: ${(err as Error).message}`);
      }
  }
}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map<string, FlagSpec>();
  for (const s of specs) {
    byName.set(s.name, s);
    if (s.short) byName.set(s.short, s);
  }
  const values = new Map<string, FlagValue>();
  const set = new Set<string>();
  for (const s of specs) {
    if (s.default !== undefined) values.set(s.name, s.type === 'duration' && typeof s.default === 'string' ? parseDuration(s.default) : s.default);
    else if (s.repeated) values.set(s.name, []);
  }
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
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq === -1 ? body : body.slice(0, eq);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown flag: ${arg.startsWith('--') ? '--' : '-'}${name}`);
    let raw: string;
    if (eq !== -1) raw = body.slice(eq + 1);
    else if (spec.type === 'boolean') raw = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag needs an argument: --${spec.name}`);
      raw = next;
      i++;
    }
    const value = convert(spec, raw);
    if (spec.repeated) values.set(spec.name, [...(values.get(spec.name) as string[]), String(value)]);
    else values.set(spec.name, value);
    set.add(spec.name);
  }
  return { values, positional, set };
}

export function usageText(command: string, summary: string, specs: readonly FlagSpec[]): string {
  const names = specs.map((s) => `${s.short ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.type}`}`);
  // one column for the usage, however long the longest flag
  const width = Math.max(34, ...names.map((n) => n.length));
  const lines = specs.map((s, i) => {
    const def = s.default === undefined || s.default === '' || s.default === false ? '' : ` (default ${JSON.stringify(s.default)})`;
    return `  ${names[i]!.padEnd(width)} ${s.usage}${def}`;
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
