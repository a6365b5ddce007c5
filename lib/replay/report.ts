// The replay's reports. Results are folded as they come (never all kept): per category, groups by the policy and
// binding (or webhook) that the answer names, each with its count, its first examples and its exact messages.
//
// With a baseline the categories are the changes, which lead the text report: newly denied (the baseline allowed,
// the candidate denies — the exit-1 case), newly allowed, new warnings, changed messages (both deny, differently),
// changed patches (both allow, /mutate patches differently). Without one: denials, warnings and patches of the
// candidate. Unknown results (what the log lacks) and skipped events are reported in both.
import type { AdmissionResponse } from '../api/admission.js';
import { skipReasons } from './filter.js';
import type { SkipReason } from './filter.js';
import { notSentReasons } from './scope.js';
import type { NotSentReason } from './scope.js';
import type { EventResult, ReplayedEvent } from './shard.js';

export type Category = 'newly-denied' | 'newly-allowed' | 'new-warning' | 'changed-message' | 'changed-patch' | 'denied' | 'warning' | 'mutated' | 'unknown';

const titles: Record<Category, string> = {
  'newly-denied': 'Newly denied (the baseline allowed them)',
  'newly-allowed': 'Newly allowed (the baseline denied them)',
  'new-warning': 'New warnings',
  'changed-message': 'Denied with a changed message',
  'changed-patch': 'Mutated differently',
  denied: 'Denied',
  warning: 'Warnings',
  mutated: 'Mutated',
  unknown: 'Unknown (the log lacks what a policy reads)',
};

const diffCategories: readonly Category[] = ['newly-denied', 'newly-allowed', 'new-warning', 'changed-message', 'changed-patch', 'unknown'];
const plainCategories: readonly Category[] = ['denied', 'warning', 'mutated', 'unknown'];

export interface Example {
  readonly auditID: string;
  readonly user: string;
  readonly verb: string;
  readonly object: string;
}

export interface Group {
  readonly category: Category;
  /** the policy and binding, or webhook, the answer names; for unknown results, the reason's owner */
  readonly owner: string;
  count: number;
  readonly examples: Example[];
  /** distinct messages (at most maxMessages), with how often each came */
  readonly messages: Map<string, number>;
}

const maxExamples = 3;
const maxMessages = 5;

/** Who an answer's message names: upstream's texts (validating/mutating policy plugins, webhook dispatchers). */
export function ownerOf(message: string): string {
  const policy = /(ValidatingAdmissionPolicy|MutatingAdmissionPolicy|policy) '([^']*)' with binding '([^']*)'/.exec(message);
  if (policy !== null) {
    const kind = policy[1] === 'policy' ? 'MutatingAdmissionPolicy' : policy[1]!;
    return `${kind} '${policy[2]}' with binding '${policy[3]}'`;
  }
  const webhook = /webhook "([^"]*)"/.exec(message);
  if (webhook !== null) return `webhook "${webhook[1]}"`;
  return '(no policy named)';
}

function describeObject(r: ReplayedEvent): string {
  const ref = r.objectRef;
  const resource = `${ref.resource ?? ''}${ref.subresource ? '/' + ref.subresource : ''}${ref.apiGroup ? '.' + ref.apiGroup : ''}`;
  const name = `${ref.namespace ? ref.namespace + '/' : ''}${ref.name ?? ''}`;
  return name === '' ? resource : `${resource} ${name}`;
}

const messageOf = (r: AdmissionResponse | undefined): string => r?.status?.message ?? '';

export class ReplayReport {
  readonly #groups = new Map<string, Group>();
  readonly skipped: Partial<Record<SkipReason, number>> = {};
  /** the writes the registration does not send, by why */
  readonly notSent: Partial<Record<NotSentReason, number>> = {};
  readonly outcomes = { allowed: 0, denied: 0, unknown: 0 };
  replayed = 0;
  read = 0;

  /** `scope`: the registration whose scope was applied, as the report names it */
  constructor(readonly withBaseline: boolean, readonly scope = 'the registration') {}

  #add(category: Category, owner: string, r: ReplayedEvent, message: string): void {
    const key = `${category}\u0000${owner}`;
    let g = this.#groups.get(key);
    if (g === undefined) {
      g = { category, owner, count: 0, examples: [], messages: new Map() };
      this.#groups.set(key, g);
    }
    g.count++;
    if (g.examples.length < maxExamples) g.examples.push({ auditID: r.auditID, user: r.user.username ?? '', verb: r.verb, object: describeObject(r) });
    if (g.messages.has(message) || g.messages.size < maxMessages) g.messages.set(message, (g.messages.get(message) ?? 0) + 1);
  }

  add(result: EventResult): void {
    if ('skip' in result) {
      this.skipped[result.skip] = (this.skipped[result.skip] ?? 0) + 1;
      if (result.notSent !== undefined) this.notSent[result.notSent] = (this.notSent[result.notSent] ?? 0) + 1;
      return;
    }
    this.replayed++;
    this.outcomes[result.outcome]++;
    if (result.outcome === 'unknown') {
      this.#add('unknown', result.reason!.split(', which the log lacks')[0]!, result, result.reason!);
      return;
    }
    const base = result.baseline;
    if (base === undefined) {
      if (result.outcome === 'denied') this.#add('denied', ownerOf(messageOf(result.response)), result, messageOf(result.response));
      for (const w of result.response?.warnings ?? []) this.#add('warning', ownerOf(w), result, w);
      if (result.response?.patch !== undefined) this.#add('mutated', '(the /mutate answer)', result, '');
      return;
    }
    if (base.outcome === 'unknown') {
      this.#add('unknown', `baseline: ${base.reason!.split(', which the log lacks')[0]!}`, result, base.reason!);
      return;
    }
    const now = result.response;
    const before = base.response;
    if (result.outcome === 'denied' && base.outcome === 'allowed') this.#add('newly-denied', ownerOf(messageOf(now)), result, messageOf(now));
    else if (result.outcome === 'allowed' && base.outcome === 'denied') this.#add('newly-allowed', ownerOf(messageOf(before)), result, messageOf(before));
    else if (result.outcome === 'denied' && (messageOf(now) !== messageOf(before) || now?.status?.code !== before?.status?.code)) {
      this.#add('changed-message', ownerOf(messageOf(now)), result, `${messageOf(before)}\n      now: ${messageOf(now)}`);
    } else if (result.outcome === 'allowed' && now?.patch !== before?.patch) {
      this.#add('changed-patch', '(the /mutate answer)', result, '');
    }
    const old = new Set(before?.warnings ?? []);
    for (const w of now?.warnings ?? []) if (!old.has(w)) this.#add('new-warning', ownerOf(w), result, w);
  }

  count(category: Category): number {
    let n = 0;
    for (const g of this.#groups.values()) if (g.category === category) n += g.count;
    return n;
  }

  groups(category: Category): Group[] {
    return [...this.#groups.values()].filter((g) => g.category === category).sort((a, b) => b.count - a.count || (a.owner < b.owner ? -1 : 1));
  }

  get categories(): readonly Category[] {
    return this.withBaseline ? diffCategories : plainCategories;
  }

  get skippedTotal(): number {
    return skipReasons.reduce((n, r) => n + (this.skipped[r] ?? 0), 0);
  }
}

const fmt = (n: number): string => n.toLocaleString('en-US');

function skippedLine(report: ReplayReport): string {
  const parts = skipReasons.filter((r) => (report.skipped[r] ?? 0) > 0).map((r) => `${fmt(report.skipped[r]!)} ${r}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

const notSentWords: Readonly<Record<NotSentReason, string>> = {
  rules: 'matched by none of its rules',
  selector: 'left out by its namespaceSelector or objectSelector',
  'match-conditions': 'left out by its matchConditions',
  'admission-configuration': 'admission configuration objects, which the apiserver sends no API-registered webhook',
  'no-webhook': 'on a side it has no webhook for',
};

/** Why writes were not sent: how many, and why, per reason. */
function notSentLine(report: ReplayReport): string | undefined {
  const n = report.skipped['not-sent'] ?? 0;
  if (n === 0) return undefined;
  const parts = notSentReasons.filter((r) => (report.notSent[r] ?? 0) > 0).map((r) => `${fmt(report.notSent[r]!)} ${notSentWords[r]}`);
  return `Not decided, as kube-apiserver does not send them to the daemon under ${report.scope}: ${fmt(n)} (${parts.join('; ')}).`;
}

/** Why a run replayed nothing, for stderr. */
export function nothingReplayed(report: ReplayReport): string {
  const reasons = skipReasons.filter((r) => (report.skipped[r] ?? 0) > 0).map((r) => `${fmt(report.skipped[r]!)} ${r}`);
  return `${fmt(report.read)} events read, none replayed (skipped: ${reasons.join(', ')})`;
}

export function textReport(report: ReplayReport): string {
  const lines: string[] = [];
  lines.push(`Replayed ${fmt(report.replayed)} writes of ${fmt(report.read)} events; skipped ${fmt(report.skippedTotal)}${skippedLine(report)}.`);
  const notSent = notSentLine(report);
  if (notSent !== undefined) lines.push(notSent);
  if (report.withBaseline) {
    lines.push(`Candidate against baseline: ${fmt(report.count('newly-denied'))} newly denied, ${fmt(report.count('newly-allowed'))} newly allowed, ${fmt(report.count('new-warning'))} new warnings, ${fmt(report.count('changed-message'))} changed messages, ${fmt(report.count('changed-patch'))} mutated differently; ${fmt(report.count('unknown'))} unknown.`);
  } else {
    lines.push(`Candidate: ${fmt(report.outcomes.allowed)} allowed, ${fmt(report.outcomes.denied)} denied, ${fmt(report.outcomes.unknown)} unknown.`);
  }
  for (const category of report.categories) {
    const groups = report.groups(category);
    if (groups.length === 0) continue;
    lines.push('', `${titles[category]}: ${fmt(groups.reduce((n, g) => n + g.count, 0))}`);
    for (const g of groups) {
      lines.push(`  ${g.owner}: ${fmt(g.count)}`);
      for (const [message, n] of g.messages) if (message !== '') lines.push(`    ${category === 'unknown' ? 'reason' : 'message'}${g.messages.size > 1 ? ` (${fmt(n)})` : ''}: ${message}`);
      for (const e of g.examples) lines.push(`    e.g. auditID ${e.auditID}: ${e.user} ${e.verb} ${e.object}`);
    }
  }
  return lines.join('\n') + '\n';
}

const xml = (s: string): string => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

/** JUnit XML: a test case per group; the candidate's new denials are the failures. */
export function junitReport(report: ReplayReport): string {
  const cases: string[] = [];
  let failures = 0;
  for (const category of report.categories) {
    for (const g of report.groups(category)) {
      const body = [...g.messages.keys()].filter((m) => m !== '').concat(g.examples.map((e) => `auditID ${e.auditID}: ${e.user} ${e.verb} ${e.object}`)).join('\n');
      const name = xml(`${category}: ${g.owner} (${g.count})`);
      if (category === 'newly-denied') {
        failures++;
        cases.push(`    <testcase classname="replay.${category}" name="${name}">\n      <failure message="${xml(`${g.count} writes the baseline allowed are denied`)}">${xml(body)}</failure>\n    </testcase>`);
      } else {
        cases.push(`    <testcase classname="replay.${category}" name="${name}">\n      <system-out>${xml(body)}</system-out>\n    </testcase>`);
      }
    }
  }
  cases.unshift(`    <testcase classname="replay" name="${xml(`replayed ${report.replayed} writes`)}">\n      <system-out>${xml(textReport(report))}</system-out>\n    </testcase>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${cases.length}" failures="${failures}">\n  <testsuite name="static-admissiond replay" tests="${cases.length}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

/** One event of `-o json`'s results. */
export function jsonEvent(r: ReplayedEvent): Record<string, unknown> {
  const out: Record<string, unknown> = { auditID: r.auditID, verb: r.verb, objectRef: r.objectRef, user: r.user, operation: r.operation, result: r.outcome };
  if (r.reason !== undefined) out.reason = r.reason;
  if (r.response !== undefined) out.response = r.response;
  if (r.logged !== undefined) out.logged = { code: r.logged.code, reason: r.logged.reason, message: r.logged.message, ...(r.logged.webhook === undefined ? {} : { webhook: r.logged.webhook }) };
  if (r.baseline !== undefined) {
    out.baselineResult = r.baseline.outcome;
    if (r.baseline.reason !== undefined) out.baselineReason = r.baseline.reason;
    if (r.baseline.response !== undefined) out.baselineResponse = r.baseline.response;
  }
  return out;
}

/** `-o json`'s skipped events, counted by reason. */
export function jsonSkipped(report: ReplayReport): Record<string, number> {
  const skipped: Record<string, number> = {};
  for (const r of skipReasons) if ((report.skipped[r] ?? 0) > 0) skipped[r] = report.skipped[r]!;
  return skipped;
}

/** `-o json`'s writes the registration does not send, counted by why. */
export function jsonNotSent(report: ReplayReport): Record<string, number> {
  const notSent: Record<string, number> = {};
  for (const r of notSentReasons) if ((report.notSent[r] ?? 0) > 0) notSent[r] = report.notSent[r]!;
  return notSent;
}

/** `-o json`'s closing counts, and the changes' counts with a baseline. */
export function jsonSummary(report: ReplayReport): Record<string, unknown> {
  const out: Record<string, unknown> = { read: report.read, replayed: report.replayed, ...report.outcomes };
  if (report.withBaseline) out.changes = Object.fromEntries(diffCategories.filter((c) => c !== 'unknown').map((c) => [c, report.count(c)]));
  return out;
}
