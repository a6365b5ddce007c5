// One shard of a replay: the writes of the objects routed to it (filter.ts shardOf), in log order. It parses each
// event, rebuilds its requests while tracking the objects it has seen (one ObjectTracker per shard: every write of an
// object comes here), and decides them, on the sides the registration sends them to (scope.ts), through the candidate
// set and, when given, the baseline. A shard runs on a
// worker thread (workers/replay-worker.ts), or on the reading thread with --workers 0.
import type { AdmissionResponse, UserInfo } from '../api/admission.js';
import { decide } from './decide.js';
import type { Outcome, ReplayChain, SentSides, SetDecision } from './decide.js';
import type { LoggedDenial } from './logged.js';
import type { SkipReason } from './filter.js';
import { ObjectTracker } from './objects.js';
import type { StoredObject } from './objects.js';
import { buildReplayCase } from './request.js';
import type { AuditEvent, AuditObjectRef, ReplayCase } from './request.js';
import type { NotSentReason, RegistrationScope } from './scope.js';

/** An event handed to a shard: its text (or the event, from an EventList) and its place in the input. */
export interface ShardRecord {
  readonly seq: number;
  readonly text?: string;
  readonly event?: Record<string, unknown>;
}

/** What a shard answers for one event. Plain data: it crosses the thread boundary. */
export type EventResult =
  | { readonly seq: number; readonly skip: SkipReason; readonly notSent?: NotSentReason }
  | ReplayedEvent;

export interface ReplayedEvent {
  readonly seq: number;
  readonly auditID: string;
  readonly verb: string;
  readonly objectRef: AuditObjectRef;
  readonly user: UserInfo;
  readonly operation: string;
  readonly outcome: Outcome;
  readonly reason?: string;
  readonly deniedBy?: 'mutate' | 'validate';
  readonly response?: AdmissionResponse;
  /** the apiserver's admission denied it so (its message without a webhook's prefix) */
  readonly logged?: LoggedDenial;
  readonly baseline?: {
    readonly outcome: Outcome;
    readonly reason?: string;
    readonly deniedBy?: 'mutate' | 'validate';
    readonly response?: AdmissionResponse;
  };
}

export interface ShardOptions {
  readonly candidate: ReplayChain;
  readonly baseline?: ReplayChain;
  readonly maxObjects: number;
  /** stored objects known before the log (--namespaces) */
  readonly seed?: ReadonlyArray<readonly [string, StoredObject]>;
  /** what the apiserver sends the daemon; every write on both sides when undefined */
  readonly scope?: RegistrationScope;
}

function decisionFields(d: SetDecision): Pick<ReplayedEvent, 'outcome' | 'reason' | 'deniedBy' | 'response'> {
  return {
    outcome: d.outcome,
    ...(d.reason === undefined ? {} : { reason: d.reason }),
    ...(d.deniedBy === undefined ? {} : { deniedBy: d.deniedBy }),
    ...(d.response === undefined ? {} : { response: d.response }),
  };
}

export class ReplayShard {
  readonly #tracker: ObjectTracker;

  constructor(private readonly options: ShardOptions) {
    this.#tracker = new ObjectTracker(options.maxObjects);
    for (const [key, object] of options.seed ?? []) this.#tracker.set(key, object);
  }

  /** Objects tracked now (the memory bound's measure). */
  get trackedObjects(): number {
    return this.#tracker.size;
  }

  async #decide(seq: number, replay: ReplayCase): Promise<EventResult> {
    let sides: SentSides | undefined;
    const scope = this.options.scope;
    if (scope !== undefined) {
      // awaited only when a matchCondition waits for a SubjectAccessReview: this runs for every write of the log
      const m = scope.sends('mutating', replay.mutate);
      const mutate = m instanceof Promise ? await m : m;
      const v = scope.sends('validating', replay.validate);
      const validate = v instanceof Promise ? await v : v;
      if (!mutate.sent && !validate.sent) return { seq, skip: 'not-sent', notSent: validate.why === 'no-webhook' ? mutate.why : validate.why };
      sides = { mutate: mutate.sent, validate: validate.sent };
    }
    const candidate = await decide(replay, this.options.candidate, sides);
    const baseline = this.options.baseline === undefined ? undefined : await decide(replay, this.options.baseline, sides);
    return {
      seq,
      auditID: replay.auditID,
      verb: replay.verb,
      objectRef: replay.objectRef,
      user: replay.validate.userInfo ?? { username: replay.user },
      operation: replay.validate.operation ?? '',
      ...decisionFields(candidate),
      ...(replay.logged === undefined ? {} : { logged: replay.logged }),
      ...(baseline === undefined ? {} : { baseline: decisionFields(baseline) }),
    };
  }

  /** Builds the batch's requests in order (the tracker follows the log), then decides them together. */
  async process(batch: readonly ShardRecord[]): Promise<EventResult[]> {
    const pending: Array<EventResult | Promise<EventResult>> = [];
    for (const record of batch) {
      let event: AuditEvent;
      try {
        event = (record.event ?? JSON.parse(record.text!)) as AuditEvent;
      } catch {
        pending.push({ seq: record.seq, skip: 'malformed' });
        continue;
      }
      if (typeof event !== 'object' || event === null || Array.isArray(event)) {
        pending.push({ seq: record.seq, skip: 'malformed' });
        continue;
      }
      const built = buildReplayCase(event, this.#tracker);
      if ('skip' in built) pending.push({ seq: record.seq, skip: built.skip });
      else pending.push(this.#decide(record.seq, built.replay));
    }
    return Promise.all(pending);
  }
}
