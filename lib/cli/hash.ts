// `static-admissiond hash DIR`: the content hash kube-apiserver computes for a manifest directory, to compare
// control-plane nodes with each other and with the apiserver's last_config_info metric.
import { resolve } from 'node:path';
import { ManifestError } from '../manifest/errors.js';
import { readManifestFilesSync } from '../manifest/files.js';
import type { CommandIO } from './common.js';
import { UsageError } from './flags.js';

export function hash(argv: readonly string[], io: CommandIO): number {
  if (argv.includes('-h') || argv.includes('--help')) {
    io.stdout('Usage: static-admissiond hash DIR\n\nPrints the content hash of a manifest directory ("" when it has no content), as kube-apiserver computes it.\n');
    return 0;
  }
  if (argv.length !== 1 || argv[0]!.startsWith('-')) throw new UsageError('hash takes exactly one directory');
  try {
    // an empty path stays empty: the loader refuses it as upstream's LoadFiles does (resolve('') is the cwd)
    const dir = argv[0]!;
    io.stdout(`${readManifestFilesSync(dir === '' ? '' : resolve(dir)).hash}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
}
