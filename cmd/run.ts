// The executable's wiring, loaded by static-admissiond.ts once the Node version is known to be supported: process argv,
// stdio and signals to the CLI, and the exit with its code once everything it wrote has reached stdout and stderr (a
// pipe read slowly holds what process.exit would drop).
import { once } from 'node:events';
import { main } from '../lib/cli/main.js';

/** Exits with `code` after the writes before it: a stream calls write callbacks in order, so the empty writes' come last. */
function exitWhenWritten(code: number): void {
  process.exitCode = code;
  let open = 2;
  const done = (): void => {
    if (--open === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.destroyed || stream.writableEnded) done();
    else stream.write('', done);
  }
}

/** Runs the command line this process was started with. */
export function run(): void {
  const controller = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => controller.abort());
  }

  // A reader that went away (`| head`) is no crash: what is left to write is dropped, the command goes on to its code.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }

  main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    signal: controller.signal,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    drain: async () => {
      if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
    },
    stderrIsTTY: process.stderr.isTTY === true,
  }).then(
    (code) => exitWhenWritten(code),
    (err: unknown) => {
      process.stderr.write(`static-admissiond: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      exitWhenWritten(1);
    },
  );
}
