// Reading kube-apiserver audit logs as a stream of event texts, never a whole file in memory:
//
// - the log backend's JSON lines (one audit.k8s.io/v1 Event per line), plain or gzip'd (told by the gzip magic
//   bytes 1f 8b, not by the file name: lumberjack's --audit-log-compress writes `audit-<time>.log.gz`, and people
//   rename files), several gzip members in one file included;
// - the webhook backend's EventList bodies (`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[…]}`), one
//   per line or pretty-printed over several lines: a line that does not hold a whole JSON value is joined with the
//   next ones until the braces balance. An EventList is held whole while its items are read (the webhook backend
//   batches at most --audit-webhook-batch-max-size events, 400 by default).
//
// Files are read in the order given: pass rotated files oldest first (lumberjack's names sort so, and a shell glob
// `audit*.log*` puts the live `audit.log` after `audit-2026-…`), as the old-object tracking follows the log's order.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** One audit Event's JSON text, or an Event already parsed out of an EventList. */
export interface AuditRecord {
  readonly file: string;
  /** the line the event (or its EventList) starts on, from 1 */
  readonly line: number;
  readonly text?: string;
  readonly event?: Record<string, unknown>;
}

/** A line that is not JSON, or JSON that is not an Event or EventList: counted and reported, never fatal. */
export interface MalformedRecord {
  readonly file: string;
  readonly line: number;
  readonly malformed: string;
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function openLog(path: string): Promise<Readable> {
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  if (!(await isGzip(path))) return raw;
  const gunzip = createGunzip();
  raw.on('error', (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}

/** Brace depth change of a line, outside JSON strings (for pretty-printed values spanning lines). */
function depthChange(line: string, state: { inString: boolean }): number {
  let depth = 0;
  let escaped = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (state.inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) state.inString = false;
    } else if (c === 0x22) state.inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return depth;
}

const eventListPrefix = /^\s*\{\s*"kind"\s*:\s*"EventList"/;

function* recordsOf(file: string, line: number, text: string): Generator<AuditRecord | MalformedRecord> {
  // EventLists are parsed here to split their items; single Events stay text for the cheap filter (filter.ts)
  if (!eventListPrefix.test(text) && !text.includes('"EventList"')) {
    yield { file, line, text };
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    yield { file, line, malformed: (err as Error).message };
    return;
  }
  const v = value as { kind?: unknown; items?: unknown };
  if (v.kind !== 'EventList') {
    yield { file, line, text };
    return;
  }
  if (!Array.isArray(v.items)) {
    yield { file, line, malformed: 'EventList without an items list' };
    return;
  }
  for (const item of v.items) {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) yield { file, line, event: item as Record<string, unknown> };
    else yield { file, line, malformed: 'EventList item is not an object' };
  }
}

/** Every event of the files, in order. A file that cannot be opened or read throws (the command's exit 2). */
export async function* readAuditRecords(files: readonly string[]): AsyncGenerator<AuditRecord | MalformedRecord> {
  for (const file of files) {
    const input = await openLog(file);
    const lines = createInterface({ input, crlfDelay: Infinity });
    let n = 0;
    let pending: string[] = [];
    let pendingLine = 0;
    let depth = 0;
    const state = { inString: false };
    for await (const line of lines) {
      n++;
      const trimmed = line.trim();
      if (pending.length > 0 && trimmed.startsWith('{"')) {
        // a JSON line where a pretty-printed value was still open: that value was cut short
        yield { file, line: pendingLine, malformed: 'a JSON value cut short (the next line starts another)' };
        pending = [];
      }
      if (pending.length === 0) {
        if (trimmed === '') continue;
        // the fast path: a JSON line (starts with {, ends with }); a malformed one fails to parse later
        if (trimmed.startsWith('{') && trimmed !== '{') {
          if (trimmed.endsWith('}')) yield* recordsOf(file, n, trimmed);
          else yield { file, line: n, malformed: 'a JSON line cut short (a truncated write?)' };
          continue;
        }
        if (trimmed !== '{') {
          yield { file, line: n, malformed: `not a JSON object: ${JSON.stringify(trimmed.slice(0, 40))}` };
          continue;
        }
        // `{` alone: a pretty-printed value (a saved webhook backend body), read until its braces balance
        pendingLine = n;
        state.inString = false;
        depth = 0;
      }
      pending.push(line);
      depth += depthChange(line, state);
      if (depth <= 0 && !state.inString) {
        const text = pending.join('\n');
        pending = [];
        yield* recordsOf(file, pendingLine, text);
      }
    }
    if (pending.length > 0) yield { file, line: pendingLine, malformed: 'unexpected end of file inside a JSON value (a truncated last line?)' };
  }
}
