// `static-admissiond hash DIR`: the content hash kube-apiserver computes for a manifest directory, to compare
// control-plane nodes with each other and with the apiserver's last_config_info metric.
import { resolve } from 'node:path';
import { ManifestError } from '../manifest/errors.js';
import { readManifestFilesSync } from '../manifest/files.js';
import type { CommandIO } from './common.js';
import { flagBool, helpFlag, parseFlags, UsageError, usageText } from './flags.js';

export function hash(argv: readonly string[], io: CommandIO): number {
  const flags = parseFlags(argv, [helpFlag]);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond hash DIR', 'Prints the content hash of a manifest directory ("" when it has no content), as kube-apiserver computes it. Exit 0 printed, 1 when the directory cannot be read, 2 on a usage error.', [helpFlag]));
    return 0;
  }
  if (flags.positional.length !== 1) throw new UsageError('hash takes exactly one directory');
  try {
    // an empty path stays empty: the loader refuses it as upstream's LoadFiles does (resolve('') is the cwd)
    const dir = flags.positional[0]!;
    io.stdout(`${readManifestFilesSync(dir === '' ? '' : resolve(dir)).hash}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
}
