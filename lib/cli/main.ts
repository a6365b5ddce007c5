// Subcommand dispatch. Returns the exit code; never exits the process itself.
import type { CommandIO } from './common.js';
import { packageVersion } from './common.js';
import { UsageError } from './flags.js';
import { hash } from './hash.js';
import { registration } from './registration.js';
import { serve } from './serve.js';
import { review } from './review.js';
import { test } from './test.js';
import { validate } from './validate.js';

const usage = `Usage: static-admissiond [command] [flags]

Manifest-based admission control (KEP-5793) for any kube-apiserver.

Commands:
  serve       run the daemon (default when the first argument is a flag)
  validate    load manifest directories as the daemon would; report counts, hashes, warnings
  hash DIR    print the content hash of a manifest directory
  review F    run one AdmissionReview (file or -) through the admission chain offline; print the response
  test S...   run AdmissionTest suites (files or directories) through the admission chain; exit 1 on a failed case
  registration  print the webhook configurations that point the apiserver at this daemon
  version     print the version

Run 'static-admissiond <command> --help' for a command's flags.
`;

export async function main(argv: readonly string[], io: CommandIO): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === undefined || first.startsWith('-')) {
      if (first === '-h' || first === '--help') {
        io.stdout(usage);
        return 0;
      }
      return await serve(argv, io);
    }
    switch (first) {
      case 'serve': return await serve(rest, io);
      case 'validate': return await validate(rest, io);
      case 'hash': return hash(rest, io);
      case 'registration': return await registration(rest, io);
      case 'review': return await review(rest, io);
      case 'test': return await test(rest, io);
      case 'version': io.stdout(`static-admissiond ${packageVersion()}\n`); return 0;
      case 'help': io.stdout(usage); return 0;
      default: throw new UsageError(`unknown command ${JSON.stringify(first)}`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message}\nRun 'static-admissiond --help' for usage.\n`);
      return 2;
    }
    throw err;
  }
}
