// Reading an admission request's body: gunzipped when it came compressed, refused past the size limit.
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import { ReviewError } from '../review/answer.js';

export const tooLarge = (limit: number): ReviewError => new ReviewError(413, 'RequestEntityTooLarge', `request body exceeds the limit of ${limit} bytes`);

/** Reads the body (gunzipping it when `gzip`), rejecting with 413 past `limit` bytes and 400 for broken gzip. */
export function readBody(req: IncomingMessage, gzip: boolean, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | undefined, body?: Buffer): void => {
      if (done) return;
      done = true;
      if (err) {
        req.unpipe();
        req.pause();
        reject(err);
      } else resolve(body!);
    };
    const source = gzip ? req.pipe(createGunzip()) : req;
    if (gzip) {
      source.on('error', (err: Error) => finish(new ReviewError(400, 'BadRequest', `request body is not valid gzip: ${err.message}`)));
      req.on('error', (err) => finish(err));
    } else source.on('error', (err: Error) => finish(err));
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        if (gzip) (source as ReturnType<typeof createGunzip>).destroy();
        finish(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () => finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('close', () => {
      if (!req.complete) finish(new ReviewError(400, 'BadRequest', 'client closed the connection before sending the whole body'));
    });
  });
}

