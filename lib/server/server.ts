// The HTTPS admission listener kube-apiserver calls: POST /validate and /mutate with an AdmissionReview. Transport
// only: it never parses a review.
//
// Per request: route (404) → method (405) → Content-Type / Content-Encoding (415) → declared length (413) →
// `?timeout=` (400) → body, gunzipped when compressed, at most `maxBodyBytes` (413) → the route's request path
// (lib/review) with the body bytes and a deadline → the answer's bytes: an AdmissionReview (200), or a metav1.Status
// body for every other status (a malformed review's 400 among them) so the apiserver's log shows why the call failed.
//
// Deadline: the request path gets `deadline` (epoch ms: now + the apiserver's `?timeout=`, capped, minus a small
// margin so the answer can still reach the apiserver in time) and a `signal` that aborts at the deadline or when the
// apiserver hangs up. An answer decided at once is written at once; otherwise, if it has not come by the deadline,
// the listener writes what the review's `expire()` answers — the failure policy of whatever was still running. The
// late answer is dropped. A request path that throws (or rejects) gets HTTP 500 with the error message, and is
// logged; kube-apiserver then applies the registration's failurePolicy.
//
// Routes given as handlers of parsed reviews (AdmissionHandler) are decoded here first (lib/review/parsed.ts), with
// `onTimeout` answering their missed deadlines (default: a denial with reason Timeout, fail closed).
//
// Slow or stuck clients cannot hold the listener: the TLS handshake, the request headers and the whole request
// each have a time limit (limits.ts), and idle keep-alive connections are closed after keepAliveTimeoutMs. A request
// cut off there, or refused by the HTTP parser (bad framing, oversized headers), gets a short text/plain answer naming
// the fault (client-errors.ts) before the connection closes.
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { encodeStatus, ReviewError } from '../review/answer.js';
import { parsedReviewer } from '../review/parsed.js';
import type { AdmissionHandler, TimeoutHandler } from '../review/parsed.js';
import type { Answer, Delivery, Reviewer } from '../review/receive.js';
import { checkContentEncoding, checkContentType, requestTimeoutMs, timeoutParameter } from './request-checks.js';
import { readBody, tooLarge } from './body.js';
import { Deadlines } from './deadlines.js';
import { clientErrorAnswer, rawResponse } from './client-errors.js';
import { resolveLimits } from './limits.js';
import { createListenerMetrics } from './metrics.js';
import type { AdmissionServerLimits } from './limits.js';
import { ServingCertificates } from './tls.js';

export type { AdmissionServerLimits } from './limits.js';
export type { AdmissionContext, AdmissionHandler, TimeoutHandler, TimeoutInfo } from '../review/parsed.js';
import type { TLSMaterial, TLSOptions, TLSReloadResult } from './tls.js';

/** A route: a request path taking the body's bytes (lib/review), or a handler of parsed reviews. */
export type AdmissionRoute = AdmissionHandler | { readonly reviewer: Reviewer };

export interface AdmissionServerOptions {
  /** --bind-address: an IP address (or host name) to listen on, e.g. 127.0.0.1 */
  readonly bindAddress: string;
  /** --secure-port; 0 picks a free port */
  readonly port: number;
  /** serving certificate, key and optional client CA, reloaded when the files change */
  readonly tls: TLSOptions;
  /** path → route, e.g. { '/validate': …, '/mutate': … } */
  readonly routes: Readonly<Record<string, AdmissionRoute>>;
  /** answers a missed deadline of the routes given as AdmissionHandlers */
  readonly onTimeout?: TimeoutHandler;
  /**
   * Called once a request has been answered with an AdmissionReview (HTTP 200), after the answer was handed to the
   * socket: the route, the body as received and the answer's bytes as sent. For work that must stay off the
   * request's path (the shadow set): it must be cheap and must not throw.
   */
  readonly afterAnswer?: (endpoint: string, body: Buffer, answer: Uint8Array) => void;
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

  delivery(endpoint: string, body: Buffer, deadline: number, timeoutMs: number): Delivery {
    const self = this;
    return { endpoint, body, deadline, timeoutMs, get signal() { return self.signal; } };
  }
}

function formatHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<AdmissionServer> {
  const limits = resolveLimits(options.limits);
  for (const path of Object.keys(options.routes)) if (!path.startsWith('/')) throw new Error(`route ${JSON.stringify(path)} must start with "/"`);

  const log = options.logger;
  const metrics = createListenerMetrics(options.registry);
  /** the deadlines of requests whose answers are on their way, on one timer */
  const deadlines = new Deadlines();
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

  const send = (res: ServerResponse, status: number, body: Uint8Array): void => {
    // nobody to answer on a connection already gone (a client that hung up mid-body): counted with code "0"
    if (res.headersSent || res.destroyed || res.req.socket.destroyed) return;
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

  /** Writes an answer of the request path; a non-200 one (a malformed review) is a rejection, logged as one. */
  const write = (req: IncomingMessage, res: ServerResponse, delivery: Delivery, answer: Answer): void => {
    const { endpoint } = delivery;
    if (answer.status !== 200) {
      v2.info('Rejected admission request', { endpoint, code: answer.status, reason: answer.fault?.message ?? '', remoteAddress: req.socket.remoteAddress ?? '' });
      if (!req.complete) res.setHeader('Connection', 'close');
    }
    send(res, answer.status, answer.body);
    if (answer.status !== 200) return;
    // After the answer has gone out: work here no longer delays the apiserver.
    options.afterAnswer?.(endpoint, delivery.body, answer.body);
    if (v4.enabled && answer.summary) v4.info('Admission request answered', { endpoint, ...answer.summary() });
  };

  const reviewers = new Map<string, Reviewer>();
  for (const [path, route] of routes) reviewers.set(path, typeof route === 'function' ? parsedReviewer(route, options.onTimeout) : route.reviewer);

  /** A request that failed before its request path answered: a ReviewError is a rejection, anything else a 500. */
  const failed = (req: IncomingMessage, res: ServerResponse, endpoint: string, err: unknown): void => {
    if (err instanceof ReviewError) return reject(req, res, endpoint, err);
    log.error(err, 'Admission request failed', { endpoint });
    send(res, 500, encodeStatus(500, 'InternalError', (err as Error).message));
  };

  // Callbacks, not an async function: a request's path is a few continuations (the body read, the answer), and each
  // await would cost a promise and a suspended frame per request (docs/adr/0003, fourth pass: the hand-off).
  /** The request's checks, then its body; throws a ReviewError for a request refused before its body is read. */
  const handle = (
    req: IncomingMessage, res: ServerResponse, path: string, query: string, reviewer: Reviewer | undefined, cancellation: RequestCancellation, receivedAt: number,
  ): void => {
    const endpoint = path;
    if (reviewer === undefined) throw new ReviewError(404, 'NotFound', `no admission endpoint at ${JSON.stringify(path)}: expected one of ${[...routes.keys()].join(', ')}`);
    if (req.method !== 'POST') throw new ReviewError(405, 'MethodNotAllowed', `method ${req.method ?? ''} is not allowed on ${endpoint}: use POST`);
    checkContentType(req.headers['content-type']);
    const gzip = checkContentEncoding(req.headers['content-encoding']);
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limits.maxBodyBytes) throw tooLarge(limits.maxBodyBytes);
    const timeoutMs = requestTimeoutMs(timeoutParameter(query), limits);
    readBody(req, gzip, limits.maxBodyBytes, declared === undefined ? undefined : Number(declared), (err, body) => {
      if (err !== undefined) return failed(req, res, endpoint, err);
      try {
        respond(req, res, endpoint, reviewer, body!, receivedAt + timeoutMs - Math.min(limits.timeoutMarginMs, timeoutMs / 10), timeoutMs, cancellation);
      } catch (e) {
        failed(req, res, endpoint, e);
      }
    });
  };

  /** The body to the route's request path, and its answer written: at once, when it comes, or at the deadline. */
  const respond = (
    req: IncomingMessage, res: ServerResponse, endpoint: string, reviewer: Reviewer, body: Buffer, deadline: number, timeoutMs: number, cancellation: RequestCancellation,
  ): void => {
    const delivery = cancellation.delivery(endpoint, body, deadline, timeoutMs);
    const review = reviewer(delivery);
    if (!(review.answer instanceof Promise)) {
      write(req, res, delivery, review.answer);
      return;
    }
    let settled = false;
    const timer = deadlines.add(deadline, () => {
      if (settled) return;
      settled = true;
      metrics.deadlineExceeded(endpoint);
      let answer: Answer;
      try {
        answer = review.expire();
      } catch (err) {
        log.error(err, 'Timeout handler failed', { endpoint });
        send(res, 500, encodeStatus(500, 'InternalError', `admission deadline exceeded and the timeout handler failed: ${(err as Error).message}`));
        cancellation.abort(new Error('deadline exceeded'));
        return;
      }
      if (v2.enabled) {
        const summary = answer.summary?.();
        v2.info('Admission request missed its deadline; answered by the timeout handler', { endpoint, uid: summary?.uid ?? '', timeoutMs, allowed: summary?.allowed === true });
      }
      write(req, res, delivery, answer);
      cancellation.abort(new Error('deadline exceeded'));
    });
    const failedAfterAnswer = (err: unknown): void => {
      v2.info('Admission handler failed after the request was answered', { endpoint, err: err instanceof Error ? err.message : String(err) });
    };
    review.answer.then((answer) => {
      timer.cancel();
      if (settled) return;
      settled = true;
      try {
        write(req, res, delivery, answer);
      } catch (err) {
        failedAfterAnswer(err);
      }
    }, (err: unknown) => {
      timer.cancel();
      if (settled) return failedAfterAnswer(err);
      settled = true;
      log.error(err, 'Admission handler failed', { endpoint });
      const message = err instanceof Error ? err.message : String(err);
      send(res, 500, encodeStatus(500, 'InternalError', `admission handler failed: ${message}`));
    });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const start = performance.now();
    const receivedAt = Date.now();
    const rawURL = req.url ?? '/';
    const q = rawURL.indexOf('?');
    const path = q === -1 ? rawURL : rawURL.slice(0, q);
    const reviewer = reviewers.get(path);
    const endpoint = reviewer === undefined ? 'unknown' : path;
    const cancellation = new RequestCancellation();
    inFlight.add(cancellation);
    responses.set(req.socket, res);
    res.once('close', () => {
      if (responses.get(req.socket) === res) responses.delete(req.socket);
      inFlight.delete(cancellation);
      if (!res.writableFinished) cancellation.abort(new Error('client closed the connection'));
      // code "0": the connection closed before an answer was written
      metrics.answered(endpoint, res.headersSent ? String(res.statusCode) : '0', (performance.now() - start) / 1e3);
    });
    try {
      handle(req, res, path, q === -1 ? '' : rawURL.slice(q + 1), reviewer, cancellation, receivedAt);
    } catch (err) {
      failed(req, res, endpoint, err);
    }
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
