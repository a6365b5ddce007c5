// Reading an admission request's body: gunzipped when it came compressed, refused past the size limit.
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { ReviewError } from '../review/answer.js';

const clientGone = (): ReviewError => new ReviewError(400, 'BadRequest', 'client closed the connection before sending the whole body');

export const tooLarge = (limit: number): ReviewError => new ReviewError(413, 'RequestEntityTooLarge', `request body exceeds the limit of ${limit} bytes`);

/**
 * A body declared larger than this is read into one buffer of its declared size as it arrives, instead of collected in
 * chunks and joined: each chunk can be freed as soon as it is copied, and the body is never held twice (7 MiB bodies
 * in flight on many connections at once are what the daemon's memory peaks on). Smaller bodies, nearly always one
 * chunk, are passed on as they came.
 */
export const preallocateAbove = 64 * 1024;

/** What readBody() calls once: the body, or why there is none. */
export type BodyRead = (err: Error | undefined, body?: Buffer) => void;

/**
 * Reads the body (gunzipping it when `gzip`), failing with 413 past `limit` bytes and 400 for broken gzip.
 * `declared`: the Content-Length, at most `limit` (already checked). A callback, not a promise: it is on every
 * request's path, and the listener answers from it directly (server.ts).
 */
export function readBody(req: IncomingMessage, gzip: boolean, limit: number, declared: number | undefined, done: BodyRead): void {
  const chunks: Buffer[] = [];
  // its own ArrayBuffer (not a slice of Node's pool), so that it can be handed to a worker whole
  const whole = !gzip && declared !== undefined && declared > preallocateAbove && declared <= limit ? Buffer.allocUnsafeSlow(declared) : undefined;
  let size = 0;
  let finished = false;
  const finish = (err: Error | undefined, body?: Buffer): void => {
    if (finished) return;
    finished = true;
    if (err) {
      req.unpipe();
      req.pause();
      done(err);
    } else done(undefined, body!);
  };
  const source = gzip ? req.pipe(createGunzip()) : req;
  // A client that hangs up mid-body is a rejected request (logged at -v=2), not a failure of the daemon's: under
  // hostile input an error line per hang-up would flood the journal.
  const hungUp = (err: Error): Error => (req.complete || (err as NodeJS.ErrnoException).code !== 'ECONNRESET' ? err : clientGone());
  if (gzip) {
    source.on('error', (err: Error) => finish(new ReviewError(400, 'BadRequest', `request body is not valid gzip: ${err.message}`)));
    req.on('error', (err) => finish(hungUp(err)));
  } else source.on('error', (err: Error) => finish(hungUp(err)));
  source.on('data', (chunk: Buffer) => {
    if (whole !== undefined) {
      // HTTP framing ends the body at its Content-Length, so this is a guard, not a case
      if (size + chunk.length > whole.length) return finish(new ReviewError(400, 'BadRequest', 'request body is longer than its Content-Length'));
      chunk.copy(whole, size);
      size += chunk.length;
      return;
    }
    size += chunk.length;
    if (size > limit) {
      if (gzip) (source as ReturnType<typeof createGunzip>).destroy();
      finish(tooLarge(limit));
      return;
    }
    chunks.push(chunk);
  });
  source.on('end', () => {
    if (whole !== undefined) finish(undefined, size === whole.length ? whole : whole.subarray(0, size));
    else finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  req.on('close', () => {
    if (!req.complete) finish(clientGone());
  });
}

