// The plain-HTTP listener for machines: /livez, /readyz, /healthz (deprecated alias of readyz) and /metrics.
// Kept apart from the admission listener so health never depends on client certificates.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { runChecks } from './checks.js';
import type { HealthCheck } from './checks.js';

export interface HealthServerOptions {
  /** `host:port`; port 0 picks a free one */
  bindAddress: string;
  registry: Registry;
  livez: () => readonly HealthCheck[];
  readyz: () => readonly HealthCheck[];
}

export interface HealthServer {
  readonly url: string;
  close(): Promise<void>;
}

export function splitHostPort(bindAddress: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(bindAddress);
  if (!m) throw new Error(`invalid address ${JSON.stringify(bindAddress)}: expected host:port`);
  return { host: m[1] === '' ? '0.0.0.0' : m[1]!, port: Number(m[2]) };
}

function send(res: ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

async function handle(options: HealthServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://health');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n');
  if (url.pathname === '/metrics') {
    const body = await options.registry.metrics();
    return send(res, 200, body, options.registry.contentType);
  }
  const m = /^\/(livez|readyz|healthz)(?:\/(.+))?$/.exec(url.pathname);
  if (!m) return send(res, 404, '404 page not found\n');
  const endpoint = m[1]!;
  const checks = endpoint === 'livez' ? options.livez() : options.readyz();
  const report = runChecks(endpoint, checks, {
    verbose: url.searchParams.has('verbose'),
    exclude: url.searchParams.getAll('exclude'),
    ...(m[2] === undefined ? {} : { only: decodeURIComponent(m[2]) }),
  });
  if (!report) return send(res, 404, '404 page not found\n');
  return send(res, report.ok ? 200 : 500, report.body);
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const { host, port } = splitHostPort(options.bindAddress);
  const server: Server = createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => send(res, 500, `internal error: ${(err as Error).message}\n`));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
