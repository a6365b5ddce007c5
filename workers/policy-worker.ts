// The Piscina task file of the policy pool (lib/admission/pool): evaluates requests with the programs of the snapshot
// the main thread read for them (worker-snapshots.ts: compiled once per snapshot, reloads compiled in slices between
// tasks; a worker started later says hello on the pool's channel and gets the current snapshots).
//
// Two task functions, each taking the requests the main thread handed over together:
//   - review (the daemon's hot path): one buffer of review tasks, whole requests. Per request: decode the
//     AdmissionReview bytes (a malformed one gets its 400), match, evaluate, record the check metrics here, encode
//     the answer — the same code the main thread runs inline (lib/review/evaluate.ts). One buffer answers them all
//     (review-codec.ts).
//   - the default export: PolicyTask buffers, requests the main thread has matched; only their policies are
//     evaluated here. One PolicyBatchResults buffer answers them all.
// While a request is evaluated, its deadline is in this worker's watchdog slot: the main thread terminates a worker
// still busy past it. The check metrics observed here go to the main thread when it asks (a scrape), and every few
// seconds on their own.
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import type { AdmissionRequest } from '../lib/api/admission.js';
import { decodeTask, encodeBatchResults } from '../lib/admission/pool/codec.js';
import type { TaskOutcome } from '../lib/admission/pool/codec.js';
import { decodeReviewTasks, encodeReviewAnswers } from '../lib/admission/pool/review-codec.js';
import type { ReviewTask, WorkerAnswer } from '../lib/admission/pool/review-codec.js';
import { currentThreadId, processNice, setThreadNice } from '../lib/admission/pool/priority.js';
import { testHookExit, testHookHang, watchdogLayout } from '../lib/admission/pool/protocol.js';
import type { ChannelMessage, PolicyWorkerData } from '../lib/admission/pool/protocol.js';
import { WorkerSnapshots } from '../lib/admission/pool/worker-snapshots.js';
import type { WorkerSnapshot } from '../lib/admission/pool/worker-snapshots.js';
import type { PluginName } from '../lib/manifest/plugins.js';
import { sameKind } from '../lib/admission/conversion/index.js';
import { RequestAuthorizer } from '../lib/admission/authorization.js';
import { EvaluationRequest, evaluatePlannedPolicy, evaluatePlannedPolicyAuthorized } from '../lib/admission/validating/dispatcher.js';
import type { PolicyEvaluation } from '../lib/admission/validating/dispatcher.js';
import { createMutatingPolicyMetrics } from '../lib/metrics/mutating-policy.js';
import { createValidatingPolicyMetrics } from '../lib/metrics/policy.js';
import { mutateOnThisThread, validateOnThisThread } from '../lib/review/evaluate.js';
import type { ThreadContext } from '../lib/review/evaluate.js';
import { SubjectAccessReviewClient } from '../lib/webhook/subject-access-review.js';

const data = workerData as PolicyWorkerData;
const channel = new BroadcastChannel(data.channel);
const snapshots = new WorkerSnapshots(channel, data.maxSnapshots, data.snapshotWaitMs);

/** This worker's check metrics: handed to the main thread when it asks, and every few seconds. */
const validatingMetrics = createValidatingPolicyMetrics();
const mutatingMetrics = createMutatingPolicyMetrics();
const metricsFlushMs = 5_000;

function sendMetrics(id: number): void {
  const validating = validatingMetrics.family.drain();
  const mutating = mutatingMetrics.family.drain();
  if (id === 0 && validating.length === 0 && mutating.length === 0) return;
  const message: ChannelMessage = { type: 'metrics', id, threadId, validating, mutating };
  channel.postMessage(message);
}
setInterval(() => sendMetrics(0), metricsFlushMs).unref();

channel.onmessage = (event: unknown) => {
  const message = (event as { data: ChannelMessage }).data;
  if (message.type === 'collect') return sendMetrics(message.id);
  if (message.type !== 'snapshot') return;
  if (message.to !== undefined && message.to !== threadId) return;
  void snapshots.install(message);
};
// The channel must not keep a worker alive on its own; Piscina owns the worker's lifetime.
(channel as unknown as { unref?: () => void }).unref?.();

// The snapshots current at start are compiled at once: a worker answers nothing before them.
for (const snapshot of data.snapshots) snapshots.installNow(snapshot);
channel.postMessage({ type: 'hello', threadId, keys: snapshots.keys() } satisfies ChannelMessage);

// This worker's watchdog slot (none if the table is full: the worker then runs unwatched).
const watchdog = watchdogLayout(data.watchdog);
let slot = -1;
for (let i = 0; i < watchdog.slots && slot < 0; i++) if (Atomics.compareExchange(watchdog.owners, i, 0, threadId) === 0) slot = i;
// the kernel's id of this thread, for the main thread to lower its priority while it is held by a runaway (pool/priority.ts)
const tid = currentThreadId();
/** the priority this thread returns to after a long evaluation: the process's (priority.ts) */
const normalNice = processNice();
if (slot >= 0) watchdog.tid[slot] = tid;

/**
 * Evaluating a request of `bytes` due by `deadline` from now on (0: not evaluating): read by the watchdog, the load
 * balancer and the request path (pool/held.ts).
 */
function busy(deadline: number, bytes = 0): void {
  if (slot < 0 || Atomics.load(watchdog.owners, slot) !== threadId) return;
  watchdog.busyUntil[slot] = deadline;
  watchdog.busySince[slot] = deadline > 0 ? Date.now() : 0;
  watchdog.busyBytes[slot] = bytes;
  // the long evaluation the main thread lowered this thread's priority for is over
  if (watchdog.lowered[slot] === 1) {
    watchdog.lowered[slot] = 0;
    setThreadNice(tid, normalNice);
  }
}

/** This worker's SubjectAccessReview client (the main thread read the same kubeconfig successfully at start). */
let sarClient: SubjectAccessReviewClient | undefined;
function authorizationClient(): SubjectAccessReviewClient | undefined {
  if (data.authorizationKubeconfig === '') return undefined;
  sarClient ??= SubjectAccessReviewClient.fromKubeconfig(data.authorizationKubeconfig);
  return sarClient;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function utf8(bytes: Uint8Array): string {
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('utf8');
}

function testHook(uid: string | undefined): void {
  if (uid === testHookExit) process.exit(3);
  if (uid === testHookHang) for (;;);
}

/**
 * A task's buffer decoded and its snapshot at hand, or why it is not evaluated: malformed, its deadline already
 * passed (the main thread answered by the failure policy: no time is spent on it), its snapshot never arrived.
 */
async function prepare<I, T extends { readonly deadline: number; readonly snapshotHash: string }>(
  kind: string, input: I, decode: (input: I) => T, plugin: (task: T) => PluginName,
): Promise<{ readonly task: T; readonly snapshot: WorkerSnapshot } | { readonly error: string }> {
  let task: T;
  try {
    task = decode(input);
  } catch (err) {
    return { error: `malformed ${kind} task: ${errorMessage(err)}` };
  }
  if (task.deadline > 0 && Date.now() >= task.deadline) return { error: 'the request deadline passed before the worker started the evaluation' };
  try {
    return { task, snapshot: await snapshots.get(plugin(task), task.snapshotHash, task.deadline > 0 ? task.deadline : Date.now() + data.snapshotWaitMs) };
  } catch (err) {
    return { error: errorMessage(err) };
  }
}

async function evaluateTask(buffer: Uint8Array): Promise<TaskOutcome> {
  const prepared = await prepare('policy', buffer, decodeTask, () => 'ValidatingAdmissionPolicy');
  if ('error' in prepared) return prepared;
  const { task, snapshot } = prepared;
  busy(task.deadline, task.review.byteLength);
  try {
    const review = JSON.parse(utf8(task.review)) as { request?: AdmissionRequest };
    const request = review.request ?? {};
    if (data.testHooks) testHook(request.uid);
    // this review was parsed here for this task alone: its objects become CEL values in place, unless a policy is
    // invoked with another kind (matchPolicy Equivalent), whose conversion reads them as JSON
    const ownKind = request.kind;
    const ownsObjects = ownKind === undefined || task.matches.every((m) => sameKind(m.kind, ownKind));
    const prepared = new EvaluationRequest(request, { ownsObjects });
    const evaluations: PolicyEvaluation[] = [];
    let authorizer: RequestAuthorizer | undefined;
    for (const m of task.matches) {
      const policy = snapshot.policies[m.hook];
      if (policy === undefined) return { error: `policy snapshot ${task.snapshotHash} has no policy #${m.hook}` };
      if (!policy.usesAuthorizer) {
        evaluations.push(evaluatePlannedPolicy(policy, prepared, m));
        continue;
      }
      // One RequestAuthorizer per request (its checks cached across policies), SubjectAccessReviews sent from this
      // worker. While a review is awaited the worker is not busy: the watchdog is for evaluation that does not
      // yield, and this worker's other tasks run meanwhile.
      authorizer ??= new RequestAuthorizer({ client: authorizationClient(), deadline: task.deadline > 0 ? task.deadline : Date.now() + 10_000 });
      busy(0);
      try {
        evaluations.push(await evaluatePlannedPolicyAuthorized(policy, prepared, m, authorizer));
      } finally {
        busy(task.deadline, task.review.byteLength);
      }
    }
    return { evaluations };
  } catch (err) {
    return { error: errorMessage(err) };
  } finally {
    busy(0);
  }
}

/**
 * One Piscina task: the PolicyTask buffers of the requests the main thread handed over together, evaluated one
 * after the other. The answer (one PolicyBatchResults, a few hundred bytes per request) is copied back.
 */
export default async function evaluatePolicies(tasks: readonly Uint8Array[]): Promise<Uint8Array> {
  const outcomes: TaskOutcome[] = [];
  for (const task of tasks) outcomes.push(await evaluateTask(task));
  return encodeBatchResults(outcomes);
}

/**
 * What requests evaluated here use (one for the worker's life: the mutating plugin is built once per snapshot and
 * context): this worker's SubjectAccessReview client and metrics — a request's checks dropped once its deadline
 * passed (the main thread answered and counted it) — and the test hooks.
 */
const thread: ThreadContext = {
  get authorization() {
    return authorizationClient();
  },
  validatingMetrics,
  mutatingMetrics,
  onRequest: data.testHooks ? (request: AdmissionRequest) => testHook(request.uid) : undefined,
  onlyBeforeDeadline: true,
};

const decodedTask = (task: ReviewTask): ReviewTask => task;
const reviewPlugin = (task: ReviewTask): PluginName => (task.endpoint === '/mutate' ? 'MutatingAdmissionPolicy' : 'ValidatingAdmissionPolicy');

async function reviewOne(decoded: ReviewTask): Promise<WorkerAnswer> {
  const prepared = await prepare('review', decoded, decodedTask, reviewPlugin);
  if ('error' in prepared) return prepared;
  const { task, snapshot } = prepared;
  const mutate = task.endpoint === '/mutate';
  // decodeReviewTasks' bodies are Buffers already (views into the batch)
  const body = Buffer.isBuffer(task.body) ? task.body : Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  const input = { body, deadline: task.deadline, timeoutMs: 0 };
  busy(task.deadline, body.byteLength);
  try {
    const review = (mutate ? mutateOnThisThread : validateOnThisThread)(input, snapshot.hooks, thread);
    if (!(review.answer instanceof Promise)) return wire(review.answer);
    // /validate waits only for SubjectAccessReviews (not busy meanwhile: the watchdog is for evaluation that does
    // not yield); the mutating chain is a promise throughout, its evaluation watched until it answers
    if (!mutate) busy(0);
    return wire(await review.answer);
  } catch (err) {
    return { error: errorMessage(err) };
  } finally {
    busy(0);
  }
}

function wire(answer: { readonly status: number; readonly body: Uint8Array; readonly fault?: { readonly reason: string; readonly message: string } }): WorkerAnswer {
  return { status: answer.status, body: answer.body, reason: answer.fault?.reason ?? '', message: answer.fault?.message ?? '' };
}

/** The review task function: a batch of whole requests in one buffer, answered with one buffer (review-codec.ts). */
export async function review(batch: Uint8Array): Promise<Uint8Array> {
  const answers: WorkerAnswer[] = [];
  for (const task of decodeReviewTasks(batch)) answers.push(await reviewOne(task));
  return encodeReviewAnswers(answers);
}
