// Helpers of the CLI tests: run a subcommand in-process, capturing what it prints.
import { main } from '../../lib/cli/main.js';

export async function run(argv: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    ...(stdin === undefined ? {} : { readStdin: async () => Buffer.from(stdin) }),
  });
  return { code, out, err };
}
