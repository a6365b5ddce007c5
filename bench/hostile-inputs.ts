// The hostile inputs of bench/hostile.ts: malformed AdmissionReviews and misbehaving clients, each with the answer the
// daemon owes it. Made from the bench's pod review (testdata/bench/pod-review.json), deterministically from a seed so
// that a run can be repeated. Large bodies are built once per size class and reused: making 7 MiB per request would
// load the client more than the daemon.
import { gzipSync } from 'node:zlib';

/** How a case reaches the daemon. */
export type Delivery =
  /** an ordinary request on a keep-alive connection */
  | { readonly mode: 'request'; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer }
  /** raw bytes on a fresh TLS connection, all at once (bad HTTP framing) */
  | { readonly mode: 'raw'; readonly bytes: Buffer }
  /** the head alone, then wait for the answer (a body over the limit refused on its declared length) */
  | { readonly mode: 'head-only'; readonly head: Buffer }
  /** the head, then the body in 64 KiB chunks without a length (chunked) until the daemon answers */
  | { readonly mode: 'chunked'; readonly head: Buffer; readonly body: Buffer }
  /** the head and part of the body, then nothing: the request timeout answers */
  | { readonly mode: 'stall'; readonly bytes: Buffer }
  /** the head and part of the body, then the client hangs up: nobody to answer */
  | { readonly mode: 'hang-up'; readonly bytes: Buffer }
  /** the bytes a few at a time, `everyMs` apart, until the daemon answers (slowloris) */
  | { readonly mode: 'trickle'; readonly bytes: Buffer; readonly chunk: number; readonly everyMs: number };

export interface HostileCase {
  /** the catalogue entry, for the report */
  readonly kind: string;
  readonly path: string;
  readonly delivery: Delivery;
  /** the HTTP status owed; undefined: the client left, nothing can be answered */
  readonly expect: number | undefined;
  /**
   * the refusal may come as a reset instead: a client still writing a body the daemon refused and closed on gets
   * EPIPE or ECONNRESET, and TCP may drop the answer already sent
   */
  readonly resetIsRefusal?: boolean;
  /**
   * a body of a MiB or more may also get the 408 of --request-body-timeout: on a machine short of CPU, megabytes of
   * TLS may take longer than the 4 s the daemon gives a whole request to arrive, and that is the refusal owed to it
   */
  readonly mayTimeOut?: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const MiB = 1024 * 1024;

function head(path: string, headers: Readonly<Record<string, string>>): string {
  return `POST ${path}?timeout=10s HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

const json = { 'Content-Type': 'application/json' } as const;

/**
 * The catalogue over `review` (a valid pod AdmissionReview) for bodies up to `maxBodyBytes` (the daemon's limit):
 * `next()` draws the next fast case, `nextSlow()` the next slow one.
 */
export function hostileCatalogue(review: JsonObject, maxBodyBytes: number, random: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const text = JSON.stringify(review);
  const clone = (): JsonObject => JSON.parse(text) as JsonObject;
  const request = (r: JsonObject): JsonObject => r.request as JsonObject;
  const path = (): string => pick(['/validate', '/mutate']);
  const ordinary = (kind: string, body: Buffer | string, expect = 400, headers: Record<string, string> = json): HostileCase => ({
    kind, path: path(), expect, mayTimeOut: Buffer.byteLength(body) >= MiB, delivery: { mode: 'request', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, body: Buffer.from(body) },
  });

  /** JSON text that is not one JSON value: cut, corrupted, doubled, trailing bytes, not UTF-8. */
  const syntax = (): HostileCase => {
    const at = 1 + Math.floor(random() * (text.length - 2));
    // each variant is invalid wherever it falls: a raw control character is invalid in and out of strings
    const body = pick([
      () => text.slice(0, at),
      () => `${text.slice(0, at)}${pick(['\u0000', '\u0001', '\u001f'])}${text.slice(at + 1)}`,
      () => `${text}${text}`,
      () => `${text} x`,
      () => `\ufeff${text}`,
      () => '',
      () => '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":1e400}}'.slice(0, 20 + Math.floor(random() * 60)),
    ])();
    return ordinary('bad JSON', body);
  };

  /** Valid JSON whose envelope has the wrong shape or types. */
  const wrongTypes = (): HostileCase => {
    const r = clone();
    const req = request(r);
    pick<() => void>([
      () => { req.uid = 12345; },
      () => { req.uid = null; },
      () => { r.request = 'a request'; },
      () => { r.request = [req]; },
      () => { req.kind = 'Pod'; },
      () => { req.resource = { group: '', version: 1, resource: 'pods' }; },
      () => { req.operation = 'PATCH'; },
      () => { req.userInfo = { username: 7 }; },
      () => { req.dryRun = 'yes'; },
      () => { req.requestKind = 'Pod'; },
      () => { r.kind = 'AdmissionReviewList'; },
      () => { r.apiVersion = 'admission.k8s.io/v2'; },
      () => { delete r.request; },
      () => { req.namespace = { name: 'shop' }; },
      () => { req.subResource = false; },
    ])();
    const body = random() < 0.1 ? JSON.stringify([r]) : JSON.stringify(r);
    return ordinary('wrong types', body);
  };

  /** Nesting past kube-apiserver's decoder depth (10,000 levels), a little to as deep as the body limit allows. */
  const deep = (): HostileCase => {
    const arrays = random() < 0.5;
    const room = Math.floor((maxBodyBytes - text.length - 64) / (arrays ? 2 : 6));
    const depth = Math.min(room, pick([12_000, 50_000, 200_000, room]));
    const open = (): string => (arrays ? '[' : '{"a":').repeat(depth);
    const close = (): string => (arrays ? ']' : '}').repeat(depth);
    const key = `${arrays}/${depth}`;
    let body = deepBodies.get(key);
    if (body === undefined) {
      const r = clone();
      const marker = '"__deep__"';
      request(r).object = '__deep__';
      const [before, after] = JSON.stringify(r).split(marker) as [string, string];
      deepBodies.set(key, (body = Buffer.from(`${before}${open()}1${close()}${after}`)));
    }
    return ordinary('deep nesting', body);
  };
  const deepBodies = new Map<string, Buffer>();

  // Large bodies: one per size class and shape, made on first use. A large body is valid JSON up to its last bytes,
  // so the daemon reads, copies and parses all of it before it finds the fault.
  const sizes = [256 * 1024, 1 * MiB, 3 * MiB, maxBodyBytes - 4096];
  const large = new Map<string, Buffer>();
  const largeBody = (shape: 'string' | 'objects' | 'cut', size: number): Buffer => {
    const key = `${shape}/${size}`;
    let body = large.get(key);
    if (body !== undefined) return body;
    const r = clone();
    const req = request(r);
    const object = req.object as JsonObject;
    if (shape === 'objects') {
      // many small objects: the parse builds a large graph
      const entry = { name: 'c', image: 'registry.example/app:1', env: [{ name: 'A', value: 'b' }], ports: [{ containerPort: 80 }] };
      const n = Math.floor((size - text.length - 64) / (JSON.stringify(entry).length + 8));
      (object.spec as JsonObject).initContainers = Array.from({ length: n }, (_, i) => ({ ...entry, name: `c${i}` }));
      req.operation = 'PATCH';
    } else {
      (object.metadata as JsonObject).annotations = { big: 'x'.repeat(size - text.length - 64) };
      if (shape === 'string') req.uid = 42;
    }
    const t = JSON.stringify(r);
    body = Buffer.from(shape === 'cut' ? t.slice(0, -1) : t);
    large.set(key, body);
    return body;
  };
  const largeCase = (): HostileCase => {
    const shape = pick(['string', 'objects', 'cut'] as const);
    return ordinary(`large (${shape})`, largeBody(shape, pick(sizes)));
  };

  /** Over the limit: refused on its declared length, while it streams, or once gunzipped. */
  const overLimit = (): HostileCase => {
    const p = path();
    return pick<() => HostileCase>([
      () => ({ kind: 'over limit (declared)', path: p, expect: 413, delivery: { mode: 'head-only', head: Buffer.from(head(p, { ...json, 'Content-Length': String(maxBodyBytes + 1 + Math.floor(random() * 64 * MiB)) })) } }),
      () => ({ kind: 'over limit (chunked)', path: p, expect: 413, resetIsRefusal: true, mayTimeOut: true, delivery: { mode: 'chunked', head: Buffer.from(head(p, { ...json, 'Transfer-Encoding': 'chunked' })), body: overLimitBody() } }),
      () => ({ kind: 'over limit (gzip)', path: p, expect: 413, delivery: { mode: 'request', headers: { ...json, 'Content-Encoding': 'gzip', 'Content-Length': String(gzipBomb().length) }, body: gzipBomb() } }),
    ])();
  };
  let overLimitBuffer: Buffer | undefined;
  const overLimitBody = (): Buffer => (overLimitBuffer ??= Buffer.alloc(maxBodyBytes + MiB, 0x20));
  let bomb: Buffer | undefined;
  const gzipBomb = (): Buffer => (bomb ??= gzipSync(Buffer.concat([Buffer.from(text.slice(0, -2)), Buffer.alloc(maxBodyBytes * 2, 0x20), Buffer.from('}}')])));

  const wrongContentType = (): HostileCase => {
    const type = pick(['text/plain', 'application/yaml', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', '']);
    const headers: Record<string, string> = type === '' ? {} : { 'Content-Type': type };
    if (random() < 0.3) headers['Content-Encoding'] = pick(['br', 'deflate', 'compress']);
    return ordinary('wrong content type', text, 415, type === '' ? {} : headers);
  };

  /** HTTP framing the parser refuses: answered 400 text/plain, connection closed. */
  const framing = (): HostileCase => {
    const p = path();
    const bytes = pick([
      `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}{}{}`,
      `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n{}{}`,
      `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type application/json\r\n\r\n`,
      `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
      `POST ${p} HTTP/1.1\nHost: x\r\nX: ${'a'.repeat(100)}\r\r\n\r\n`,
      `POST ${p} HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
    ]);
    // headers too large are refused while the client may still be sending them: the answer may be lost to the reset
    const big = bytes.includes('X-Big');
    return { kind: 'bad HTTP framing', path: p, expect: big ? 431 : 400, resetIsRefusal: big, delivery: { mode: 'raw', bytes: Buffer.from(bytes) } };
  };

  /** The client sends part of the body, then hangs up: nobody is left to answer. */
  const hangUp = (): HostileCase => {
    const p = path();
    const body = pick([Buffer.from(text), largeBody('string', pick(sizes))]);
    const part = body.subarray(0, Math.floor(body.length * random()));
    return { kind: 'hang-up mid-body', path: p, expect: undefined, delivery: { mode: 'hang-up', bytes: Buffer.concat([Buffer.from(head(p, { ...json, 'Content-Length': String(body.length) })), part]) } };
  };

  const next = (): HostileCase => {
    const x = random();
    if (x < 0.22) return syntax();
    if (x < 0.5) return wrongTypes();
    if (x < 0.62) return deep();
    if (x < 0.74) return wrongContentType();
    if (x < 0.84) return framing();
    if (x < 0.93) return hangUp();
    if (x < 0.975) return overLimit();
    return largeCase();
  };

  /**
   * A slow client: a stalled body, or headers or body trickled; the daemon's timeouts answer 408. A trickle would take
   * four times the timeout (15 s of headers, 16 s of body), so that a daemon starved of CPU still cuts it off.
   */
  const nextSlow = (): HostileCase => {
    const p = path();
    const h = head(p, { ...json, 'Content-Length': String(text.length) });
    return pick<() => HostileCase>([
      () => ({ kind: 'stalled body', path: p, expect: 408, delivery: { mode: 'stall', bytes: Buffer.from(h + text.slice(0, Math.floor(text.length / 2))) } }),
      () => ({ kind: 'trickled headers', path: p, expect: 408, delivery: { mode: 'trickle', bytes: Buffer.from(h), chunk: 1, everyMs: 100 } }),
      () => ({ kind: 'trickled body', path: p, expect: 408, delivery: { mode: 'trickle', bytes: Buffer.from(h + text), chunk: 32, everyMs: 125 } }),
    ])();
  };

  return { next, nextSlow };
}
