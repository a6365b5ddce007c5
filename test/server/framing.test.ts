// Requests Node's HTTP parser refuses, and slow clients cut off by the timeouts, over raw TLS sockets to a real
// listener: each gets a short text/plain answer naming the fault, then the connection closes, and other clients are
// served meanwhile. The shape of the answer is Go's net/http server's for a request it cannot read (net/http
// server.go conn.serve: `HTTP/1.1 400 Bad Request`, `Content-Type: text/plain; charset=utf-8`, `Connection: close`,
// body `400 Bad Request: <reason>`; `431 Request Header Fields Too Large` for oversized headers); the reasons are
// llhttp's (Node's parser), prefixed `malformed HTTP request: `.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maxHeaderSize } from 'node:http';
import { connect } from 'node:tls';
import type { AdmissionServerLimits } from '../../lib/server/limits.js';
import { startAdmissionServer } from '../../lib/server/server.js';
import type { AdmissionServer } from '../../lib/server/server.js';
import { call, memoryLogger, minimalReview, newRegistry, servingFiles } from './helpers.js';

let caPEM: string;
let certFile: string;
let keyFile: string;
let cleanup: () => void;

before(async () => {
  ({ caPEM, certFile, keyFile, cleanup } = await servingFiles('framing test'));
});
after(() => cleanup());

const review = minimalReview();

async function withServer(limits: AdmissionServerLimits, fn: (server: AdmissionServer, handled: () => number) => Promise<void>): Promise<void> {
  let handled = 0;
  const server = await startAdmissionServer({
    bindAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile }, logger: memoryLogger().logger, registry: newRegistry(), limits,
    routes: { '/validate': async () => { handled++; return { allowed: true }; } },
  });
  try {
    await fn(server, () => handled);
  } finally {
    await server.close();
  }
}

interface RawReply {
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  /** ms from connecting to the connection closing */
  closedAfter: number;
}

/** Connects over TLS, writes `chunks` (a function gets the socket to trickle with), reads everything until close. */
async function raw(server: AdmissionServer, send: string | ((write: (s: string) => void) => NodeJS.Timeout | undefined)): Promise<RawReply> {
  const url = new URL(server.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: caPEM });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', reject);
  });
  const opened = Date.now();
  let received = '';
  socket.on('data', (d: Buffer) => { received += d.toString('latin1'); });
  socket.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const closed = new Promise<number>((resolve) => socket.once('close', () => {
    clearInterval(timer);
    resolve(Date.now() - opened);
  }));
  const write = (s: string): void => {
    if (!socket.destroyed) socket.write(s);
  };
  if (typeof send === 'string') write(send);
  else timer = send(write);
  const closedAfter = await closed;
  const split = received.indexOf('\r\n\r\n');
  assert.ok(split > 0, `an HTTP response before the close, got ${JSON.stringify(received.slice(0, 200))}`);
  const [statusLine, ...lines] = received.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  return { statusLine: statusLine!, headers, body: received.slice(split + 4), closedAfter };
}

function assertAnswer(reply: RawReply, status: string, body: string): void {
  assert.equal(reply.statusLine, `HTTP/1.1 ${status}`);
  assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(reply.headers['connection'], 'close');
  assert.equal(reply.body, body);
  assert.equal(Number(reply.headers['content-length']), Buffer.byteLength(body));
}

describe('framing errors are answered with the fault named', () => {
  const post = 'POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n';
  const cases: Array<[string, string, string, string]> = [
    ['Content-Length together with Transfer-Encoding', `${post}Content-Length: ${review.length}\r\nTransfer-Encoding: chunked\r\n\r\n${review}`,
      '400 Bad Request', "400 Bad Request: malformed HTTP request: Transfer-Encoding can't be present with Content-Length"],
    ['a negative Content-Length', `${post}Content-Length: -1\r\n\r\n`, '400 Bad Request', '400 Bad Request: malformed HTTP request: Invalid character in Content-Length'],
    ['two Content-Lengths', `${post}Content-Length: ${review.length}\r\nContent-Length: ${review.length + 1}\r\n\r\n${review}`,
      '400 Bad Request', '400 Bad Request: malformed HTTP request: Duplicate Content-Length'],
    ['two equal Content-Lengths', `${post}Content-Length: ${review.length}\r\nContent-Length: ${review.length}\r\n\r\n${review}`,
      '400 Bad Request', '400 Bad Request: malformed HTTP request: Duplicate Content-Length'],
    ['bare LF line ends', `POST /validate HTTP/1.1\nHost: 127.0.0.1\nContent-Length: ${review.length}\n\n${review}`,
      '400 Bad Request', '400 Bad Request: malformed HTTP request: Expected CRLF after version'],
    ['a bare LF after a header', `${post}X-A: b\nContent-Length: ${review.length}\r\n\r\n${review}`,
      '400 Bad Request', '400 Bad Request: malformed HTTP request: Missing expected CR after header value'],
    ['headers over the limit', `${post}X-Padding: ${'a'.repeat(maxHeaderSize)}\r\n\r\n`,
      '431 Request Header Fields Too Large', `431 Request Header Fields Too Large: the request headers exceed ${maxHeaderSize} bytes`],
    ['a broken chunk size while the body is read', `${post}Transfer-Encoding: chunked\r\n\r\n10\r\n${review.slice(0, 16)}\r\nzz\r\n`,
      '400 Bad Request', '400 Bad Request: malformed HTTP request: Invalid character in chunk size'],
  ];

  test('each over its own TLS connection, while a well-formed request is still served', async () => {
    await withServer({}, async (server, handled) => {
      for (const [name, request, status, body] of cases) {
        const reply = await raw(server, request);
        assertAnswer(reply, status, body);
        assert.equal(handled(), 0, `${name}: the handler never ran`);
      }
      assert.equal((await call(server.url, { ca: caPEM, body: review })).status, 200);
      assert.equal(handled(), 1);
    });
  });
});

describe('slow clients are cut off at the configured timeouts, with an answer where HTTP allows', () => {
  test('headers trickled past --request-header-timeout: 408 naming that timeout', async () => {
    await withServer({ headersTimeoutMs: 300, requestTimeoutMs: 2_000 }, async (server) => {
      const text = `POST /validate HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(10_000)}`;
      let i = 0;
      const reply = await raw(server, (write) => setInterval(() => write(text[i++ % text.length]!), 20));
      assertAnswer(reply, '408 Request Timeout', '408 Request Timeout: the request headers did not arrive within 300ms (--request-header-timeout)');
      // cut at the header timeout (plus Node's check interval), well before the request timeout
      assert.ok(reply.closedAfter >= 300 && reply.closedAfter < 1_500, `closed after ${reply.closedAfter}ms`);
    });
  });

  test('a connection that sends nothing is cut at the header timeout', async () => {
    await withServer({ headersTimeoutMs: 300, requestTimeoutMs: 2_000 }, async (server) => {
      const reply = await raw(server, () => undefined);
      assertAnswer(reply, '408 Request Timeout', '408 Request Timeout: the request headers did not arrive within 300ms (--request-header-timeout)');
      assert.ok(reply.closedAfter >= 300 && reply.closedAfter < 1_500, `closed after ${reply.closedAfter}ms`);
    });
  });

  test('a body trickled past --request-body-timeout: 408 naming that timeout, through the request\'s own response', async () => {
    await withServer({ headersTimeoutMs: 200, requestTimeoutMs: 800 }, async (server, handled) => {
      let i = 0;
      const reply = await raw(server, (write) => {
        write(`POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${review.length}\r\n\r\n`);
        return setInterval(() => {
          if (i < review.length - 1) write(review[i++]!);
        }, 20);
      });
      assertAnswer(reply, '408 Request Timeout', '408 Request Timeout: the request did not arrive in full within 800ms of its first byte (--request-body-timeout)');
      // the headers arrived at once, so the header timeout (200ms) did not cut it; the request timeout did
      assert.ok(reply.closedAfter >= 800 && reply.closedAfter < 2_500, `closed after ${reply.closedAfter}ms`);
      assert.equal(handled(), 0);
    });
  });

  test('the header timeout may not exceed the body timeout', async () => {
    await assert.rejects(startAdmissionServer({
      bindAddress: '127.0.0.1', port: 0, tls: { certFile, keyFile }, logger: memoryLogger().logger, registry: newRegistry(), routes: {},
      limits: { headersTimeoutMs: 2_000, requestTimeoutMs: 1_000 },
    }), /the request header timeout \(2000ms\) must not exceed the request body timeout \(1000ms\)/);
  });
});
