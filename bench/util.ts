// Shared by the benchmark harnesses: the daemon's command line, free loopback ports, readiness polling, process CPU
// from /proc, statistics.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { createCertificateAuthority } from '../lib/server/dev-cert.js';
import type { CertificateAuthority } from '../lib/server/dev-cert.js';

/** The node flags of an executable's `#!/usr/bin/env -S node FLAGS…` line (none for `#!/usr/bin/env node`). */
export function shebangNodeFlags(text: string): string[] {
  const m = /^#!\/usr\/bin\/env(?: -S)? node((?: +\S+)*) *$/.exec(text.split('\n', 1)[0]!);
  return m === null ? [] : m[1]!.split(' ').filter((flag) => flag !== '');
}

/**
 * `node` arguments that start the daemon of the build at `buildRoot` as its installed command does: the flags of
 * dist/cmd/static-admissiond.js's `#!` line, then the file. Benches measure the daemon as systemd runs it; another
 * build (--compare, --root) runs with its own line.
 */
export function executableArgv(buildRoot: string): string[] {
  return commandArgv(join(buildRoot, 'dist', 'cmd', 'static-admissiond.js'));
}

/** `node` arguments that run the executable `file` as its `#!` line does. */
export function commandArgv(file: string): string[] {
  return [...shebangNodeFlags(readFileSync(file, 'utf8')), file];
}

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export function cpuSeconds(pid: number): number {
  return threadCpuSeconds(pid);
}

/**
 * utime + stime from /proc, in seconds (clock ticks, USER_HZ = 100): of every thread of process `pid`, or of its
 * thread `tid` alone (the main thread's tid is the pid).
 */
export function threadCpuSeconds(pid: number, tid?: number): number {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
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
 * running and removes the directory; `stop` first asks them to exit (SIGTERM) and waits for that, at most `graceMs`.
 */
export function benchWorkspace(prefix: string): {
  readonly tmp: string;
  readonly children: ChildProcess[];
  readonly cleanup: () => void;
  readonly stop: (graceMs?: number) => Promise<void>;
} {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const children: ChildProcess[] = [];
  const cleanup = (): void => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
  };
  const stop = async (graceMs = 5_000): Promise<void> => {
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = Promise.all(running.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve()))));
    for (const c of running) c.kill('SIGTERM');
    await Promise.race([exited, delay(graceMs)]);
    cleanup();
  };
  process.on('exit', cleanup);
  return { tmp, children, cleanup, stop };
}

/** A throw-away CA and its serving certificate for 127.0.0.1, written to `dir`/tls.crt and `dir`/tls.key. */
export async function writeServingCertificate(dir: string, caName: string, commonName: string): Promise<{ ca: CertificateAuthority; certFile: string; keyFile: string }> {
  const ca = await createCertificateAuthority(caName);
  const serving = await ca.issue({ commonName, hosts: ['127.0.0.1'] });
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, serving.certPEM);
  writeFileSync(keyFile, serving.keyPEM);
  return { ca, certFile, keyFile };
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

/** validatingAdmissionConfig plus a MutatingAdmissionPolicy plugin loading `mutatingDir`. */
export function mutatingAdmissionConfig(validatingDir: string, mutatingDir: string): string {
  return `${validatingAdmissionConfig(validatingDir)}- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: ${mutatingDir}
`;
}

/** mulberry32: a small seeded generator, so a run can be repeated. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
