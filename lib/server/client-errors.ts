// The answer to a connection whose request Node's HTTP parser refused (malformed framing, oversized headers) or that
// was too slow (the header and request timeouts), before or while the request reached a handler. Written as Go's
// net/http server writes it (server.go conn.serve): a short text/plain body `<code> <status>: <fault>` and the
// connection closed, so whoever sent it can read what was wrong.
import { maxHeaderSize } from 'node:http';
import { formatMs } from './limits.js';

export interface ClientErrorAnswer {
  readonly status: number;
  readonly statusText: string;
  /** the body: `400 Bad Request: Duplicate Content-Length` */
  readonly body: string;
}

export interface ClientErrorContext {
  /** the headers of the request on this connection had arrived (a request was being handled) */
  readonly headersReceived: boolean;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

function answer(status: number, statusText: string, fault: string): ClientErrorAnswer {
  return { status, statusText, body: `${status} ${statusText}: ${fault}` };
}

/** What to answer to `err` (a 'clientError'), or undefined when there is nobody to answer (TLS failures, resets). */
export function clientErrorAnswer(err: NodeJS.ErrnoException & { reason?: unknown }, ctx: ClientErrorContext): ClientErrorAnswer | undefined {
  const code = err.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return ctx.headersReceived
      ? answer(408, 'Request Timeout', `the request did not arrive in full within ${formatMs(ctx.requestTimeoutMs)} of its first byte (--request-body-timeout)`)
      : answer(408, 'Request Timeout', `the request headers did not arrive within ${formatMs(ctx.headersTimeoutMs)} (--request-header-timeout)`);
  }
  if (code === 'HPE_HEADER_OVERFLOW') return answer(431, 'Request Header Fields Too Large', `the request headers exceed ${maxHeaderSize} bytes`);
  if (code.startsWith('HPE_')) {
    // llhttp's reason names the fault: "Duplicate Content-Length", "Transfer-Encoding can't be present with
    // Content-Length", "Missing expected CR after header value"
    const reason = typeof err.reason === 'string' && err.reason !== '' ? err.reason : err.message.replace(/^Parse Error: /, '');
    return answer(400, 'Bad Request', `malformed HTTP request: ${reason}`);
  }
  return undefined;
}

/** The whole HTTP response for a connection with no response object to write through. */
export function rawResponse(a: ClientErrorAnswer): string {
  return `HTTP/1.1 ${a.status} ${a.statusText}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(a.body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${a.body}`;
}
