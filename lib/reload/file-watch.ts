// One file followed as the manifest directories are (manifest-source.ts): a chokidar watch plus a polling fallback,
// each only a trigger to read the file again and compare its content hash. The watch is on the file's directory
// (depth 0), so a file replaced by rename, as careful writers and `kubectl`-side tooling do, is seen like an edit.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { watch } from 'chokidar';
import type { FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.js';

export interface FileWatchOptions {
  readonly file: string;
  /** polling fallback period (serve's --reload-interval) */
  readonly intervalMs: number;
  /** quiet time after a watch event before reading, so an editor's unlink+add is read once; default 20 */
  readonly debounceMs?: number;
  /** called after each change of the file's content (its removal included) */
  readonly onChange: () => void;
  readonly logger: Logger;
}

function contentHash(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return '';
  }
}

/** Follows the file until `signal` aborts; `onChange` runs after each change of its content (not for the first read). */
export async function watchFile(options: FileWatchOptions, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const file = resolve(options.file);
  const name = basename(file);
  let last = contentHash(file);
  const check = (): void => {
    if (signal.aborted) return;
    const hash = contentHash(file);
    if (hash === last) return;
    last = hash;
    options.onChange();
  };
  let debounce: NodeJS.Timeout | undefined;
  const trigger = (): void => {
    clearTimeout(debounce);
    debounce = setTimeout(check, options.debounceMs ?? 20);
  };
  let watcher: FSWatcher | undefined;
  try {
    // not persistent, for the reason given in manifest-source.ts; the ticker below keeps the process alive
    watcher = watch(dirname(file), { depth: 0, ignoreInitial: true, persistent: false, followSymlinks: false });
    watcher.on('all', (_event, path) => {
      if (basename(path) === name) trigger();
    });
    // chokidar throttles repeated changes of one path; the raw events are not, and a second edit must not wait
    watcher.on('raw', (_event, path) => {
      if (path === null || basename(String(path)) === name) trigger();
    });
    watcher.on('error', (err) => options.logger.error(err, 'watching the registration file', { file }));
    // chokidar sets its fs watch asynchronously: a change made before that would wait for the poll, so the file is
    // read once more when the watch is live (upstream's check right after registering a watch, watchuntil.go)
    watcher.on('ready', trigger);
  } catch (err) {
    // the poll still follows it
    options.logger.error(err, 'watching the registration file', { file });
  }
  const ticker = setInterval(check, options.intervalMs);
  await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
  clearInterval(ticker);
  clearTimeout(debounce);
  await watcher?.close();
}
