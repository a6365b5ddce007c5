// The directory entries a load skips, and why: upstream's manifest.LoadFiles reads only the direct children named
// .yaml, .yml or .json and skips zero-byte files, silently. A manifest saved as `policy.yaml.txt`, put in a
// subdirectory or left empty then just does not load; `validate` and `serve` name each. Editor droppings and hidden
// entries (`.swp`, `~`, `.#…`, `#…#`, any dotfile, a ConfigMap mount's `..data`) are only counted. Listing them is
// separate from the load (files.ts), which is unchanged: the same files load, the content hash is the same.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isManifestFileName } from './files.js';

export type IgnoredReason = 'suffix' | 'directory' | 'empty';

export interface IgnoredEntry {
  readonly name: string;
  readonly reason: IgnoredReason;
}

export interface IgnoredEntries {
  /** skipped entries worth naming, in name order */
  readonly named: readonly IgnoredEntry[];
  /** skipped editor droppings and hidden entries, counted only */
  readonly hidden: number;
}

const REASONS: Readonly<Record<IgnoredReason, string>> = {
  suffix: 'not named .yaml, .yml or .json',
  directory: 'a subdirectory (only the directory\'s own files are read)',
  empty: 'an empty file',
};

/** An editor's swap, backup or lock file, or a hidden entry. */
export function isEditorOrHidden(name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || /\.sw[a-p]$/.test(name) || (name.startsWith('#') && name.endsWith('#'));
}

/** The entries of a manifest directory that a load skips; nothing when it cannot be read (the load says why). */
export function ignoredEntries(dir: string): IgnoredEntries {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return { named: [], hidden: 0 };
  }
  const named: IgnoredEntry[] = [];
  let hidden = 0;
  for (const entry of entries.sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))) {
    let reason: IgnoredReason | undefined;
    if (entry.isDirectory()) reason = 'directory';
    else if (!isManifestFileName(entry.name)) reason = 'suffix';
    else {
      try {
        if (statSync(join(dir, entry.name)).size === 0) reason = 'empty';
      } catch {
        // unreadable: the load reports it
      }
    }
    if (reason === undefined) continue;
    if (isEditorOrHidden(entry.name)) hidden++;
    else named.push({ name: entry.name, reason });
  }
  return { named, hidden };
}

/** One line per named entry and one for the counted ones, for `validate` and the daemon's log. */
export function describeIgnored(ignored: IgnoredEntries): string[] {
  const lines = ignored.named.map((e) => `ignored ${JSON.stringify(e.name)}: ${REASONS[e.reason]}`);
  if (ignored.hidden > 0) lines.push(`ignored ${ignored.hidden} editor or hidden ${ignored.hidden === 1 ? 'entry' : 'entries'} (.swp, ~, .#…, dotfiles)`);
  return lines;
}
