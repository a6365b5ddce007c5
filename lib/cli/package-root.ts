// Where the installed package is and which version it is. A leaf, so that `version` loads nothing else.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository / package root: this file is dist/lib/cli/package-root.js. */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
