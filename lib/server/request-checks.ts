// What the transport checks before a request's body is read: Content-Type and Content-Encoding (415) and the
// deadline kube-apiserver announces in `?timeout=` (400).
import { badRequest, ReviewError } from '../review/answer.js';

/**
 * Checks Content-Type: application/json, with any parameters, but a charset other than UTF-8 (JSON's only encoding,
 * RFC 8259 §8.1) is refused like any other type; otherwise 415.
 */
export function checkContentType(contentType: string | undefined): void {
  // what kube-apiserver sends on every call, without the split and the parameter scan below
  if (contentType === 'application/json') return;
  const [type, ...parameters] = (contentType ?? '').split(';');
  const mediaType = type!.trim().toLowerCase();
  const charset = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/^"(.*)"$/, '$1');
  if (mediaType !== 'application/json' || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new ReviewError(415, 'UnsupportedMediaType', contentType === undefined || contentType === ''
      ? 'Content-Type: Required value: expected application/json'
      : `Content-Type: Unsupported value: ${JSON.stringify(contentType)}: expected application/json`);
  }
}

/** Checks Content-Encoding: none, identity or gzip; returns whether the body must be gunzipped; otherwise 415. */
export function checkContentEncoding(contentEncoding: string | undefined): boolean {
  if (contentEncoding === undefined) return false;
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return false;
  if (encoding === 'gzip' || encoding === 'x-gzip') return true;
  throw new ReviewError(415, 'UnsupportedMediaType', `Content-Encoding: Unsupported value: ${JSON.stringify(contentEncoding)}: supported values: "gzip", "identity"`);
}

const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration (unsigned), in milliseconds; throws on malformed input. */
export function parseGoDuration(s: string): number {
  if (s === '0') return 0;
  if (s === '') throw new Error('time: invalid duration ""');
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let i = 0;
  while (i < s.length) {
    re.lastIndex = i;
    const m = re.exec(s);
    if (!m) throw new Error(`time: invalid duration ${JSON.stringify(s)}`);
    total += Number(m[1]) * durationUnits[m[2]!]!;
    i = re.lastIndex;
  }
  return total;
}

export interface TimeoutLimits {
  /** used when the request has no `?timeout=` (kube's default webhook timeoutSeconds: 10s) */
  readonly defaultTimeoutMs: number;
  /** the largest timeout honoured (kube's maximum webhook timeoutSeconds: 30s) */
  readonly maxTimeoutMs: number;
}

let lastParsed = { param: '', ms: 0 };

/**
 * The `timeout` parameter of a request's query string (after the `?`), null when absent. The apiserver's own
 * `timeout=10s` is read without building a URLSearchParams; anything else (several parameters, escapes) with one.
 */
export function timeoutParameter(query: string): string | null {
  if (query === '') return null;
  if (query.startsWith('timeout=') && !/[&;%+]/.test(query)) return query.slice('timeout='.length);
  return new URLSearchParams(query).get('timeout');
}

/**
 * The time the apiserver gives this call: its `?timeout=` (a Go duration, `5s`, `500ms`), the default when absent,
 * capped at the maximum. A malformed or non-positive value is a 400.
 */
export function requestTimeoutMs(timeoutParam: string | null, limits: TimeoutLimits): number {
  if (timeoutParam === null || timeoutParam === '') return Math.min(limits.defaultTimeoutMs, limits.maxTimeoutMs);
  let ms: number;
  try {
    // an apiserver sends the same timeout on every call: parsed once
    if (timeoutParam !== lastParsed.param) lastParsed = { param: timeoutParam, ms: parseGoDuration(timeoutParam) };
    ms = lastParsed.ms;
  } catch (err) {
    throw badRequest(`invalid timeout query parameter: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw badRequest(`invalid timeout query parameter ${JSON.stringify(timeoutParam)}: must be greater than zero`);
  return Math.min(ms, limits.maxTimeoutMs);
}
