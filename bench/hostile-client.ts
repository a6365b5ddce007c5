// Sends one hostile case (hostile-inputs.ts) to the daemon and reads what it answers: ordinary requests on keep-alive
// connections (node:https), everything that misbehaves below HTTP on a fresh TLS connection of its own, written byte
// by byte as the case says.
import { request } from 'node:https';
import type { Agent } from 'node:https';
import { connect } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { HostileCase } from './hostile-inputs.js';

export interface Outcome {
  /** undefined: no answer (the client hung up, or the connection ended first) */
  readonly status: number | undefined;
  readonly contentType: string;
  /** the answer's body, at most 64 KiB of it */
  readonly body: string;
  /** a transport error, when there was no answer */
  readonly error?: string;
}

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  readonly ca: string;
}

/** Longest a case may take: every answer is due within the daemon's request timeout and the ?timeout=10s. */
const caseTimeoutMs = 30_000;
const keepBody = 64 * 1024;

export function send(c: HostileCase, to: Endpoint, agent: Agent): Promise<Outcome> {
  return c.delivery.mode === 'request' ? viaAgent(c, c.delivery, to, agent) : raw(c, to);
}

function viaAgent(c: HostileCase, d: Extract<HostileCase['delivery'], { mode: 'request' }>, to: Endpoint, agent: Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: Outcome): void => {
      if (!done) {
        done = true;
        resolve(o);
      }
    };
    const req = request({ host: to.host, port: to.port, ca: to.ca, agent, method: 'POST', path: `${c.path}?timeout=10s`, headers: d.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => { if (body.length < keepBody) body += s; });
      res.on('end', () => finish({ status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body }));
      res.on('error', (err) => finish({ status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body, error: err.message }));
    });
    req.setTimeout(caseTimeoutMs, () => req.destroy(new Error(`no answer in ${caseTimeoutMs / 1000} s`)));
    req.on('error', (err) => finish({ status: undefined, contentType: '', body: '', error: err.message }));
    req.end(d.body);
  });
}

/** Reads one HTTP/1.1 response off a raw socket: status, Content-Type and the body (by Content-Length, or to the end). */
class ResponseReader {
  #bytes = Buffer.alloc(0);
  #status: number | undefined;
  #contentType = '';
  #bodyStart = -1;
  #length = -1;

  /** Takes bytes; true once the whole response is in. */
  push(chunk: Buffer): boolean {
    if (this.#bytes.length < keepBody * 2) this.#bytes = Buffer.concat([this.#bytes, chunk]);
    if (this.#bodyStart < 0) {
      const end = this.#bytes.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const [statusLine, ...headers] = this.#bytes.subarray(0, end).toString('latin1').split('\r\n');
      this.#status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
      for (const h of headers) {
        const [name, ...value] = h.split(':');
        const v = value.join(':').trim();
        if (name!.toLowerCase() === 'content-type') this.#contentType = v;
        if (name!.toLowerCase() === 'content-length') this.#length = Number(v);
      }
      this.#bodyStart = end + 4;
    }
    return this.#length >= 0 && this.#bytes.length - this.#bodyStart >= this.#length;
  }

  get answered(): boolean {
    return this.#status !== undefined;
  }

  outcome(error?: string): Outcome {
    const body = this.#bodyStart < 0 ? '' : this.#bytes.subarray(this.#bodyStart).toString('utf8');
    return this.#status === undefined || Number.isNaN(this.#status)
      ? { status: undefined, contentType: '', body: '', ...(error === undefined ? {} : { error }) }
      : { status: this.#status, contentType: this.#contentType, body };
  }
}

function raw(c: HostileCase, to: Endpoint): Promise<Outcome> {
  const d = c.delivery;
  return new Promise((resolve) => {
    const reader = new ResponseReader();
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const socket: TLSSocket = connect({ host: to.host, port: to.port, ca: to.ca });
    const finish = (error?: string): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(reader.outcome(error));
    };
    const guard = setTimeout(() => finish(`no answer in ${caseTimeoutMs / 1000} s`), caseTimeoutMs);
    socket.on('close', () => clearTimeout(guard));
    socket.on('data', (chunk: Buffer) => { if (reader.push(chunk)) finish(); });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    // a reset after the answer came is the daemon closing a connection it would not read further
    socket.on('error', (err) => finish(reader.answered ? undefined : err.message));
    socket.once('secureConnect', () => {
      switch (d.mode) {
        case 'raw':
        case 'stall':
          socket.write(d.bytes);
          return;
        case 'head-only':
          socket.write(d.head);
          return;
        case 'hang-up':
          socket.write(d.bytes, () => finish());
          return;
        case 'chunked': {
          socket.write(d.head);
          const chunk = 64 * 1024;
          let at = 0;
          const pump = (): void => {
            while (!done && at < d.body.length) {
              const part = d.body.subarray(at, at + chunk);
              at += part.length;
              if (!socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]))) {
                socket.once('drain', pump);
                return;
              }
            }
            if (!done) socket.write('0\r\n\r\n');
          };
          pump();
          return;
        }
        case 'trickle': {
          let at = 0;
          const drip = (): void => {
            if (done || at >= d.bytes.length) return;
            socket.write(d.bytes.subarray(at, at + d.chunk));
            at += d.chunk;
            timer = setTimeout(drip, d.everyMs);
          };
          drip();
          return;
        }
        default:
          finish('unknown delivery');
      }
    });
  });
}
