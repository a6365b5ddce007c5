// The main thread's side of a hand-off to the pool (docs/adr/0003, "Main thread at the floor"): the review task's
// fixed header, and batches that wait for an answer instead of following one another to a busy worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Piscina } from 'piscina';
import { Lane } from '../../../lib/admission/pool/batches.js';
import { PolicyPool } from '../../../lib/admission/pool/pool.js';
import { decodeReviewAnswers, decodeReviewTasks, encodeReviewAnswers, encodeReviewTasks } from '../../../lib/admission/pool/review-codec.js';
import type { WorkerAnswer } from '../../../lib/admission/pool/review-codec.js';
import { loadSnapshotSync } from '../../../lib/reload/pipeline.js';
import { packageRoot } from './helpers.js';

test('a batch of review tasks is fixed headers and the body bytes, in one buffer of its own, read back as written', () => {
  const body = Buffer.from('{"kind":"AdmissionReview","request":{"uid":"ü"}}');
  // the body as the listener has it: a view into a larger buffer
  const slab = Buffer.concat([Buffer.from('HTTP/1.1 headers…'), body]);
  const view = slab.subarray(slab.length - body.length);
  const tasks = ['/validate', '/mutate'].map((endpoint, i) => ({ endpoint, body: view, deadline: 1_764_263_000_123.5 + i, snapshotHash: 'sha256:0123abcd' }));
  for (const batch of [tasks.slice(0, 1), tasks.slice(1), tasks]) {
    const buf = encodeReviewTasks(batch);
    assert.equal(buf.byteOffset, 0);
    assert.equal(buf.byteLength, buf.buffer.byteLength, 'spans exactly its own ArrayBuffer: transferring it moves nothing else');
    const back = decodeReviewTasks(new Uint8Array(buf.buffer));
    assert.deepEqual(back.map((t) => ({ ...t, body: Buffer.from(t.body) })), batch.map((t) => ({ ...t, body })));
  }
  assert.deepEqual(decodeReviewTasks(encodeReviewTasks([{ endpoint: '/validate', body: Buffer.alloc(0), deadline: 0, snapshotHash: '' }]))[0]!.body.length, 0);
  // the decoder reuses the previous task's hash string while the bytes are the same: a reload's hash (of the same
  // length, or not), and back, each read as written
  const hashes = ['sha256:0123abcd', 'sha256:0123abce', 'sha256:0123abce', 'sha256:ü', '', 'sha256:0123abcd'];
  const mixed = hashes.map((snapshotHash) => ({ endpoint: '/validate', body, deadline: 0, snapshotHash }));
  assert.deepEqual(decodeReviewTasks(encodeReviewTasks(mixed)).map((t) => t.snapshotHash), hashes);
  assert.throws(() => encodeReviewTasks([{ endpoint: '/other', body, deadline: 0, snapshotHash: '' }]), /no review task for endpoint "\/other"/);
  const truncated = encodeReviewTasks([{ endpoint: '/validate', body, deadline: 0, snapshotHash: 'h' }]).subarray(0, 20);
  assert.throws(() => decodeReviewTasks(truncated), /does not match its length/);
});

test("a batch's answers travel in one buffer and come back as written, bodies as views into it", () => {
  const answers: WorkerAnswer[] = [
    { status: 200, body: Buffer.from('{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"ü","allowed":true}}'), reason: '', message: '' },
    { error: 'policy snapshot abc was not compiled — ü' },
    { status: 400, body: Buffer.from('{"kind":"Status"}'), reason: 'BadRequest', message: 'couldn\'t get version/kind; json parse error: ü' },
    { status: 200, body: new Uint8Array(0), reason: '', message: '' },
  ];
  const buf = encodeReviewAnswers(answers);
  assert.equal(buf.byteLength, buf.buffer.byteLength);
  const back = decodeReviewAnswers(new Uint8Array(buf.buffer));
  assert.deepEqual(back.map((a) => ('body' in a ? { ...a, body: Buffer.from(a.body) } : a)), answers.map((a) => ('body' in a ? { ...a, body: Buffer.from(a.body) } : a)));
  const first = back[0]!;
  assert.ok('body' in first && first.body.buffer === buf.buffer, 'a body is a view, not a copy');
  assert.deepEqual(decodeReviewAnswers(encodeReviewAnswers([])), []);
  assert.throws(() => decodeReviewAnswers(buf.subarray(0, 20)), /does not match its length/);
});

/** A stand-in for Piscina's run(): every batch posted, answered when the test says. */
function fakePiscina(threads = 1) {
  const runs: Array<{ readonly tasks: Uint8Array[]; readonly answer: () => void }> = [];
  const piscina = {
    threads: Array.from({ length: threads }, () => ({})),
    run(tasks: Uint8Array[]): Promise<Uint8Array> {
      return new Promise((resolve) => runs.push({ tasks, answer: () => resolve(Uint8Array.from(tasks.map((t) => t[0]!))) }));
    },
  };
  return { piscina: piscina as unknown as Piscina, runs };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function lane(piscina: Piscina, depth: number, held = () => 0) {
  const settled: number[] = [];
  const l = new Lane<number>(piscina, 32, {
    name: 'review', transfer: false, regular: 1, depth, heldWorkers: held, missing: -1,
    decode: (answer) => [...answer],
  });
  const submit = (id: number): void => l.submit(Uint8Array.of(id), (r) => { if (typeof r === 'number') settled.push(r); });
  return { submit, settled };
}

test('with `depth` batches in flight, the requests of later turns wait and go together when an answer comes back', async () => {
  const { piscina, runs } = fakePiscina();
  const { submit, settled } = lane(piscina, 1);
  submit(1);
  await turn();
  assert.deepEqual(runs.map((r) => [...r.tasks.map((t) => t[0])]), [[1]], 'nothing in flight: the first goes at once');
  submit(2);
  await turn();
  submit(3);
  await turn();
  assert.equal(runs.length, 1, 'a batch in flight: 2 and 3 wait (without the limit each would be its own batch)');
  runs[0]!.answer();
  await turn();
  assert.deepEqual(settled, [1]);
  assert.deepEqual(runs.map((r) => [...r.tasks.map((t) => t[0])]), [[1], [2, 3]], 'the answer lets both go in one batch');
  runs[1]!.answer();
  await turn();
  assert.deepEqual(settled, [1, 2, 3]);
});

test('a worker held by a long evaluation gives the lane room for `depth` more batches', async () => {
  const { piscina, runs } = fakePiscina();
  let held = 0;
  const { submit } = lane(piscina, 1, () => held);
  submit(1);
  await turn();
  submit(2);
  await turn();
  assert.equal(runs.length, 1);
  held = 1;
  submit(3);
  await turn();
  assert.deepEqual(runs.map((r) => [...r.tasks.map((t) => t[0])]), [[1], [2, 3]], 'the held batch does not keep the others waiting');
});

test('a review mapped to its answer on arrival: a mapping that throws rejects that request alone, not its batch-mates', async (t) => {
  const snapshot = loadSnapshotSync('ValidatingAdmissionPolicy', join(packageRoot, 'testdata/bench/policies'));
  const pod = readFileSync(join(packageRoot, 'testdata/bench/pod-review.json'));
  const pool = new PolicyPool({ threads: 1, reserveThreads: 0, snapshots: [snapshot] });
  t.after(() => pool.close());
  await pool.ready();
  const task = () => ({ endpoint: '/validate', body: pod, deadline: Date.now() + 60_000, snapshotHash: snapshot.hash });
  // one turn: one batch
  const thrown = pool.review(task(), () => {
    throw new Error('mapping failed');
  });
  const mapped = pool.review(task(), (r) => ('answer' in r ? Buffer.from(r.answer.body).toString('utf8') : r.message));
  await assert.rejects(thrown, /mapping failed/);
  assert.match(await mapped, /"allowed":true/);
  assert.equal(pool.inFlight, 0);
});
