// Limits of the admission listener: the body size, the slow-client timeouts, the deadlines. The first three are
// `serve` flags (--max-request-body-bytes, --request-header-timeout, --request-body-timeout); the rest keep their
// defaults.
//
// Why these defaults: kube-apiserver writes a webhook call (headers and body) at once over loopback, so a real call
// arrives within milliseconds. The whole call, connection included, must finish within the webhook's timeoutSeconds:
// 5 s in the registration this daemon prints, at most 30 s. A client still sending after a few seconds is not an
// apiserver call that can still be answered in time, only a held connection, so the timeouts end it before a 5 s
// call would give up: 3 s for the headers, 4 s for the whole request.

export interface AdmissionServerLimits {
  /**
   * `--max-request-body-bytes`: largest request body accepted, after gunzip; larger → 413. Default 7 MiB: kube-apiserver
   * takes request bodies up to 3 MiB (MaxRequestBodyBytes = 3 * 1024 * 1024, k8s.io/apiserver pkg/server/config.go),
   * so an object it admitted can be that large as JSON, and an UPDATE review carries two of them (object and oldObject);
   * 1 MiB more covers the envelope and options. A lower limit would refuse the review of an update to a large object.
   */
  readonly maxBodyBytes?: number;
  /** time to complete the TLS handshake. Default 10s (Go's client uses 10s too). */
  readonly handshakeTimeoutMs?: number;
  /**
   * `--request-header-timeout`: time from connection (or from the first byte of a request on a reused one) to the
   * end of the request headers; a client trickling headers (slowloris) is cut off here with 408. Default 3s.
   */
  readonly headersTimeoutMs?: number;
  /**
   * `--request-body-timeout`: time to receive the whole request, body included, from its first byte (a client
   * trickling its body is cut off here with 408). Default 4s. Not counted: the time the handler takes, which the
   * request's `?timeout=` bounds. At least headersTimeoutMs.
   */
  readonly requestTimeoutMs?: number;
  /**
   * how long an idle keep-alive connection stays open. Default 120s, longer than the 90s after which kube-apiserver's
   * Go client drops idle connections, so the client, not the server, closes them (a server closing first races with
   * the client reusing the connection, and a POST is not retried).
   */
  readonly keepAliveTimeoutMs?: number;
  /** deadline when a request has no `?timeout=`. Default 10s (kube's default timeoutSeconds). */
  readonly defaultTimeoutMs?: number;
  /** cap on `?timeout=`. Default 30s (kube's maximum timeoutSeconds). */
  readonly maxTimeoutMs?: number;
  /**
   * how much earlier than the apiserver's timeout the deadline falls, so the onTimeout answer arrives before the
   * apiserver gives up. Default 50ms, at most a tenth of the timeout.
   */
  readonly timeoutMarginMs?: number;
  /** how long close() lets in-flight requests finish before closing their connections. Default 5s. */
  readonly shutdownGraceMs?: number;
}

export const defaultAdmissionServerLimits: Readonly<Required<AdmissionServerLimits>> = {
  maxBodyBytes: 7 * 1024 * 1024,
  handshakeTimeoutMs: 10_000,
  headersTimeoutMs: 3_000,
  requestTimeoutMs: 4_000,
  keepAliveTimeoutMs: 120_000,
  defaultTimeoutMs: 10_000,
  maxTimeoutMs: 30_000,
  timeoutMarginMs: 50,
  shutdownGraceMs: 5_000,
};

/** The defaults overlaid with `overrides`; throws when they contradict each other. */
export function resolveLimits(overrides: AdmissionServerLimits = {}): Required<AdmissionServerLimits> {
  const limits: Required<AdmissionServerLimits> = { ...defaultAdmissionServerLimits };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) (limits as Record<string, number>)[k] = v;
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(`the request header timeout (${limits.headersTimeoutMs}ms) must not exceed the request body timeout (${limits.requestTimeoutMs}ms): the whole request includes its headers`);
  }
  if (!(limits.maxBodyBytes > 0)) throw new Error(`the request body limit must be positive, got ${limits.maxBodyBytes}`);
  return limits;
}

/** A duration for messages: `3s`, `250ms`. */
export function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
