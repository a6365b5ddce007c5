// Helpers of the end-to-end tests: the real executable as a child process, and HTTPS POSTs to it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

export const root = new URL('../../../', import.meta.url).pathname;
export const executable = join(root, 'dist/cmd/static-admissiond.js');

export interface Daemon {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
}

export function spawnDaemon(args: readonly string[]): Daemon {
  const child = spawn(process.execPath, [executable, ...args], { cwd: root });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return { child, stdout: () => out, stderr: () => err };
}

export async function waitFor<T>(what: string, probe: () => T | undefined, d: Daemon, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (d.child.exitCode !== null) assert.fail(`daemon exited ${d.child.exitCode} while waiting for ${what}:\n${d.stderr()}`);
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}:\n${d.stderr()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function stop(d: Daemon): Promise<number | null> {
  if (d.child.exitCode !== null) return d.child.exitCode;
  const exited = new Promise<number | null>((r) => d.child.once('exit', r));
  d.child.kill('SIGTERM');
  return exited;
}

export function post(url: string, ca: string, body: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca, headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
