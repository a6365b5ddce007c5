// The Piscina task file of the policy pool (lib/admission/pool): evaluates the ValidatingAdmissionPolicies the main
// thread matched for one request, with the programs of the snapshot it matched against.
//
// Per worker: every snapshot's manifests are compiled once, keyed by content hash (at most a couple kept); a task
// never compiles anything, and a reloaded snapshot is compiled in slices between tasks. Snapshots arrive in workerData (the one current at pool start) and on the pool's
// BroadcastChannel (every reload; a worker started later says hello and gets the current one). A task naming a
// snapshot not compiled here yet waits for it, bounded by the task's deadline.
//
// Per request: decode its one PolicyTask buffer, parse the AdmissionReview bytes the apiserver sent (once), convert
// object/oldObject to CEL values once, evaluate each matched policy once. A Piscina task carries the requests the
// main thread handed over together; one PolicyBatchResults buffer answers them all. While a request is evaluated,
// its deadline is in this worker's watchdog slot: the main thread terminates a worker still busy past it.
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import type { AdmissionRequest } from '../lib/api/admission.js';
import { decodeTask, encodeBatchResults } from '../lib/admission/pool/codec.js';
import type { TaskOutcome } from '../lib/admission/pool/codec.js';
import { testHookExit, testHookHang, watchdogLayout } from '../lib/admission/pool/protocol.js';
import type { ChannelMessage, PolicyWorkerData, SnapshotData } from '../lib/admission/pool/protocol.js';
import { sameKind } from '../lib/admission/conversion/index.js';
import { RequestAuthorizer } from '../lib/admission/authorization.js';
import { EvaluationRequest, evaluatePlannedPolicy, evaluatePlannedPolicyAuthorized } from '../lib/admission/validating/dispatcher.js';
import { SubjectAccessReviewClient } from '../lib/webhook/subject-access-review.js';
import type { PolicyEvaluation } from '../lib/admission/validating/dispatcher.js';
import { compiledPolicy } from '../lib/admission/validating/validator.js';
import type { CompiledPolicy } from '../lib/admission/validating/validator.js';
import { compileManifests, compileManifestsSliced } from '../lib/manifest/compile.js';
import type { CompiledManifests } from '../lib/manifest/compile.js';

const data = workerData as PolicyWorkerData;

interface CompiledSnapshot {
  readonly policies: readonly CompiledPolicy[];
}

/** hash → compiled snapshot, oldest first */
const snapshots = new Map<string, CompiledSnapshot | { readonly error: string }>();
const waiters = new Map<string, Set<() => void>>();

const channel = new BroadcastChannel(data.channel);

function post(message: ChannelMessage): void {
  channel.postMessage(message);
}

/** snapshots being compiled here now */
const compiling = new Set<string>();

function entryOf(compile: () => CompiledManifests): CompiledSnapshot | { error: string } {
  try {
    const compiled = compile();
    return { policies: compiled.family === 'policy' ? compiled.hooks.map((h) => compiledPolicy(h)) : [] };
  } catch (err) {
    // The main thread compiled the same manifests successfully, so this is not expected; tasks naming the
    // snapshot fail (and are answered by the failure policy) instead of waiting.
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function installed(hash: string, entry: CompiledSnapshot | { error: string }): void {
  compiling.delete(hash);
  snapshots.set(hash, entry);
  while (snapshots.size > Math.max(1, data.maxSnapshots)) snapshots.delete(snapshots.keys().next().value!);
  const waiting = waiters.get(hash);
  waiters.delete(hash);
  for (const wake of waiting ?? []) wake();
  post({ type: 'compiled', hash, threadId, ...('error' in entry ? { error: entry.error } : {}) });
}

/** The snapshot current when the worker starts: compiled at once, before the worker takes any task. */
function installNow(snapshot: SnapshotData): void {
  installed(snapshot.hash, entryOf(() => compileManifests(snapshot.plugin, snapshot.manifests)));
}

/**
 * A reloaded snapshot: compiled in slices, so that requests matched against the previous one keep being evaluated
 * here meanwhile (the main thread evaluates those matched against this one itself until every worker has it).
 */
async function install(snapshot: SnapshotData): Promise<void> {
  if (snapshots.has(snapshot.hash) || compiling.has(snapshot.hash)) return;
  compiling.add(snapshot.hash);
  let compiled: CompiledManifests | undefined;
  let failure: unknown;
  try {
    compiled = await compileManifestsSliced(snapshot.plugin, snapshot.manifests);
  } catch (err) {
    failure = err;
  }
  installed(snapshot.hash, entryOf(() => {
    if (compiled === undefined) throw failure;
    return compiled;
  }));
}

channel.onmessage = (event: unknown) => {
  const message = (event as { data: ChannelMessage }).data;
  if (message.type !== 'snapshot') return;
  if (message.to !== undefined && message.to !== threadId) return;
  void install(message);
};
// The channel must not keep a worker alive on its own; Piscina owns the worker's lifetime.
(channel as unknown as { unref?: () => void }).unref?.();

// The snapshot current at start is compiled at once: a worker answers nothing before it.
if (data.snapshot) installNow(data.snapshot);
post({ type: 'hello', threadId, hashes: [...snapshots.keys()] });

async function snapshotFor(hash: string, deadline: number): Promise<CompiledSnapshot> {
  let entry = snapshots.get(hash);
  if (entry === undefined) {
    post({ type: 'need', hash, threadId });
    const waitMs = Math.max(0, Math.min(data.snapshotWaitMs, deadline - Date.now()));
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        waiters.get(hash)?.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, waitMs);
      let set = waiters.get(hash);
      if (set === undefined) waiters.set(hash, (set = new Set()));
      set.add(wake);
    });
    entry = snapshots.get(hash);
    if (entry === undefined) throw new Error(`policy snapshot ${hash || '""'} did not reach the worker within ${waitMs}ms`);
  }
  if ('error' in entry) throw new Error(`policy snapshot ${hash} failed to compile on the worker: ${entry.error}`);
  return entry;
}

// This worker's watchdog slot (none if the table is full: the worker then runs unwatched).
const watchdog = watchdogLayout(data.watchdog);
let slot = -1;
for (let i = 0; i < watchdog.slots && slot < 0; i++) if (Atomics.compareExchange(watchdog.owners, i, 0, threadId) === 0) slot = i;

function busy(deadline: number): void {
  if (slot >= 0 && Atomics.load(watchdog.owners, slot) === threadId) watchdog.busyUntil[slot] = deadline;
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

async function evaluateTask(buffer: Uint8Array): Promise<TaskOutcome> {
  let task;
  try {
    task = decodeTask(buffer);
  } catch (err) {
    return { error: `malformed policy task: ${errorMessage(err)}` };
  }
  if (task.deadline > 0 && Date.now() >= task.deadline) {
    // Already answered by the failure policy on the main thread: do not spend time on it.
    return { error: 'the request deadline passed before the worker started the evaluation' };
  }
  let snapshot: CompiledSnapshot;
  try {
    snapshot = await snapshotFor(task.snapshotHash, task.deadline > 0 ? task.deadline : Date.now() + data.snapshotWaitMs);
  } catch (err) {
    return { error: errorMessage(err) };
  }
  busy(task.deadline);
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
        busy(task.deadline);
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
