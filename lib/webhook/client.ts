// The outbound HTTPS client: one undici Agent (keep-alive connection pool) per endpoint, keyed by the URL origin,
// the caBundle and the client certificate, as upstream's ClientManager caches one REST client per client config.
// The server is verified with the webhook's caBundle (system roots when it is empty); the kubeconfig credentials
// chosen for the URL's host:port are presented (AuthenticationInfoResolver).
//
// A call POSTs the same bytes it is given to `<url>?timeout=<n>s` (rest client's Timeout parameter: the time left,
// rounded up to whole seconds), cut off when its time is up, including while the body is still arriving, and
// classifies every failure (connection refused, TLS, timeout, HTTP status) with Go's wording where it can.
import { createSecureContext } from 'node:tls';
import type { SecureContext, SecureContextOptions } from 'node:tls';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import type { Status } from '../api/admission.js';
import { CallingWebhookError, internalError, serviceUnavailable } from './errors.js';
import type { FailureKind } from './errors.js';
import { AuthenticationInfoResolver, hostPortOf, KubeconfigError } from './kubeconfig.js';
import type { Credentials } from './kubeconfig.js';

export interface WebhookEndpoint {
  readonly webhookName: string;
  readonly url: URL;
  /** PEM bundle decoded from clientConfig.caBundle; empty: system roots */
  readonly caPEM: string;
}

/** What a call listens to for cancellation: an AbortSignal, or a lighter object with the same three members. */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A CancelSignal for the calls of one request: cheaper than an AbortController, which builds a DOMException. */
export class CallCancellation implements CancelSignal {
  aborted = false;
  private listeners: Array<() => void> = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }
}

export interface PostOptions {
  readonly body: Uint8Array;
  /** epoch ms: the call is cut off then (timeoutSeconds or the request deadline, whichever is first) */
  readonly deadline: number;
  /** aborts the call: the request was decided or abandoned */
  readonly signal: CancelSignal;
}

export interface RawResponse {
  readonly statusCode: number;
  readonly contentType: string;
  readonly body: string;
  /** the URL posted, with its ?timeout= */
  readonly postURL: string;
}

/** Largest webhook answer read (a response is an AdmissionReview without the object). */
const maxResponseBytes = 8 * 1024 * 1024;

/** Go's time.Duration.String() for whole seconds under a minute, as rest client's timeout parameter. */
function timeoutParam(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

/** The URL a call with `remainingMs` left posts to: the webhook URL with rest client's `?timeout=`. */
export function postURLFor(url: URL, remainingMs: number): string {
  return `${url.origin}${postPathFor(url, remainingMs)}`;
}

function postPathFor(url: URL, remainingMs: number): string {
  return `${url.pathname}?timeout=${timeoutParam(remainingMs)}`;
}

function errnoCode(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR_CONNECT') return code;
    e = (e as Error & { cause?: unknown }).cause;
  }
  return (err as NodeJS.ErrnoException | undefined)?.code ?? '';
}

const unknownAuthority = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_SIGNATURE_FAILURE', 'CERT_UNTRUSTED', 'CERT_REJECTED',
]);

/** A transport error as the Go client would describe it (after `Post "<url>": `), with its kind. */
export function describeTransportError(err: unknown, url: URL): { kind: FailureKind; text: string } {
  const code = errnoCode(err);
  const message = err instanceof Error ? err.message : String(err);
  const addr = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '443'}`;
  if (code === 'ECONNREFUSED') return { kind: 'connection_refused', text: `dial tcp ${addr}: connect: connection refused` };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'connection_error', text: `dial tcp: lookup ${url.hostname}: no such host` };
  if (code === 'ECONNRESET') return { kind: 'connection_error', text: `read tcp ${addr}: read: connection reset by peer` };
  if (unknownAuthority.has(code)) return { kind: 'tls', text: 'tls: failed to verify certificate: x509: certificate signed by unknown authority' };
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return { kind: 'tls', text: 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const reason = (err as { reason?: string }).reason ?? message;
    return { kind: 'tls', text: `tls: failed to verify certificate: x509: ${reason}` };
  }
  const alert = /^ERR_SSL_(?:TLSV1\d?_|SSLV3_)?ALERT_(.+)$/.exec(code);
  if (alert) return { kind: 'tls', text: `remote error: tls: ${alert[1]!.toLowerCase().replaceAll('_', ' ')}` };
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || /certificate|ssl|tls/i.test(message)) return { kind: 'tls', text: `tls: ${message}` };
  return { kind: 'connection_error', text: message };
}

function isTextContentType(contentType: string): boolean {
  return contentType.split(';', 1)[0]!.trim().toLowerCase().startsWith('text/');
}

/** NewGenericServerResponse's message for a code (rest client, for a response outside 200–206). */
function genericServerMessage(code: number, serverMessage: string): { reason: string; message: string } {
  switch (code) {
    case 409: return { reason: 'Conflict', message: 'the server reported a conflict' };
    case 404: return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 400: return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401: return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403: return { reason: 'Forbidden', message: serverMessage };
    case 405: return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 422: return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 503: return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504: return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    case 429: return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    default:
      if (code >= 500) return { reason: 'InternalError', message: `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding` };
      return { reason: 'Unknown', message: `the server responded with the status code ${code} but did not return more information` };
  }
}

/** The error a response outside 200–206 gives: a Failure Status in the body as is, else the generic one. */
export function httpStatusError(webhookName: string, response: RawResponse): CallingWebhookError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(response.body) as unknown;
    if (parsed !== null && typeof parsed === 'object' && (parsed as Status).kind === 'Status' && (parsed as Status).status === 'Failure') {
      status = parsed as Status;
      if (!status.code) status.code = response.statusCode;
    }
  } catch {
    // not a Status
  }
  if (status === undefined) {
    const serverMessage = isTextContentType(response.contentType) ? response.body.trim() : 'unknown';
    const { reason, message } = genericServerMessage(response.statusCode, serverMessage);
    status = { metadata: {}, status: 'Failure', message, reason, details: { causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] }, code: response.statusCode };
  }
  return new CallingWebhookError(webhookName, 'http_status', `failed to call webhook: ${status.message ?? ''}`, status);
}

class ResponseTooLarge extends Error {
  constructor() {
    super(`response body exceeds ${maxResponseBytes} bytes`);
  }
}

type CallOutcome = { readonly response: RawResponse } | { readonly error: unknown };

/**
 * One call's undici handler: collects the answer (at most maxResponseBytes) and reports once, whichever comes
 * first: the answer, a transport error, or `end()` (deadline or cancellation), which also aborts the request.
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private settled = false;
  private statusCode = 0;
  private contentType = '';
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly postURL: string,
    private readonly report: (outcome: CallOutcome) => void,
  ) {}

  /** ends the call now with `error`; the request is aborted (at once, or as soon as it reaches a connection) */
  end(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.controller?.abort(error);
    this.report({ error });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(new Error('webhook call ended'));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx: the answer follows
    this.statusCode = statusCode;
    const ct = headers['content-type'];
    this.contentType = Array.isArray(ct) ? ct.join(', ') : ct ?? '';
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > maxResponseBytes) {
      controller.abort(new ResponseTooLarge());
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0]!.toString('utf8') : Buffer.concat(this.chunks, this.size).toString('utf8');
    this.report({ response: { statusCode: this.statusCode, contentType: this.contentType, body, postURL: this.postURL } });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.report({ error });
  }
}

interface Pooled {
  readonly agent: Agent;
  readonly credentials: Credentials;
}

export interface WebhookClientsOptions {
  readonly resolver?: AuthenticationInfoResolver;
  /** connections kept per endpoint (undici `connections`); default 64 */
  readonly connectionsPerEndpoint?: number;
  /** idle keep-alive time; default 60s (under Node's server default of 5s the server closes first, which undici handles) */
  readonly keepAliveTimeoutMs?: number;
}

/** One pool per endpoint; `close()` ends them all. */
export class WebhookClients {
  private readonly pools = new Map<string, Pooled>();
  private readonly resolver: AuthenticationInfoResolver;
  private readonly connections: number;
  private readonly keepAliveTimeoutMs: number;

  constructor(options: WebhookClientsOptions = {}) {
    this.resolver = options.resolver ?? new AuthenticationInfoResolver({ users: new Map(), currentUser: undefined });
    this.connections = options.connectionsPerEndpoint ?? 64;
    this.keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? 60_000;
  }

  private pool(endpoint: WebhookEndpoint): Pooled {
    const hostPort = hostPortOf(endpoint.url);
    const key = `${endpoint.url.origin}\u0000${endpoint.caPEM}\u0000${hostPort}`;
    let pooled = this.pools.get(key);
    if (pooled === undefined) {
      let credentials: Credentials;
      try {
        credentials = this.resolver.credentialsFor(hostPort);
      } catch (err) {
        const message = err instanceof KubeconfigError ? err.message : String(err);
        throw new CallingWebhookError(endpoint.webhookName, 'client_config', `could not get REST client: ${message}`, internalError(message));
      }
      // one TLS context per pool: building it (parsing the CA bundle and key) per connection is costly
      const context: SecureContextOptions = {};
      if (endpoint.caPEM !== '') context.ca = endpoint.caPEM;
      if (credentials.certPEM !== undefined) {
        context.cert = credentials.certPEM;
        context.key = credentials.keyPEM;
      }
      let secureContext: SecureContext;
      try {
        secureContext = createSecureContext(context);
      } catch (err) {
        const message = `tls: ${(err as Error).message}`;
        throw new CallingWebhookError(endpoint.webhookName, 'client_config', `could not get REST client: ${message}`, internalError(message));
      }
      const agent = new Agent({
        connect: { rejectUnauthorized: true, secureContext },
        connections: this.connections,
        pipelining: 1,
        keepAliveTimeout: this.keepAliveTimeoutMs,
        keepAliveMaxTimeout: this.keepAliveTimeoutMs,
        // our own deadline (PostOptions.deadline) bounds every call
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      pooled = { agent, credentials };
      this.pools.set(key, pooled);
    }
    return pooled;
  }

  /**
   * POSTs `body` and reads the whole answer. Throws CallingWebhookError for transport failures (connection,
   * TLS, timeout, cancellation); any HTTP status is returned. The call ends at its deadline whatever undici is doing
   * (a connection still being set up included): the request is aborted, the promise settled then.
   */
  post(endpoint: WebhookEndpoint, options: PostOptions): Promise<RawResponse> {
    let pooled: Pooled;
    try {
      pooled = this.pool(endpoint);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const remaining = options.deadline - Date.now();
    const url = endpoint.url;
    const path = postPathFor(url, remaining);
    const postURL = `${url.origin}${path}`;
    const name = endpoint.webhookName;
    const goPost = `failed to call webhook: Post ${JSON.stringify(postURL)}`;
    const failed = (kind: FailureKind, text: string): CallingWebhookError => new CallingWebhookError(name, kind, `${goPost}: ${text}`, serviceUnavailable('error calling webhook'));
    if (remaining <= 0) return Promise.reject(failed('timeout', 'context deadline exceeded'));
    if (options.signal.aborted) return Promise.reject(failed('canceled', 'context canceled'));

    const headers: Record<string, string | string[]> = {
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'user-agent': 'kube-apiserver-admission',
    };
    const authorization = pooled.credentials.authorization();
    if (authorization !== undefined) headers.authorization = authorization;
    // kubeconfig `as`/`as-groups`/`as-user-extra`, as client-go's impersonating round tripper adds them
    const impersonation = pooled.credentials.impersonationHeaders;
    if (impersonation !== undefined) for (const [k, v] of Object.entries(impersonation)) headers[k] = typeof v === 'string' ? v : [...v];

    return new Promise<RawResponse>((resolve, reject) => {
      const call = new ResponseCollector(postURL, (outcome) => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onCancel);
        if ('response' in outcome) resolve(outcome.response);
        else if (outcome.error instanceof CallingWebhookError) reject(outcome.error);
        else if (outcome.error instanceof ResponseTooLarge) reject(new CallingWebhookError(name, 'malformed', `failed to call webhook: ${outcome.error.message}`, serviceUnavailable('error calling webhook')));
        else {
          const { kind, text } = describeTransportError(outcome.error, url);
          reject(failed(kind, text));
        }
      });
      const timer = setTimeout(() => call.end(failed('timeout', 'context deadline exceeded')), remaining);
      const onCancel = (): void => call.end(failed('canceled', 'context canceled'));
      options.signal.addEventListener('abort', onCancel, { once: true });
      // the low-level dispatch API: no stream per response, the body collected as it comes
      try {
        pooled.agent.dispatch({ origin: url.origin, path, method: 'POST', headers, body: options.body }, call);
      } catch (err) {
        // e.g. a pool closed by shutdown
        const { kind, text } = describeTransportError(err, url);
        call.end(failed(kind, text));
      }
    });
  }

  async close(): Promise<void> {
    const agents = [...this.pools.values()].map((p) => p.agent);
    this.pools.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
  }
}
