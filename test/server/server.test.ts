// The admission listener over real HTTPS on 127.0.0.1: the captured kube-apiserver requests round-trip (v1 and
// v1beta1, uid echoed, raw body handed through), every malformed input gets its status and a message naming the
// fault, gzip bodies, the body limit, deadlines and onTimeout, handler failures, client disconnects, keep-alive,
// slow clients, and the request metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'node:https';
import { connect } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import { gzipSync } from 'node:zlib';
import type { Registry } from 'prom-client';
import type { AdmissionResponse } from '../../lib/api/admission.js';
import type { ParsedReview } from '../../lib/review/decode.js';
import { startAdmissionServer } from '../../lib/server/server.js';
import type { AdmissionContext, AdmissionServer, AdmissionServerOptions } from '../../lib/server/server.js';
import { call, loadCaptures, memoryLogger, minimalReview, newRegistry, replayHeaders, sampleValue, servingFiles, waitFor } from './helpers.js';
import type { CallOptions, Reply } from './helpers.js';

interface Seen {
  review: ParsedReview;
  ctx: AdmissionContext;
  receivedAt: number;
}

let caPEM: string;
let certFile: string;
let keyFile: string;
let cleanup: () => void;

before(async () => {
  ({ caPEM, certFile, keyFile, cleanup } = await servingFiles('server test'));
});
after(() => cleanup());

async function withServer(
  overrides: Partial<AdmissionServerOptions>,
  fn: (server: AdmissionServer, ctx: { registry: Registry; lines: string[]; seen: Seen[]; post: (o?: CallOptions) => Promise<Reply> }) => Promise<void>,
): Promise<void> {
  const registry = newRegistry();
  const { logger, lines } = memoryLogger();
  const seen: Seen[] = [];
  const allowAll = async (review: ParsedReview, ctx: AdmissionContext): Promise<AdmissionResponse> => {
    seen.push({ review, ctx, receivedAt: Date.now() });
    return { allowed: true };
  };
  const server = await startAdmissionServer({
    bindAddress: '127.0.0.1',
    port: 0,
    tls: { certFile, keyFile },
    routes: { '/validate': allowAll, '/mutate': allowAll },
    logger,
    registry,
    ...overrides,
  });
  try {
    await fn(server, { registry, lines, seen, post: (o = {}) => call(server.url, { ca: caPEM, ...o }) });
  } finally {
    await server.close();
  }
}

function statusOf(reply: Reply): { code: number; reason: string; message: string; kind: string } {
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  return JSON.parse(reply.body) as { code: number; reason: string; message: string; kind: string };
}

describe('captured kube-apiserver requests', () => {
  test('every capture round-trips in v1 with its uid echoed and its exact bytes handed to the handler', async () => {
    await withServer({}, async (_server, { post, seen }) => {
      const captures = loadCaptures();
      assert.ok(captures.length >= 5);
      for (const capture of captures) {
        const reply = await post({ path: capture.url, headers: replayHeaders(capture), body: capture.body });
        assert.equal(reply.status, 200, `${capture.name}: ${reply.body}`);
        assert.equal(reply.headers['content-type'], 'application/json');
        const sent = JSON.parse(capture.body.toString()) as { request: { uid: string; operation: string } };
        assert.deepEqual(JSON.parse(reply.body), {
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: sent.request.uid, allowed: true },
        });
        const last = seen.at(-1)!;
        assert.equal(last.review.apiVersion, 'admission.k8s.io/v1');
        assert.equal(last.review.request.uid, sent.request.uid);
        assert.equal(last.review.request.operation, sent.request.operation);
        assert.ok(last.review.body.equals(capture.body), 'the handler gets the bytes as sent');
        // ?timeout=5s: the deadline is 5s after receipt, less the 50ms margin
        assert.ok(Math.abs(last.ctx.deadline - (last.receivedAt + 4_950)) < 1_000, `deadline ${last.ctx.deadline - last.receivedAt}ms after receipt`);
        assert.equal(last.ctx.signal.aborted, false);
      }
      assert.equal(seen.length, captures.length);
    });
  });

  test('a v1beta1 review is answered in v1beta1, with status, warnings, audit annotations and patch in order', async () => {
    const capture = loadCaptures().find((c) => c.name.includes('mutate'))!;
    const body = JSON.parse(capture.body.toString()) as { apiVersion: string; request: { uid: string } };
    body.apiVersion = 'admission.k8s.io/v1beta1';
    const patch = Buffer.from('[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]').toString('base64');
    await withServer({
      routes: {
        '/mutate': async (review) => {
          assert.equal(review.apiVersion, 'admission.k8s.io/v1beta1');
          return {
            uid: 'not-the-request-uid',
            allowed: false,
            patch,
            status: { code: 403, reason: 'Forbidden', message: 'denied' },
            auditAnnotations: { key: 'value' },
            warnings: ['w1'],
          };
        },
      },
    }, async (_server, { post }) => {
      const reply = await post({ path: capture.url, headers: replayHeaders(capture), body: JSON.stringify(body) });
      assert.equal(reply.status, 200);
      assert.equal(reply.body, JSON.stringify({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        response: {
          uid: body.request.uid,
          allowed: false,
          status: { code: 403, reason: 'Forbidden', message: 'denied' },
          warnings: ['w1'],
          auditAnnotations: { key: 'value' },
          patch,
          patchType: 'JSONPatch',
        },
      }));
    });
  });
});

describe('malformed input', () => {
  const cases: Array<{ name: string; opts: CallOptions; status: number; reason: string; message: RegExp }> = [
    { name: 'not JSON', opts: { body: '{"kind": "AdmissionReview",}' }, status: 400, reason: 'BadRequest', message: /^request body is not valid JSON: invalid character '}' looking for beginning of object key string at position 27 \(line 1, column 28\)$/ },
    { name: 'truncated JSON', opts: { body: '{"kind":"AdmissionReview","request":{' }, status: 400, reason: 'BadRequest', message: /not valid JSON: unexpected end of JSON input at position 37/ },
    { name: 'JSON error on a later line', opts: { body: '{\n  "kind": "AdmissionReview"\n  "apiVersion": "x"\n}' }, status: 400, reason: 'BadRequest', message: /invalid character '"' after object key:value pair at position 32 \(line 3, column 3\)/ },
    { name: 'empty body', opts: { body: '' }, status: 400, reason: 'BadRequest', message: /request body is empty/ },
    { name: 'a JSON array', opts: { body: '[]' }, status: 400, reason: 'BadRequest', message: /expected a JSON object, got array/ },
    { name: 'wrong kind', opts: { body: minimalReview({ kind: 'Pod' }) }, status: 400, reason: 'BadRequest', message: /kind: Unsupported value: "Pod": expected "AdmissionReview"/ },
    { name: 'missing kind', opts: { body: minimalReview({ kind: undefined }) }, status: 400, reason: 'BadRequest', message: /kind: Required value/ },
    { name: 'wrong apiVersion', opts: { body: minimalReview({ apiVersion: 'admission.k8s.io/v2' }) }, status: 400, reason: 'BadRequest', message: /apiVersion: Unsupported value: "admission.k8s.io\/v2": supported values: "admission.k8s.io\/v1", "admission.k8s.io\/v1beta1"/ },
    { name: 'missing request', opts: { body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }) }, status: 400, reason: 'BadRequest', message: /request: Required value/ },
    { name: 'request not an object', opts: { body: minimalReview({ request: 'x' }) }, status: 400, reason: 'BadRequest', message: /request: Invalid value: string: must be an object/ },
    { name: 'missing request.uid', opts: { body: minimalReview({}, { uid: undefined }) }, status: 400, reason: 'BadRequest', message: /request\.uid: Required value/ },
    { name: 'empty request.uid', opts: { body: minimalReview({}, { uid: '' }) }, status: 400, reason: 'BadRequest', message: /request\.uid: Required value/ },
    { name: 'numeric request.uid', opts: { body: minimalReview({}, { uid: 7 }) }, status: 400, reason: 'BadRequest', message: /request\.uid: Invalid value: number: must be a string/ },
    { name: 'missing request.operation', opts: { body: minimalReview({}, { operation: undefined }) }, status: 400, reason: 'BadRequest', message: /request\.operation: Required value/ },
    { name: 'unknown request.operation', opts: { body: minimalReview({}, { operation: 'PATCH' }) }, status: 400, reason: 'BadRequest', message: /request\.operation: Unsupported value: "PATCH"/ },
    { name: 'missing request.kind', opts: { body: minimalReview({}, { kind: undefined }) }, status: 400, reason: 'BadRequest', message: /request\.kind: Required value/ },
    { name: 'request.kind without kind', opts: { body: minimalReview({}, { kind: { group: '', version: 'v1' } }) }, status: 400, reason: 'BadRequest', message: /request\.kind\.kind: Required value/ },
    { name: 'missing request.resource', opts: { body: minimalReview({}, { resource: undefined }) }, status: 400, reason: 'BadRequest', message: /request\.resource: Required value/ },
    { name: 'request.resource without resource', opts: { body: minimalReview({}, { resource: { group: '', version: 'v1' } }) }, status: 400, reason: 'BadRequest', message: /request\.resource\.resource: Required value/ },
    // typed as a Go webhook decodes the review (see review-types.test.ts for the upstream sources of the wording)
    { name: 'userInfo a string', opts: { body: minimalReview({}, { userInfo: 'x' }) }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal string into Go struct field AdmissionRequest\.request\.userInfo of type v1\.UserInfo$/ },
    { name: 'dryRun a string', opts: { body: minimalReview({}, { dryRun: 'yes' }) }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal string into Go struct field AdmissionRequest\.request\.dryRun of type bool$/ },
    { name: 'requestKind a number', opts: { body: minimalReview({}, { requestKind: 7 }) }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal number into Go struct field AdmissionRequest\.request\.requestKind of type v1\.GroupVersionKind$/ },
    { name: 'a 30-digit requestResource.version', opts: { body: minimalReview().replace('"operation":"CREATE"', '"operation":"CREATE","requestResource":{"version":123456789012345678901234567890}') }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal number into Go struct field GroupVersionResource\.request\.requestResource\.version of type string$/ },
    { name: 'a response in the request', opts: { body: minimalReview({ response: { allowed: 'yes' } }) }, status: 400, reason: 'BadRequest', message: /^json: cannot unmarshal string into Go struct field AdmissionResponse\.response\.allowed of type bool$/ },
    { name: 'malformed ?timeout=', opts: { path: '/validate?timeout=5 seconds', body: minimalReview() }, status: 400, reason: 'BadRequest', message: /invalid timeout query parameter: time: invalid duration "5 seconds"/ },
    { name: 'zero ?timeout=', opts: { path: '/validate?timeout=0s', body: minimalReview() }, status: 400, reason: 'BadRequest', message: /must be greater than zero/ },
    { name: 'GET', opts: { method: 'GET' }, status: 405, reason: 'MethodNotAllowed', message: /method GET is not allowed on \/validate: use POST/ },
    { name: 'text/plain', opts: { body: minimalReview(), headers: { 'Content-Type': 'text/plain' } }, status: 415, reason: 'UnsupportedMediaType', message: /Content-Type: Unsupported value: "text\/plain": expected application\/json/ },
    { name: 'JSON in UTF-16', opts: { body: minimalReview(), headers: { 'Content-Type': 'application/json; charset=utf-16' } }, status: 415, reason: 'UnsupportedMediaType', message: /Content-Type: Unsupported value: "application\/json; charset=utf-16": expected application\/json/ },
    { name: 'no Content-Type', opts: { body: minimalReview(), headers: { 'Content-Type': '' } }, status: 415, reason: 'UnsupportedMediaType', message: /Content-Type: Required value/ },
    { name: 'brotli', opts: { body: minimalReview(), headers: { 'Content-Encoding': 'br' } }, status: 415, reason: 'UnsupportedMediaType', message: /Content-Encoding: Unsupported value: "br"/ },
    { name: 'not gzip although declared', opts: { body: minimalReview(), headers: { 'Content-Encoding': 'gzip' } }, status: 400, reason: 'BadRequest', message: /request body is not valid gzip/ },
    { name: 'unknown path', opts: { path: '/admit', body: minimalReview() }, status: 404, reason: 'NotFound', message: /no admission endpoint at "\/admit": expected one of \/validate, \/mutate/ },
  ];

  test('each fault is answered with its status and a metav1.Status naming it; the handler never runs', async () => {
    await withServer({}, async (_server, { post, seen, lines }) => {
      for (const c of cases) {
        const reply = await post(c.opts);
        assert.equal(reply.status, c.status, `${c.name}: ${reply.body}`);
        const status = statusOf(reply);
        assert.equal(status.kind, 'Status', c.name);
        assert.equal(status.code, c.status, c.name);
        assert.equal(status.reason, c.reason, c.name);
        assert.match(status.message, c.message, c.name);
        if (c.status === 405) assert.equal(reply.headers.allow, 'POST');
      }
      assert.equal(seen.length, 0);
      assert.ok(lines.some((l) => l.includes('Rejected admission request')), 'rejections are logged at -v=2');
      // the listener still serves well-formed requests
      assert.equal((await post({ body: minimalReview() })).status, 200);
    });
  });
});

describe('bodies', () => {
  test('a gzip-compressed body is accepted and the handler gets the decompressed bytes', async () => {
    const capture = loadCaptures().find((c) => c.name.includes('Pod'))!;
    await withServer({}, async (_server, { post, seen }) => {
      const reply = await post({ path: capture.url, headers: { ...replayHeaders(capture), 'Content-Encoding': 'gzip' }, body: gzipSync(capture.body) });
      assert.equal(reply.status, 200, reply.body);
      assert.equal((JSON.parse(reply.body) as { response: { uid: string } }).response.uid, seen[0]!.review.request.uid);
      assert.ok(seen[0]!.review.body.equals(capture.body));
    });
  });

  test('bodies over maxBodyBytes get 413: declared, streamed without a length, and after gunzip', async () => {
    const limit = 2048;
    await withServer({ limits: { maxBodyBytes: limit } }, async (_server, { post, seen }) => {
      const big = minimalReview({}, { object: { data: 'x'.repeat(limit) } });
      assert.ok(Buffer.byteLength(big) > limit);
      const declared = await post({ body: big });
      assert.equal(declared.status, 413);
      assert.equal(statusOf(declared).message, `request body exceeds the limit of ${limit} bytes`);
      assert.equal(statusOf(declared).reason, 'RequestEntityTooLarge');

      const chunked = await post({ body: big, headers: { 'Transfer-Encoding': 'chunked' } });
      assert.equal(chunked.status, 413);

      const compressed = gzipSync(big);
      assert.ok(compressed.length < limit, 'compressed it fits, decompressed it does not');
      const gz = await post({ body: compressed, headers: { 'Content-Encoding': 'gzip' } });
      assert.equal(gz.status, 413);

      const justFits = minimalReview({}, { object: { data: 'x'.repeat(limit - Buffer.byteLength(minimalReview({}, { object: { data: '' } }))) } });
      assert.equal(Buffer.byteLength(justFits), limit);
      assert.equal((await post({ body: justFits })).status, 200);
      assert.equal(seen.length, 1);
    });
  });
});

describe('handlers', () => {
  test('a handler that throws gets HTTP 500 with its message, and is logged', async () => {
    await withServer({
      routes: { '/validate': async () => { throw new Error('policy table is on fire'); } },
    }, async (_server, { post, lines }) => {
      const reply = await post({ body: minimalReview() });
      assert.equal(reply.status, 500);
      const status = statusOf(reply);
      assert.equal(status.reason, 'InternalError');
      assert.equal(status.message, 'admission handler failed: policy table is on fire');
      assert.ok(lines.some((l) => l.includes('"msg":"Admission handler failed"') && l.includes('policy table is on fire')));
    });
  });

  test('a handler past the deadline: onTimeout answers, the signal aborts, the late result is dropped', async () => {
    let lateResult: (() => void) | undefined;
    const aborted: unknown[] = [];
    await withServer({
      routes: {
        '/validate': (_review, ctx) => new Promise<AdmissionResponse>((resolve) => {
          ctx.signal.addEventListener('abort', () => aborted.push(ctx.signal.reason));
          lateResult = () => resolve({ allowed: false, status: { code: 403, message: 'too late' } });
        }),
      },
      onTimeout: (review, info) => ({ allowed: true, warnings: [`${info.endpoint} took longer than ${info.timeoutMs}ms for ${review.request.uid}; failurePolicy Ignore applied`] }),
    }, async (_server, { post, registry }) => {
      const started = Date.now();
      const reply = await post({ path: '/validate?timeout=300ms', body: minimalReview() });
      const took = Date.now() - started;
      assert.equal(reply.status, 200);
      const review = JSON.parse(reply.body) as { response: AdmissionResponse };
      assert.deepEqual(review.response, {
        uid: 'c0ffee00-0000-4000-8000-000000000001',
        allowed: true,
        warnings: ['/validate took longer than 300ms for c0ffee00-0000-4000-8000-000000000001; failurePolicy Ignore applied'],
      });
      assert.ok(took >= 250 && took < 2_000, `answered after ${took}ms`);
      await waitFor('the handler signal to abort', () => aborted.length === 1);
      assert.match(String(aborted[0]), /deadline exceeded/);
      lateResult!();
      assert.equal(sampleValue(await registry.metrics(), 'static_admissiond_admission_deadline_exceeded_total', { endpoint: '/validate' }), 1);
    });
  });

  test('without onTimeout a missed deadline is a denial with reason Timeout (fail closed)', async () => {
    await withServer({
      routes: { '/validate': (_r, ctx) => new Promise<AdmissionResponse>((resolve) => ctx.signal.addEventListener('abort', () => resolve({ allowed: true }))) },
    }, async (_server, { post }) => {
      const reply = await post({ path: '/validate?timeout=100ms', body: minimalReview() });
      const response = (JSON.parse(reply.body) as { response: AdmissionResponse }).response;
      assert.equal(response.allowed, false);
      assert.equal(response.status?.reason, 'Timeout');
      assert.equal(response.status?.code, 504);
    });
  });

  test('the deadline: ?timeout= capped at maxTimeoutMs, defaultTimeoutMs when absent', async () => {
    await withServer({ limits: { defaultTimeoutMs: 7_000, maxTimeoutMs: 20_000 } }, async (_server, { post, seen }) => {
      await post({ path: '/validate', body: minimalReview() });
      await post({ path: '/validate?timeout=1h', body: minimalReview() });
      await post({ path: '/validate?timeout=500ms', body: minimalReview() });
      const after = seen.map((s) => s.ctx.deadline - s.receivedAt);
      assert.ok(Math.abs(after[0]! - 6_950) < 500, `default: ${after[0]}`);
      assert.ok(Math.abs(after[1]! - 19_950) < 500, `capped: ${after[1]}`);
      assert.ok(after[2]! > 300 && after[2]! <= 460, `500ms less a tenth: ${after[2]}`);
    });
  });

  test('the apiserver hanging up aborts the handler\'s signal', async () => {
    let started!: () => void;
    const handlerStarted = new Promise<void>((r) => { started = r; });
    let reason: unknown;
    await withServer({
      routes: {
        '/validate': (_r, ctx) => new Promise<AdmissionResponse>((resolve) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            resolve({ allowed: true });
          });
        }),
      },
    }, async (server, { registry }) => {
      const url = new URL(server.url);
      const body = minimalReview();
      const socket = connect({ host: url.hostname, port: Number(url.port), ca: caPEM });
      await new Promise<void>((r) => socket.once('secureConnect', () => r()));
      socket.write(`POST /validate?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      await handlerStarted;
      socket.destroy();
      await waitFor('the handler to see the abort', () => reason !== undefined);
      assert.match(String(reason), /client closed the connection/);
      await waitFor('the request to be counted', async () => sampleValue(await registry.metrics(), 'static_admissiond_admission_requests_total', { endpoint: '/validate', code: '0' }) === 1);
    });
  });
});

describe('clients hanging up', () => {
  test('mid-body: no error line per hang-up, and never counted as a 5xx', async () => {
    await withServer({}, async (server, { registry, lines }) => {
      const url = new URL(server.url);
      const socket = connect({ host: url.hostname, port: Number(url.port), ca: caPEM });
      await new Promise<void>((r) => socket.once('secureConnect', () => r()));
      // half of a 2 MiB body, then gone while the daemon is reading it
      socket.write(`POST /validate?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`);
      socket.write(Buffer.alloc(1024 * 1024, 0x20), () => socket.destroy());
      const counted = async (): Promise<string[]> => (await registry.metrics()).split('\n').filter((l) => l.startsWith('static_admissiond_admission_requests_total{'));
      await waitFor('the request to be counted', async () => (await counted()).length === 1);
      assert.doesNotMatch((await counted())[0]!, /code="5\d\d"/);
      assert.deepEqual(lines.filter((l) => l.includes('"msg":"Admission request failed"')), []);
    });
  });
});

describe('connections', () => {
  test('keep-alive: requests reuse one connection, also after it sat idle longer than the header timeout', async () => {
    await withServer({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 1_000 } }, async (_server, { post }) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: caPEM });
      try {
        const first = await post({ body: minimalReview(), agent });
        const second = await post({ body: minimalReview(), agent });
        assert.equal(first.reusedSocket, false);
        assert.equal(second.reusedSocket, true);
        // Idle time is the point of this step (not synchronization): the header timeout must not close idle
        // keep-alive connections, only keepAliveTimeoutMs may.
        await new Promise((r) => setTimeout(r, 600));
        const third = await post({ body: minimalReview(), agent });
        assert.equal(third.status, 200);
        assert.equal(third.reusedSocket, true);
      } finally {
        agent.destroy();
      }
    });
  });

  test('slow clients (trickled headers, trickled body, silent after the handshake) are cut off while others are served', async () => {
    await withServer({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } }, async (server, { post }) => {
      const url = new URL(server.url);
      const open = async (): Promise<TLSSocket> => {
        const s = connect({ host: url.hostname, port: Number(url.port), ca: caPEM });
        await new Promise<void>((resolve, reject) => {
          s.once('secureConnect', () => resolve());
          s.once('error', reject);
        });
        return s;
      };
      type Slow = { socket: TLSSocket; closedAfter?: number; received: string; timer?: NodeJS.Timeout };
      const watch = (socket: TLSSocket): Slow => {
        const slow: Slow = { socket, received: '' };
        const opened = Date.now();
        socket.on('data', (d: Buffer) => { slow.received += d.toString(); });
        socket.on('error', () => undefined);
        socket.on('close', () => {
          slow.closedAfter = Date.now() - opened;
          clearInterval(slow.timer);
        });
        return slow;
      };
      // 1: headers one byte at a time, forever
      const headers = watch(await open());
      const headerText = 'POST /validate HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(10_000);
      let hi = 0;
      headers.timer = setInterval(() => { if (!headers.socket.destroyed) headers.socket.write(headerText[hi++ % headerText.length]!); }, 20);
      // 2: complete headers, then the body one byte at a time
      const body = watch(await open());
      const payload = minimalReview();
      body.socket.write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`);
      let bi = 0;
      body.timer = setInterval(() => { if (!body.socket.destroyed && bi < payload.length - 1) body.socket.write(payload[bi++]!); }, 20);
      // 3: handshake, then nothing
      const silent = watch(await open());

      // Meanwhile other clients are served.
      for (let i = 0; i < 3; i++) assert.equal((await post({ body: minimalReview() })).status, 200);

      for (const [name, slow] of Object.entries({ headers, body, silent })) {
        await waitFor(`the ${name} slow client to be cut off`, () => slow.closedAfter !== undefined, 5_000);
        assert.ok(slow.closedAfter! < 3_000, `${name}: cut off after ${slow.closedAfter}ms`);
      }
      assert.match(headers.received, /^HTTP\/1\.1 408 /);
      assert.match(body.received, /^HTTP\/1\.1 408 /);
      assert.equal((await post({ body: minimalReview() })).status, 200);
    });
  });

  test('close() lets an in-flight request finish and then refuses new connections', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let started!: () => void;
    const handlerStarted = new Promise<void>((r) => { started = r; });
    const registry = newRegistry();
    const server = await startAdmissionServer({
      bindAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile }, logger: memoryLogger().logger, registry,
      routes: { '/validate': async () => { started(); await gate; return { allowed: true }; } },
    });
    const pending = call(server.url, { ca: caPEM, body: minimalReview() });
    await handlerStarted;
    const closed = server.close();
    release();
    const reply = await pending;
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.connection, 'close');
    await closed;
    await assert.rejects(call(server.url, { ca: caPEM, body: minimalReview() }), /ECONNREFUSED/);
  });
});

test('metrics: requests by endpoint and code, and a duration histogram from 100µs', async () => {
  await withServer({}, async (_server, { post, registry }) => {
    await post({ path: '/validate', body: minimalReview() });
    await post({ path: '/validate', body: minimalReview() });
    await post({ path: '/mutate', body: minimalReview() });
    await post({ path: '/mutate', body: 'nope' });
    await post({ path: '/nowhere', body: minimalReview() });
    const text = await waitFor('five requests counted', async () => {
      const t = await registry.metrics();
      return sampleValue(t, 'static_admissiond_admission_request_duration_seconds_count', { endpoint: 'unknown' }) === 1 ? t : undefined;
    });
    assert.equal(sampleValue(text, 'static_admissiond_admission_requests_total', { endpoint: '/validate', code: '200' }), 2);
    assert.equal(sampleValue(text, 'static_admissiond_admission_requests_total', { endpoint: '/mutate', code: '200' }), 1);
    assert.equal(sampleValue(text, 'static_admissiond_admission_requests_total', { endpoint: '/mutate', code: '400' }), 1);
    assert.equal(sampleValue(text, 'static_admissiond_admission_requests_total', { endpoint: 'unknown', code: '404' }), 1);
    assert.equal(sampleValue(text, 'static_admissiond_admission_request_duration_seconds_count', { endpoint: '/validate' }), 2);
    assert.notEqual(sampleValue(text, 'static_admissiond_admission_request_duration_seconds_bucket', { endpoint: '/validate', le: '0.0001' }), undefined);
    assert.equal(sampleValue(text, 'static_admissiond_admission_request_duration_seconds_bucket', { endpoint: '/validate', le: '30' }), 2);
  });
});
