// Structured logging on stderr in kube's two formats: klog text (`I1121 18:50:00.123456  1234 source] "msg" k="v"`)
// and JSON lines (`{"ts":…,"v":0,"msg":…}`), with -v verbosity. The writer is injectable for tests.

export type LogFormat = 'text' | 'json';
export type LogValue = string | number | boolean | null | undefined | Error | readonly string[] | Record<string, unknown>;
export type LogFields = Record<string, LogValue>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  /** logged only when -v is at least `level` */
  /** `enabled`: the verbosity is at least `level` (skip building fields nobody logs) */
  v(level: number): { readonly enabled: boolean; info(msg: string, fields?: LogFields): void };
  error(err: unknown, msg: string, fields?: LogFields): void;
  with(source: string): Logger;
}

export interface LoggerOptions {
  format?: LogFormat;
  verbosity?: number;
  write?: (line: string) => void;
  now?: () => Date;
  source?: string;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function klogHeader(severity: 'I' | 'E', d: Date, source: string): string {
  const micros = pad(d.getUTCMilliseconds() * 1000, 6);
  return `${severity}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)} ${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${micros} ${String(process.pid).padStart(7)} ${source}]`;
}

function textValue(v: LogValue): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return '<nil>';
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function jsonValue(v: LogValue): unknown {
  return v instanceof Error ? v.message : v;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'text';
  const verbosity = options.verbosity ?? 0;
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const now = options.now ?? (() => new Date());
  const source = options.source ?? 'static-admissiond';

  const emit = (severity: 'I' | 'E', level: number, msg: string, fields: LogFields, err?: unknown): void => {
    const d = now();
    if (format === 'json') {
      const entry: Record<string, unknown> = { ts: d.getTime() / 1000, caller: source };
      if (severity === 'I') entry.v = level;
      entry.msg = msg;
      if (err !== undefined) entry.err = err instanceof Error ? err.message : String(err);
      for (const [k, v] of Object.entries(fields)) entry[k] = jsonValue(v);
      write(JSON.stringify(entry));
      return;
    }
    let line = `${klogHeader(severity, d, source)} ${JSON.stringify(msg)}`;
    if (err !== undefined) line += ` err=${textValue(err instanceof Error ? err : String(err))}`;
    for (const [k, v] of Object.entries(fields)) line += ` ${k}=${textValue(v)}`;
    write(line);
  };

  const logger: Logger = {
    info: (msg, fields = {}) => emit('I', 0, msg, fields),
    v: (level) => ({
      enabled: level <= verbosity,
      info: (msg, fields = {}) => {
        if (level <= verbosity) emit('I', level, msg, fields);
      },
    }),
    error: (err, msg, fields = {}) => emit('E', 0, msg, fields, err),
    with: (newSource) => createLogger({ ...options, source: newSource }),
  };
  return logger;
}
