// The shape both policy check families share (apiserver_{validating,mutating}_admission_policy_check_total and
// _check_duration_seconds): one histogram series per label set, whose counts also serve the _total counter,
// pre-aggregated on the thread that evaluates. A policy worker keeps its own series (no registry) and hands its
// observations over when the main thread asks before a scrape; the main thread's series merge them.
import type { Registry } from 'prom-client';
import { AggregatedMetric, HistogramSeries, registerAggregated } from './aggregated.js';
import type { HistogramDelta } from './aggregated.js';

export interface CheckFamilySpec {
  readonly total: { readonly name: string; readonly help: string };
  readonly duration: { readonly name: string; readonly help: string };
  readonly labelNames: readonly string[];
  readonly buckets: readonly number[];
}

export interface CheckFamily {
  observe(values: readonly string[], seconds: number): void;
  /** the observations since the previous drain (a worker's, for the main thread) */
  drain(): HistogramDelta[];
  /** adds another thread's drained observations */
  merge(deltas: readonly HistogramDelta[]): void;
  /** `pull` runs before a scrape reads the values (it brings in the workers' observations) */
  pullBeforeScrape(pull: () => Promise<void>): void;
}

const families = new WeakMap<Registry, Map<string, CheckFamily>>();

/** The family registered in `registry` (one per registry, whoever asks first creates it), or a thread-local one. */
export function checkFamily(registry: Registry | undefined, spec: CheckFamilySpec): CheckFamily {
  const known = registry === undefined ? undefined : families.get(registry)?.get(spec.total.name);
  if (known !== undefined) return known;
  const series = new HistogramSeries(spec.duration.name, spec.labelNames, spec.buckets);
  const pulls: Array<() => Promise<void>> = [];
  const prepare = async (): Promise<void> => {
    for (const pull of pulls) await pull();
  };
  const family: CheckFamily = {
    observe: (values, seconds) => series.observe(values, seconds),
    drain: () => series.drain(),
    merge: (deltas) => series.merge(deltas),
    pullBeforeScrape: (pull) => {
      pulls.push(pull);
    },
  };
  if (registry !== undefined) {
    registerAggregated(registry, [
      new AggregatedMetric(spec.total.name, spec.total.help, 'counter', () => series.counts(), prepare),
      new AggregatedMetric(spec.duration.name, spec.duration.help, 'histogram', () => series.values(), prepare),
    ]);
    let byName = families.get(registry);
    if (byName === undefined) families.set(registry, (byName = new Map()));
    byName.set(spec.total.name, family);
  }
  return family;
}
