#!/usr/bin/env node
// The one executable: wires process argv, stdio and signals to the CLI and exits with its code.
import { once } from 'node:events';
import { main } from '../lib/cli/main.js';

const controller = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => controller.abort());
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
  // exit once stdout and stderr have written everything: a pipe is written asynchronously, and exiting with writes
  // pending would cut the output
  (code) => {
    process.exitCode = code;
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  },
  (err: unknown) => {
    process.stderr.write(`static-admissiond: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
