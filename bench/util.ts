// Shared by the benchmark harnesses: free loopback ports, readiness polling, process CPU from /proc, statistics.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function cpuSeconds(pid: number): number {
  // utime + stime of every thread of the process, in clock ticks (USER_HZ = 100)
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function httpStatus(url: string): Promise<number> {
  return new Promise((r) => {
    const req = httpGet(url, (res) => {
      res.resume();
      r(res.statusCode ?? 0);
    });
    req.on('error', () => r(0));
  });
}

/** A plain-HTTP GET's body (a daemon's /metrics). */
export function metricsText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpGet(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

/**
 * A benchmark's temporary directory and the processes it starts: `cleanup` (also run at exit) kills those still
 * running and removes the directory.
 */
export function benchWorkspace(prefix: string): { readonly tmp: string; readonly children: ChildProcess[]; readonly cleanup: () => void } {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  const cleanup = (): void => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  return { tmp, children, cleanup };
}

export async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(50);
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
export const fmt = (n: number, d = 2): string => (Number.isFinite(n) ? n.toFixed(d) : '—');

/** An AdmissionConfiguration whose ValidatingAdmissionPolicy plugin loads `dir`. */
export function validatingAdmissionConfig(dir: string): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: ${dir}
`;
}
