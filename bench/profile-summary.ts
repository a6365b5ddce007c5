// Summarises a V8 .cpuprofile (node --cpu-prof) into the shares of the hot path's items: each sample is given to the
// first item, in the order below, that any frame of its stack belongs to, so `parseAdmissionReview` includes the
// JSON.parse under it and "CEL" what no earlier item claimed. Used by bench/profile.ts; also on its own:
//   node dist/bench/profile-summary.js FILE.cpuprofile [more…]
import { readFileSync } from 'node:fs';

interface CallFrame { readonly functionName: string; readonly url: string }
interface ProfileNode { readonly id: number; readonly callFrame: CallFrame; readonly children?: readonly number[] }
interface CpuProfile { readonly nodes: readonly ProfileNode[]; readonly samples: readonly number[]; readonly timeDeltas: readonly number[]; readonly startTime: number; readonly endTime: number }

type Matcher = (frame: CallFrame) => boolean;
const fn = (...names: string[]): Matcher => (f) => names.includes(f.functionName);
const url = (...parts: string[]): Matcher => (f) => parts.some((p) => f.url.includes(p));

/** The items, in priority order. */
export const items: ReadonlyArray<readonly [string, Matcher]> = [
  ['idle', fn('(idle)')],
  ['GC', fn('(garbage collector)')],
  ['writev', fn('writev', 'writeGeneric', 'writeBuffer', 'writevGeneric')],
  ['postMessage', fn('postMessage')],
  ['parseAdmissionReview', fn('parseAdmissionReview')],
  ['codec', url('/pool/codec.js', '/pool/review-codec.js', 'protobufjs')],
  ['planning', fn('planValidatingPolicies', 'startValidation')],
  ['matching', url('/admission/matching/')],
  ['metrics', url('/metrics/', 'prom-client')],
  ['defaulting', url('/admission/defaulting/')],
  ['strict decode', url('/api/strict-walker', '/mutating/strict-decode')],
  ['patch/merge', url('/mutating/merge', '/mutating/json-patch', '/mutating/patchers')],
  ['JSON copy/diff', url('/lib/json/')],
  ['conversion', url('/admission/conversion/')],
  ['CEL', url('/lib/cel/', 'cel-js')],
  ['pruning', url('/mutating/typed-object')],
  // what is left under the mutating plugin: its dispatcher's loops, the activations, the reinvocation state
  ['mutating dispatch', url('/admission/mutating/', '/admission/mutate')],
  ['answer encoding', fn('encodeAdmissionReviewResponse', 'encodeStatus', 'encodeAnswer')],
  ['TLS', url('node:_tls', 'node:tls'), ],
  ['HTTP', url('node:_http', 'node:http')],
  ['Piscina', url('piscina')],
  ['program', fn('(program)')],
];

export interface Summary {
  /** sampled wall time, µs */
  readonly totalUs: number;
  /** time not idle, µs */
  readonly busyUs: number;
  readonly shares: ReadonlyArray<{ readonly item: string; readonly us: number }>;
  readonly top: ReadonlyArray<{ readonly name: string; readonly us: number }>;
}

/**
 * `window`: only the samples between `fromEndUs` and `toEndUs` before the profile's end (the load window of a run
 * that stops right after it; start-up and its compiles left out).
 */
export function summarise(profile: CpuProfile, window?: { readonly fromEndUs: number; readonly toEndUs: number }): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const itemOf = new Map<number, string>();
  const classify = (id: number): string => {
    let cached = itemOf.get(id);
    if (cached !== undefined) return cached;
    const frames: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    cached = items.find(([, m]) => frames.some(m))?.[0] ?? 'other';
    itemOf.set(id, cached);
    return cached;
  };
  const perItem = new Map<string, number>();
  const self = new Map<string, number>();
  let total = 0;
  const stamps: number[] = [];
  let at = profile.startTime;
  for (const dt of profile.timeDeltas) stamps.push((at += dt));
  const last = stamps[stamps.length - 1] ?? profile.endTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    if (window !== undefined && (stamps[i]! < last - window.fromEndUs || stamps[i]! > last - window.toEndUs)) return;
    total += dt;
    const item = classify(id);
    perItem.set(item, (perItem.get(item) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '')}`.trim();
    self.set(name, (self.get(name) ?? 0) + dt);
  });
  const idle = perItem.get('idle') ?? 0;
  return {
    totalUs: total,
    busyUs: total - idle,
    shares: [...perItem].filter(([k]) => k !== 'idle').map(([item, us]) => ({ item, us })).sort((a, b) => b.us - a.us),
    top: [...self].filter(([k]) => !k.startsWith('(idle)')).map(([name, us]) => ({ name, us })).sort((a, b) => b.us - a.us).slice(0, 15),
  };
}

/** The summary as text; `requests` (when known) gives µs per request. */
export function formatSummary(title: string, s: Summary, requests?: number): string {
  const per = (us: number): string => (requests ? `  ${(us / requests).toFixed(1).padStart(7)} µs/req` : '');
  const lines = [`${title}: busy ${(s.busyUs / 1e6).toFixed(2)} s of ${(s.totalUs / 1e6).toFixed(2)} s${per(s.busyUs)}`];
  for (const x of s.shares) lines.push(`  ${x.item.padEnd(22)}${(100 * x.us / s.busyUs).toFixed(1).padStart(6)}%${per(x.us)}`);
  lines.push('  top self time:');
  for (const x of s.top.slice(0, 10)) lines.push(`    ${(100 * x.us / s.busyUs).toFixed(1).padStart(5)}%  ${x.name}`);
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.js')) {
  for (const file of process.argv.slice(2)) console.log(formatSummary(file, summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)));
}
