// Real local HTTPS webhook servers (127.0.0.1, port 0, certificates from dev-cert.ts) recording what they receive,
// webhook configurations loaded through the real manifest loader, and metric scraping.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import type { StaticWebhook } from '../../lib/manifest/compile.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import type { CertificateAndKey, CertificateAuthority } from '../../lib/server/dev-cert.js';
import { sampleValue } from '../server/helpers.js';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** name/value pairs as sent (a header sent twice appears twice) */
  readonly rawHeaders: readonly string[];
  readonly raw: Buffer;
  readonly review: { apiVersion: string; kind: string; request: AdmissionRequest & { uid: string } };
  /** subject CN of the client certificate presented, if any */
  readonly clientCN: string | undefined;
}

/** What a handler answers: a JSON body (200 unless `status`), raw text, or 'hang' (headers then nothing). */
export type Reply =
  | { readonly json: unknown; readonly status?: number; readonly delayMs?: number }
  | { readonly text: string; readonly status: number; readonly contentType?: string }
  | 'hang-after-headers'
  | 'hang';

export type Handler = (received: Received) => Reply;

export interface WebhookServer {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** requests whose connection closed before an answer was complete (cancelled or cut off by the client) */
  readonly abandoned: Received[];
  handler: Handler;
  close(): Promise<void>;
}

/** The answer a well-behaved webhook gives. */
export function allow(r: Received, extra: Record<string, unknown> = {}): Reply {
  return { json: { apiVersion: r.review.apiVersion, kind: 'AdmissionReview', response: { uid: r.review.request.uid, allowed: true, ...extra } } };
}

export function deny(r: Received, status: Record<string, unknown>, extra: Record<string, unknown> = {}): Reply {
  return { json: { apiVersion: r.review.apiVersion, kind: 'AdmissionReview', response: { uid: r.review.request.uid, allowed: false, status, ...extra } } };
}

export function patchReply(r: Received, ops: unknown[], extra: Record<string, unknown> = {}): Reply {
  return allow(r, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra });
}

export interface ServerOptions {
  readonly serving: CertificateAndKey;
  /** ask for a client certificate (any: the test inspects it) */
  readonly requestCert?: boolean;
}

export async function startWebhookServer(options: ServerOptions, handler: Handler): Promise<WebhookServer> {
  const received: Received[] = [];
  const abandoned: Received[] = [];
  const server: Server = createServer({
    cert: options.serving.certPEM,
    key: options.serving.keyPEM,
    ...(options.requestCert ? { requestCert: true, rejectUnauthorized: false } : {}),
  });
  const ws: WebhookServer = {
    url: '',
    port: 0,
    received,
    abandoned,
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const peer = (req.socket as TLSSocket).getPeerCertificate?.();
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        raw,
        review: JSON.parse(raw.toString('utf8')) as Received['review'],
        clientCN: peer && peer.subject ? (peer.subject.CN as string | undefined) : undefined,
      };
      received.push(r);
      res.on('close', () => {
        if (!res.writableFinished) abandoned.push(r);
      });
      const reply = ws.handler(r);
      if (reply === 'hang') return;
      if (reply === 'hang-after-headers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"apiVersion":"admission.k8s.io/v1",');
        return;
      }
      const send = (): void => {
        if ('json' in reply) {
          const body = JSON.stringify(reply.json);
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        } else {
          res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain' });
          res.end(reply.text);
        }
      };
      if ('json' in reply && reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(ws, { url: `https://127.0.0.1:${port}`, port });
}

let sharedCA: Promise<{ ca: CertificateAuthority; serving: CertificateAndKey }> | undefined;

/** One CA and a 127.0.0.1/localhost serving certificate for every webhook server of a test file. */
export function testPKI(): Promise<{ ca: CertificateAuthority; serving: CertificateAndKey }> {
  sharedCA ??= (async () => {
    const ca = await createCertificateAuthority('static-admissiond webhook test CA');
    const serving = await ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1', 'localhost'] });
    return { ca, serving };
  })();
  return sharedCA;
}

export function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

export interface HookSpec {
  readonly name: string;
  readonly url: string;
  readonly caPEM: string;
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly timeoutSeconds?: number;
  readonly resources?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly operations?: readonly string[];
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
  readonly admissionReviewVersions?: readonly string[];
  /** extra YAML lines at the webhook's indentation */
  readonly extra?: string;
}

function webhookYAML(h: HookSpec, mutating: boolean): string {
  return `- name: ${h.name}
  clientConfig:
    url: ${JSON.stringify(h.url)}
    caBundle: ${b64(h.caPEM)}
  rules:
  - apiGroups: ${JSON.stringify(h.apiGroups ?? [''])}
    apiVersions: ["v1"]
    operations: ${JSON.stringify(h.operations ?? ['CREATE', 'UPDATE'])}
    resources: ${JSON.stringify(h.resources ?? ['configmaps'])}
  sideEffects: None
  admissionReviewVersions: ${JSON.stringify(h.admissionReviewVersions ?? ['v1'])}
  failurePolicy: ${h.failurePolicy ?? 'Fail'}
  timeoutSeconds: ${h.timeoutSeconds ?? 10}
${mutating && h.reinvocationPolicy ? `  reinvocationPolicy: ${h.reinvocationPolicy}\n` : ''}${h.extra ?? ''}`;
}

export function configurationYAML(kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration', name: string, hooks: readonly HookSpec[]): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata:
  name: ${name}
webhooks:
${hooks.map((h) => webhookYAML(h, kind === 'MutatingWebhookConfiguration')).join('')}`;
}

/** Loads configurations through the real loader (defaults, validation, compilation) and returns the webhooks. */
export function loadWebhooks(plugin: Extract<PluginName, 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook'>, files: Record<string, string>): StaticWebhook[] {
  const dir = mkdtempSync(join(tmpdir(), 'sad-webhooks-'));
  try {
    for (const [f, content] of Object.entries(files)) writeFileSync(join(dir, f), content);
    const snapshot = loadSnapshotSync(plugin, dir);
    if (snapshot.compiled.family !== 'webhook') throw new Error('not a webhook snapshot');
    return [...snapshot.compiled.webhooks];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let uidCounter = 0;
/** A ConfigMap CREATE request as the apiserver sends it. */
export function configMapRequest(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest & { uid: string } {
  uidCounter++;
  return {
    uid: `req-${uidCounter}`,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
    requestResource: { group: '', version: 'v1', resource: 'configmaps' },
    name: 'cm',
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', labels: { app: 'x' } }, data: { k: 'v' } },
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    ...overrides,
  } as AdmissionRequest & { uid: string };
}

export function newRegistry(): Registry {
  return new Registry();
}

/** The value of one series, matched on the given labels (others ignored). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  return sampleValue(await registry.metrics(), name, labels);
}

/** A context with a deadline `ms` from now. */
export function contextFor(ms = 10_000): { deadline: number; signal: AbortSignal } {
  return { deadline: Date.now() + ms, signal: new AbortController().signal };
}

export async function waitUntil(what: string, probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 5));
  }
}
