// Shared pieces of the admission listener tests: temporary directories, certificates, HTTPS calls with a chosen
// CA / client certificate, the captured apiserver requests, and polling with a deadline.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import type { Agent } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { createLogger } from '../../lib/log/logger.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import type { Logger } from '../../lib/log/logger.js';

/** dist/test/server → the package root */
export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function tempDir(prefix = 'sad-server-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Replaces a file the way renewers do: write a temporary file beside it, then rename over. */
export function replaceFile(path: string, content: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(everyMs);
  }
}

/** A logger that keeps its lines (JSON) for assertions. */
export function memoryLogger(verbosity = 4): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ format: 'json', verbosity, write: (line) => lines.push(line) }), lines };
}

export function newRegistry(): Registry {
  return new Registry();
}

/** The value of one sample in Prometheus text output (`name{labels} value`), or undefined. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([^{\s]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map<string, string>();
    for (const part of (m[2] ?? '').match(/[a-zA-Z_]+="[^"]*"/g) ?? []) {
      const eq = part.indexOf('=');
      have.set(part.slice(0, eq), part.slice(eq + 2, -1));
    }
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** the connection was reused from the agent's pool */
  reusedSocket: boolean;
}

export interface CallOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** CA that verifies the serving certificate */
  ca?: string | Buffer | Array<string | Buffer>;
  /** client certificate and key */
  cert?: string;
  key?: string;
  agent?: Agent;
}

/** One HTTPS request to `baseURL`; rejects on connection or TLS errors. */
export function call(baseURL: string, options: CallOptions = {}): Promise<Reply> {
  const url = new URL(options.path ?? '/validate', baseURL);
  return new Promise<Reply>((resolvePromise, reject) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', ...options.headers };
    if (options.body !== undefined && headers['Content-Length'] === undefined && headers['Transfer-Encoding'] === undefined) {
      headers['Content-Length'] = Buffer.byteLength(options.body);
    }
    for (const [k, v] of Object.entries(headers)) if (v === '') delete headers[k];
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: options.method ?? 'POST',
      headers,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.cert === undefined ? {} : { cert: options.cert, key: options.key }),
      ...(options.agent === undefined ? { agent: false } : { agent: options.agent }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), reusedSocket: req.reusedSocket }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The SHA-256 fingerprint of the certificate a new connection to `baseURL` is shown. */
export function servedFingerprint(baseURL: string): Promise<string> {
  const url = new URL(baseURL);
  return new Promise<string>((resolvePromise, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.destroy();
      resolvePromise(fp);
    });
    socket.on('error', reject);
  });
}

export interface Capture {
  name: string;
  /** e.g. /validate?timeout=5s */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The captured kube-apiserver requests under testdata/admission/captures. */
export function loadCaptures(): Capture[] {
  const dir = join(packageRoot, 'testdata', 'admission', 'captures');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.http.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.http.json'.length);
      const meta = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { url: string; headers: Record<string, string> };
      return { name, url: meta.url, headers: meta.headers, body: readFileSync(join(dir, `${name}.json`)) };
    });
}

/** Headers to replay a capture with (Host and Content-Length left to the client). */
export function replayHeaders(capture: Capture): Record<string, string> {
  const { host: _host, 'content-length': _length, ...rest } = capture.headers;
  return rest;
}

/** A CA and a serving pair for 127.0.0.1/localhost, written to a temporary directory (removed by cleanup()). */
export async function servingFiles(label: string): Promise<{ caPEM: string; certFile: string; keyFile: string; cleanup: () => void }> {
  const tmp = tempDir();
  const ca = await createCertificateAuthority(`${label} CA`);
  const serving = await ca.issue({ commonName: 'static-admissiond', hosts: ['127.0.0.1', 'localhost'] });
  const certFile = join(tmp.dir, 'tls.crt');
  const keyFile = join(tmp.dir, 'tls.key');
  writeFileSync(certFile, serving.certPEM);
  writeFileSync(keyFile, serving.keyPEM);
  return { caPEM: ca.certPEM, certFile, keyFile, cleanup: tmp.cleanup };
}

/** A ConfigMap CREATE AdmissionReview with only the fields every request must carry; `request` adds or overrides. */
export const minimalReview = (extra: Record<string, unknown> = {}, request: Record<string, unknown> = {}): string => JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'c0ffee00-0000-4000-8000-000000000001',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    operation: 'CREATE',
    ...request,
  },
  ...extra,
});
