// The main thread's side of a hand-off to the pool (docs/adr/0003, "Main thread at the floor"): the review task's
// fixed header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeReviewTask, encodeReviewTask } from '../../../lib/admission/pool/review-codec.js';

test('a review task is a fixed header and the body bytes, in a buffer of its own, read back as written', () => {
  const body = Buffer.from('{"kind":"AdmissionReview","request":{"uid":"ü"}}');
  // the body as the listener has it: a view into a larger buffer
  const slab = Buffer.concat([Buffer.from('HTTP/1.1 headers…'), body]);
  const view = slab.subarray(slab.length - body.length);
  for (const endpoint of ['/validate', '/mutate']) {
    const task = { endpoint, body: view, deadline: 1_764_263_000_123.5, snapshotHash: 'sha256:0123abcd' };
    const buf = encodeReviewTask(task);
    assert.equal(buf.byteOffset, 0);
    assert.equal(buf.byteLength, buf.buffer.byteLength, 'spans exactly its own ArrayBuffer: transferring it moves nothing else');
    const back = decodeReviewTask(new Uint8Array(buf.buffer));
    assert.deepEqual({ ...back, body: Buffer.from(back.body) }, { ...task, body });
  }
  assert.deepEqual(decodeReviewTask(encodeReviewTask({ endpoint: '/validate', body: Buffer.alloc(0), deadline: 0, snapshotHash: '' })).body.length, 0);
  assert.throws(() => encodeReviewTask({ endpoint: '/other', body, deadline: 0, snapshotHash: '' }), /no review task for endpoint "\/other"/);
  const truncated = encodeReviewTask({ endpoint: '/validate', body, deadline: 0, snapshotHash: 'h' }).subarray(0, 20);
  assert.throws(() => decodeReviewTask(truncated), /does not match its length/);
});
