// What a refused body may cost: a body nested millions of levels deep (7 MiB of '[' is 3.5 million levels) is refused
// with its 400 in a heap far smaller than the value JSON.parse would build of it (~190 MB), because the nesting is
// found before the parse. Decoded in a worker thread with a 64 MiB heap limit: building the value would end the
// worker with ERR_WORKER_OUT_OF_MEMORY.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

const decodeModule = new URL('../../lib/review/decode.js', import.meta.url).href;

/** Runs parseAdmissionReview on `body` (made in the worker from `source`) in a worker limited to `heapMb`. */
function decodeInSmallHeap(source: string, heapMb: number): Promise<{ status?: number; message?: string; error?: string }> {
  const code = `
    const { parentPort } = require('node:worker_threads');
    import(${JSON.stringify(decodeModule)}).then(({ parseAdmissionReview }) => {
      const body = (${source})();
      try {
        parseAdmissionReview(body);
        parentPort.postMessage({ status: 200 });
      } catch (err) {
        parentPort.postMessage({ status: err.status, message: err.message });
      }
    });`;
  return new Promise((resolve) => {
    const worker = new Worker(code, { eval: true, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    worker.once('message', (m: { status?: number; message?: string }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

// The review around the object: {"kind":"AdmissionReview",...,"request":{...,"object":<deep>}}
const review = (open: string, close: string, depth: number): string => `() => {
  const head = Buffer.from('{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u","operation":"CREATE","kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},"object":');
  return Buffer.concat([head, Buffer.alloc(${depth} * ${open.length}, ${JSON.stringify(open)}), Buffer.from('1'), Buffer.alloc(${depth} * ${close.length}, ${JSON.stringify(close)}), Buffer.from('}}')]);
}`;

test('7 MiB of nested arrays: refused for its depth in a 64 MiB heap, at the bracket that opens level 10,003', async () => {
  const answer = await decodeInSmallHeap(review('[', ']', 3_500_000), 64);
  assert.equal(answer.error, undefined, 'the worker ran out of memory');
  assert.equal(answer.status, 400);
  assert.match(answer.message ?? '', /^request body nests deeper than kube-apiserver decodes: invalid character '\[' exceeded max depth at position \d+ \(line 1, column \d+\): an object may nest 10000 levels \(10002 in the AdmissionReview around it\)$/);
});

test('7 MiB of nested arrays with a syntax fault at the end: the syntax fault, as a parse would find it, in a 64 MiB heap', async () => {
  const answer = await decodeInSmallHeap(review('[', ']', 3_500_000).replace("Buffer.from('}}')", "Buffer.from('}x')"), 64);
  assert.equal(answer.error, undefined, 'the worker ran out of memory');
  assert.equal(answer.status, 400);
  assert.match(answer.message ?? '', /^request body is not valid JSON: invalid character 'x' after object key:value pair at position \d+ \(line 1, column \d+\)$/);
});
