// The HTTPS admission listener kube-apiserver calls: POST /validate and /mutate with an AdmissionReview.
//
// Per request: route (404) → method (405) → Content-Type / Content-Encoding (415) → declared length (413) →
// `?timeout=` (400) → body, gunzipped when compressed, at most `maxBodyBytes` (413) → parse once (400) → the
// route's handler with a deadline and an AbortSignal → one AdmissionReview answer (200), or a metav1.Status
// body for every other status so the apiserver's log shows why the call failed.
//
// Deadline: the handler gets `deadline` (epoch ms: now + the apiserver's `?timeout=`, capped, minus a small margin
// so the answer can still reach the apiserver in time) and a `signal` that aborts at the deadline or when the
// apiserver hangs up. If the handler has not answered by the deadline, the listener answers with what
// `onTimeout(review, info)` returns — that is where the caller applies the failure policy of whatever was still
// running (for example allow with a warning for failurePolicy Ignore, deny for Fail). Without `onTimeout` the
// answer is a denial with reason Timeout (fail closed, as kube's default failurePolicy Fail). The handler's
// late result is dropped. A handler that throws (or rejects) gets HTTP 500 with the error message, and is logged;
// kube-apiserver then applies the registration's failurePolicy.
//
// Slow or stuck clients cannot hold the listener: the TLS handshake, the request headers and the whole request
// each have a time limit (limits.ts), and idle keep-alive connections are closed after keepAliveTimeoutMs. A request
// cut off there, or refused by the HTTP parser (bad framing, oversized headers), gets a short text/plain answer naming
// the fault (client-errors.ts) before the connection closes.
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { AdmissionResponse } from '../api/admission.js';
import type { Logger } from '../log/logger.js';
import {
  checkContentEncoding,
  checkContentType,
  encodeAdmissionReviewResponse,
  encodeStatus,
  parseAdmissionReview,
  requestTimeoutMs,
  ReviewError,
} from './review.js';
import type { ParsedReview } from './review.js';
import { readBody, tooLarge } from './body.js';
import { clientErrorAnswer, rawResponse } from './client-errors.js';
import { resolveLimits } from './limits.js';
import type { AdmissionServerLimits } from './limits.js';
import { ServingCertificates } from './tls.js';

export type { AdmissionServerLimits } from './limits.js';
import type { TLSMaterial, TLSOptions, TLSReloadResult } from './tls.js';

export interface AdmissionContext {
  /** when the answer is due, epoch milliseconds (compare with Date.now()) */
  readonly deadline: number;
  /** aborted at the deadline, when the client goes away, or when the server is force-closed */
  readonly signal: AbortSignal;
}

export type AdmissionHandler = (review: ParsedReview, ctx: AdmissionContext) => Promise<AdmissionResponse>;

export interface TimeoutInfo {
  /** the route, e.g. "/validate" */
  readonly endpoint: string;
  /** the time the request was given (its ?timeout=, capped) */
  readonly timeoutMs: number;
}

/** Answers a request whose handler missed the deadline. Must be synchronous and cheap. */
export type TimeoutHandler = (review: ParsedReview, info: TimeoutInfo) => AdmissionResponse;

export interface AdmissionServerOptions {
  /** --bind-address: an IP address (or host name) to listen on, e.g. 127.0.0.1 */
  readonly bindAddress: string;
  /** --secure-port; 0 picks a free port */
  readonly port: number;
  /** serving certificate, key and optional client CA, reloaded when the files change */
  readonly tls: TLSOptions;
  /** path → handler, e.g. { '/validate': …, '/mutate': … } */
  readonly routes: Readonly<Record<string, AdmissionHandler>>;
  readonly onTimeout?: TimeoutHandler;
  /**
   * Called once a request has been answered with an AdmissionReview (HTTP 200), after the answer was handed to the
   * socket: the route, the body as received and the answer's bytes as sent. For work that must stay off the
   * request's path (the shadow set): it must be cheap and must not throw.
   */
  readonly afterAnswer?: (endpoint: string, body: Buffer, answer: Buffer) => void;
  readonly limits?: AdmissionServerLimits;
  readonly logger: Logger;
  readonly registry: Registry;
}

export interface AdmissionServer {
  /** `https://host:port` */
  readonly url: string;
  readonly port: number;
  /** the TLS material currently served */
  certificate(): TLSMaterial;
  /** re-reads the TLS files now (the poll does this every few seconds anyway) */
  reloadTLS(): Promise<TLSReloadResult>;
  /** stops accepting, lets in-flight requests finish (up to shutdownGraceMs), then closes every connection */
  close(): Promise<void>;
}

/** Request duration buckets, from 100µs (a request nothing matches) to 30s (the largest webhook timeout). */
export const durationBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface ServerMetrics {
  requests: Counter<'endpoint' | 'code'>;
  duration: Histogram<'endpoint'>;
  deadlines: Counter<'endpoint'>;
}

function createServerMetrics(registry: Registry): ServerMetrics {
  const get = <T>(name: string, create: () => T): T => (registry.getSingleMetric(name) as T | undefined) ?? create();
  return {
    requests: get('static_admissiond_admission_requests_total', () => new Counter({
      name: 'static_admissiond_admission_requests_total',
      help: 'Admission requests received by the admission listener, by endpoint and HTTP status code.',
      labelNames: ['endpoint', 'code'] as const,
      registers: [registry],
    })),
    duration: get('static_admissiond_admission_request_duration_seconds', () => new Histogram({
      name: 'static_admissiond_admission_request_duration_seconds',
      help: 'Time from receiving an admission request\'s headers to finishing its answer, by endpoint.',
      labelNames: ['endpoint'] as const,
      buckets: durationBuckets,
      registers: [registry],
    })),
    deadlines: get('static_admissiond_admission_deadline_exceeded_total', () => new Counter({
      name: 'static_admissiond_admission_deadline_exceeded_total',
      help: 'Admission requests answered by the timeout handler because evaluation missed the request deadline, by endpoint.',
      labelNames: ['endpoint'] as const,
      registers: [registry],
    })),
  };
}

/**
 * A request's cancellation, with its AbortSignal made only when a handler asks for it: an AbortController costs
 * several microseconds to create, on every request, and most handlers never listen.
 */
class RequestCancellation {
  #controller: AbortController | undefined;
  #reason: Error | undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: Error): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  context(deadline: number): AdmissionContext {
    const self = this;
    return { deadline, get signal() { return self.signal; } };
  }
}

function formatHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const limits = resolveLimits(options.limits);
  for (const path of Object.keys(options.routes)) if (!path.startsWith('/')) throw new Error(`route ${JSON.stringify(path)} must start with "/"`);

  const log = options.logger;
  const metrics = createServerMetrics(options.registry);
  const certificates = new ServingCertificates({ ...options.tls, logger: log, registry: options.registry });
  const routes = new Map(Object.entries(options.routes));
  /** one per request from its headers until its answer is written or its connection closes */
  const inFlight = new Set<RequestCancellation>();
  /** per connection, the response of the request being handled: a client error while its body arrives answers there */
  const responses = new WeakMap<Duplex, ServerResponse>();
  let closing = false;
  const v2 = log.v(2);
  const v4 = log.v(4);

  const server: Server = createServer({
    ...certificates.serverOptions(),
    handshakeTimeout: limits.handshakeTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAlive: true, // TCP keep-alive probes; HTTP keep-alive is always on
    noDelay: true,
    // How often Node checks the header and request timeouts; its 30s default would let a slow client live that much longer.
    connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  certificates.attach(server);

  const send = (res: ServerResponse, status: number, body: Buffer): void => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': body.length,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache, private',
      ...(closing ? { Connection: 'close' } : {}),
    });
    res.end(body);
  };

  const reject = (req: IncomingMessage, res: ServerResponse, endpoint: string, err: ReviewError): void => {
    v2.info('Rejected admission request', { endpoint, code: err.status, reason: err.message, remoteAddress: req.socket.remoteAddress ?? '' });
    if (err.status === 405) res.setHeader('Allow', 'POST');
    // The rest of an unread body is not worth draining: close the connection after answering.
    if (err.status === 413 || !req.complete) res.setHeader('Connection', 'close');
    send(res, err.status, encodeStatus(err.status, err.reason, err.message));
  };

  const handle = async (
    req: IncomingMessage, res: ServerResponse, path: string, query: string, handler: AdmissionHandler | undefined, cancellation: RequestCancellation, receivedAt: number,
  ): Promise<void> => {
    const endpoint = path;
    if (handler === undefined) throw new ReviewError(404, 'NotFound', `no admission endpoint at ${JSON.stringify(path)}: expected one of ${[...routes.keys()].join(', ')}`);
    if (req.method !== 'POST') throw new ReviewError(405, 'MethodNotAllowed', `method ${req.method ?? ''} is not allowed on ${endpoint}: use POST`);
    checkContentType(req.headers['content-type']);
    const gzip = checkContentEncoding(req.headers['content-encoding']);
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
    const timeoutMs = requestTimeoutMs(query === '' ? null : new URLSearchParams(query).get('timeout'), limits);
    const body = await readBody(req, gzip, limits.maxBodyBytes);
    const review = parseAdmissionReview(body);

    const deadline = receivedAt + timeoutMs - Math.min(limits.timeoutMarginMs, timeoutMs / 10);
    let settled = false;
    const answer = (response: AdmissionResponse): void => {
      settled = true;
      const encoded = encodeAdmissionReviewResponse(review, response);
      send(res, 200, encoded);
      options.afterAnswer?.(endpoint, body, encoded);
      v4.info('Admission request answered', {
        endpoint, uid: review.request.uid, operation: review.request.operation, resource: review.request.resource.resource,
        namespace: review.request.namespace ?? '', name: review.request.name ?? '', allowed: response.allowed === true,
      });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      metrics.deadlines.inc({ endpoint });
      let response: AdmissionResponse;
      try {
        response = options.onTimeout
          ? options.onTimeout(review, { endpoint, timeoutMs })
          : { allowed: false, status: { code: 504, reason: 'Timeout', message: `static-admissiond did not finish admission within the ${timeoutMs}ms deadline` } };
      } catch (err) {
        settled = true;
        log.error(err, 'Timeout handler failed', { endpoint, uid: review.request.uid });
        send(res, 500, encodeStatus(500, 'InternalError', `admission deadline exceeded and the timeout handler failed: ${(err as Error).message}`));
        cancellation.abort(new Error('deadline exceeded'));
        return;
      }
      v2.info('Admission request missed its deadline; answered by the timeout handler', { endpoint, uid: review.request.uid, timeoutMs, allowed: response.allowed === true });
      answer(response);
      cancellation.abort(new Error('deadline exceeded'));
    }, Math.max(0, deadline - Date.now()));
    try {
      const response = await handler(review, cancellation.context(deadline));
      if (!settled) answer(response);
    } catch (err) {
      if (!settled) {
        settled = true;
        log.error(err, 'Admission handler failed', { endpoint, uid: review.request.uid });
        const message = err instanceof Error ? err.message : String(err);
        send(res, 500, encodeStatus(500, 'InternalError', `admission handler failed: ${message}`));
      } else {
        v2.info('Admission handler failed after the request was answered', { endpoint, uid: review.request.uid, err: err instanceof Error ? err.message : String(err) });
      }
    } finally {
      clearTimeout(timer);
    }
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const start = process.hrtime.bigint();
    const receivedAt = Date.now();
    const rawURL = req.url ?? '/';
    const q = rawURL.indexOf('?');
    const path = q === -1 ? rawURL : rawURL.slice(0, q);
    const handler = routes.get(path);
    const endpoint = handler === undefined ? 'unknown' : path;
    const cancellation = new RequestCancellation();
    inFlight.add(cancellation);
    responses.set(req.socket, res);
    res.once('close', () => {
      if (responses.get(req.socket) === res) responses.delete(req.socket);
      inFlight.delete(cancellation);
      if (!res.writableFinished) cancellation.abort(new Error('client closed the connection'));
      // code "0": the connection closed before an answer was written
      metrics.requests.inc({ endpoint, code: res.headersSent ? String(res.statusCode) : '0' });
      metrics.duration.observe({ endpoint }, Number(process.hrtime.bigint() - start) / 1e9);
    });
    handle(req, res, path, q === -1 ? '' : rawURL.slice(q + 1), handler, cancellation, receivedAt).catch((err: unknown) => {
      if (err instanceof ReviewError) return reject(req, res, endpoint, err);
      log.error(err, 'Admission request failed', { endpoint });
      send(res, 500, encodeStatus(500, 'InternalError', (err as Error).message));
    });
  });

  // Failed TLS handshakes (no or an untrusted client certificate, TLS < 1.2, handshake timeout), malformed HTTP,
  // and the header/request timeouts (slow clients) end here. Where HTTP still allows an answer, it names the fault:
  // through the request's own response when its headers had arrived, else written on the socket.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    v2.info('Closing a connection after a client error', { err: err.message.trim(), code: err.code ?? '', remoteAddress: (socket as TLSSocket).remoteAddress ?? '' });
    const res = responses.get(socket);
    const answer = clientErrorAnswer(err, { headersReceived: res !== undefined, headersTimeoutMs: limits.headersTimeoutMs, requestTimeoutMs: limits.requestTimeoutMs });
    if (answer === undefined || !socket.writable || res?.headersSent === true) {
      socket.destroy();
      return;
    }
    if (res === undefined) {
      socket.end(rawResponse(answer));
      return;
    }
    const body = Buffer.from(answer.body);
    res.writeHead(answer.status, answer.statusText, {
      'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': body.length, 'X-Content-Type-Options': 'nosniff', Connection: 'close',
    });
    res.end(body);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  certificates.start();
  const address = server.address() as AddressInfo;
  const url = `https://${formatHost(address)}:${address.port}`;
  log.info('Serving admission webhooks', { url, endpoints: [...routes.keys()], clientCertificates: options.tls.clientCAFile ? 'required' : 'not requested' });

  let closed: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    certificate: () => certificates.current,
    reloadTLS: () => certificates.check(),
    close(): Promise<void> {
      closed ??= (async () => {
        closing = true;
        certificates.stop();
        certificates.detach(server);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const graceEnd = Date.now() + limits.shutdownGraceMs;
        while (inFlight.size > 0 && Date.now() < graceEnd) await new Promise((r) => setTimeout(r, 10));
        for (const c of inFlight) c.abort(new Error('server shutting down'));
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
