// Subcommand dispatch. Returns the exit code; never exits the process itself.
import type { CommandIO } from './common.js';
import { packageVersion } from './package-root.js';
import { flagBool, helpFlag, nearestNames, parseFlags, UsageError, usageText } from './flags.js';

const usage = `Usage: static-admissiond [command] [flags]

Manifest-based admission control (KEP-5793) for any kube-apiserver.

Commands:
  serve         run the daemon (the command when the first argument is a flag)
  validate      load manifest directories as the daemon would; report counts, hashes, warnings
  hash DIR      print the content hash of a manifest directory
  review FILE   run one AdmissionReview (a file, or - for standard input) through the admission chain offline
  test SUITE... run AdmissionTest suites (files or directories) through the admission chain
  registration  print the webhook configurations that point the apiserver at this daemon
  replay LOG... replay audit logs' writes through a candidate manifest set (and a baseline)
  audit-policy  print the audit policy that records what replay needs of a manifest set
  version       print the version
  help COMMAND  print a command's help

Run 'static-admissiond <command> --help' for a command's flags.
`;

type Command = (argv: readonly string[], io: CommandIO) => number | Promise<number>;

/**
 * A command whose module is loaded when it runs, so that `version`, `help` and a usage error start without loading
 * the daemon (the first `npx static-admissiond version` is timed: issue 24).
 */
function lazy<K extends string>(load: () => Promise<{ readonly [name in K]: Command }>, name: K): Command {
  return async (argv, io) => (await load())[name](argv, io);
}

function version(argv: readonly string[], io: CommandIO): number {
  const flags = parseFlags(argv, [helpFlag]);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond version', 'Prints the version of static-admissiond. Exit 0, 2 on a usage error.', [helpFlag]));
    return 0;
  }
  if (flags.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(flags.positional[0])}`);
  io.stdout(`static-admissiond ${packageVersion()}\n`);
  return 0;
}

const commands: Readonly<Record<string, Command>> = Object.assign(Object.create(null) as Record<string, Command>, {
  serve: lazy(() => import('./serve.js'), 'serve'),
  validate: lazy(() => import('./validate.js'), 'validate'),
  hash: lazy(() => import('./hash.js'), 'hash'),
  registration: lazy(() => import('./registration.js'), 'registration'),
  review: lazy(() => import('./review.js'), 'review'),
  test: lazy(() => import('./test.js'), 'test'),
  replay: lazy(() => import('./replay.js'), 'replay'),
  'audit-policy': lazy(() => import('./audit-policy.js'), 'auditPolicy'),
  version,
});

function help(argv: readonly string[], io: CommandIO): number | Promise<number> {
  const [name, ...extra] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    io.stdout(usage);
    return 0;
  }
  if (extra.length > 0) throw new UsageError(`help takes one command, not ${JSON.stringify(extra[0])}`);
  return commandNamed(name)(['--help'], io);
}

function commandNamed(name: string): Command {
  if (name === 'help') return help;
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    throw new UsageError(`unknown command ${JSON.stringify(name)} for "static-admissiond"`, nearestNames(name, [...Object.keys(commands), 'help']));
  }
  return command;
}

/** A usage error as kubectl prints one: the error, what may have been meant, and the command's own help. */
function usageErrorText(err: UsageError, command: string | undefined): string {
  const meant = err.suggestions.length === 0 ? '' : `\nDid you mean this?\n${err.suggestions.map((s) => `\t${s}\n`).join('')}\n`;
  return `error: ${err.message}\n${meant}See 'static-admissiond ${command === undefined ? '' : `${command} `}--help' for usage.\n`;
}

export async function main(argv: readonly string[], io: CommandIO): Promise<number> {
  const [first, ...rest] = argv;
  // the first argument a flag (or none): the flags are serve's
  const name = first === undefined || first.startsWith('-') ? undefined : first;
  try {
    if (name === undefined) {
      if (first === '-h' || first === '--help') {
        io.stdout(usage);
        return 0;
      }
      return await commandNamed('serve')(argv, io);
    }
    return await commandNamed(name)(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      const known = name === undefined ? 'serve' : name === 'help' || Object.hasOwn(commands, name) ? name : undefined;
      io.stderr(usageErrorText(err, known));
      return 2;
    }
    throw err;
  }
}
