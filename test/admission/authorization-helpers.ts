// A local HTTPS "kube-apiserver" that answers SubjectAccessReviews (POST /apis/authorization.k8s.io/v1/
// subjectaccessreviews) and records each one, and a kubeconfig pointing at it (its CA, a bearer token).
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import { after, before } from 'node:test';
import type { Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SubjectAccessReviewClient } from '../../lib/webhook/subject-access-review.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { testPKI } from '../webhook/helpers.js';

export interface SubjectAccessReview {
  readonly kind: string;
  readonly apiVersion: string;
  readonly spec: {
    readonly user?: string;
    readonly uid?: string;
    readonly groups?: string[];
    readonly extra?: Record<string, string[]>;
    readonly resourceAttributes?: Record<string, unknown>;
    readonly nonResourceAttributes?: { path: string; verb: string };
  };
}

export interface ReceivedReview {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly review: SubjectAccessReview;
}

/** The status to answer (`allowed`, `denied`, `reason`), or an HTTP failure. */
export type SARReply = { readonly allowed: boolean; readonly denied?: boolean; readonly reason?: string } | { readonly httpStatus: number; readonly message: string };

export interface SARServer {
  readonly url: string;
  readonly received: ReceivedReview[];
  decide: (review: SubjectAccessReview) => SARReply;
  /** a kubeconfig whose current context is this server with the bearer token `sar-token` */
  readonly kubeconfig: string;
  close(): Promise<void>;
}

/** Allows `create` and `get` on anything, denies the rest with a reason naming the verb. */
export function allowCreateAndGet(review: SubjectAccessReview): SARReply {
  const verb = String(review.spec.resourceAttributes?.verb ?? review.spec.nonResourceAttributes?.verb ?? '');
  return verb === 'create' || verb === 'get' ? { allowed: true, reason: 'RBAC: allowed' } : { allowed: false, reason: `no ${verb} for you` };
}

export async function startSARServer(decide: (review: SubjectAccessReview) => SARReply = allowCreateAndGet): Promise<SARServer> {
  const { ca, serving } = await testPKI();
  const received: ReceivedReview[] = [];
  const server: Server = createServer({ cert: serving.certPEM, key: serving.keyPEM });
  const { dir, cleanup } = tempDir('sad-sar-');
  const s: SARServer = {
    url: '',
    received,
    decide,
    kubeconfig: join(dir, 'kubeconfig'),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      cleanup();
    },
  };
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SubjectAccessReview;
      received.push({ path: req.url ?? '', headers: req.headers, review });
      const reply = s.decide(review);
      if ('httpStatus' in reply) {
        const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: reply.message, code: reply.httpStatus });
        res.writeHead(reply.httpStatus, { 'content-type': 'application/json' });
        res.end(body);
        return;
      }
      const body = JSON.stringify({ ...review, status: reply });
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFiles(dir, {
    kubeconfig: `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: ${url}
    certificate-authority-data: ${Buffer.from(ca.certPEM).toString('base64')}
users:
- name: admission
  user:
    token: sar-token
contexts:
- name: default
  context: {cluster: local, user: admission}
current-context: default
`,
  });
  return Object.assign(s, { url });
}

/** A SAR server and a client for it, for the whole test file (started before the first test, closed after the last). */
export function useSARServer(): { readonly sar: SARServer; readonly client: SubjectAccessReviewClient } {
  let sar: SARServer | undefined;
  let client: SubjectAccessReviewClient | undefined;
  before(async () => {
    sar = await startSARServer();
    client = SubjectAccessReviewClient.fromKubeconfig(sar.kubeconfig);
  });
  after(async () => {
    await client?.close();
    await sar?.close();
  });
  return {
    get sar() {
      return sar ?? assert.fail('the SAR server is not started');
    },
    get client() {
      return client ?? assert.fail('the SAR server is not started');
    },
  };
}
