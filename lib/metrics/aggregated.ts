// Metrics recorded on the hot path without prom-client's per-call label hashing: a series is found by one map lookup
// on its joined label values and updated with a few additions; the exposition text is produced only when Prometheus
// scrapes, by prom-client's registry, from get(). Used by the policy and webhook metric families, each recording
// several series per request.
import type { Histogram, Registry } from 'prom-client';

export interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/** A metric the registry renders from `get()` (the shape prom-client's own metrics hand it). */
export class AggregatedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly values: () => MetricValue[],
    /** run before the values are read at a scrape (observations made elsewhere brought in) */
    private readonly prepare?: () => Promise<void>,
  ) {}

  async get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    if (this.prepare) await this.prepare();
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  reset(): void {}
}

/** Adds the metrics to the registry. */
export function registerAggregated(registry: Registry, metrics: readonly AggregatedMetric[]): void {
  // prom-client's registry renders any object with name/help/type/get(); its typings only name its own classes
  for (const m of metrics) registry.registerMetric(m as unknown as Histogram);
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

/**
 * Series by label values in a trie: a series is found by one map lookup per label, without building a key string
 * (a joined key cost a string and its hash on every call: the listener counts every request).
 */
class SeriesTrie<C> {
  readonly #root = new Map<string, unknown>();
  /** every series, in the order created; the unlabelled one is the first and only */
  readonly cells: C[] = [];

  constructor(private readonly create: (values: readonly string[]) => C) {}

  find(values: readonly string[]): C {
    if (values.length === 0) return this.cells[0] ?? this.#add(this.#root, '', values);
    let node = this.#root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(values[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) node.set(values[i]!, (next = new Map()));
      node = next;
    }
    return (node.get(values[last]!) as C | undefined) ?? this.#add(node, values[last]!, values);
  }

  #add(node: Map<string, unknown>, key: string, values: readonly string[]): C {
    const cell = this.create(values);
    node.set(key, cell);
    this.cells.push(cell);
    return cell;
  }
}

/** Counter series by label values. */
export class CounterSeries {
  private readonly series: SeriesTrie<{ readonly labels: Record<string, string>; value: number }>;
  constructor(labelNames: readonly string[]) {
    this.series = new SeriesTrie((values) => ({ labels: labelsOf(labelNames, values), value: 0 }));
  }

  inc(values: readonly string[], by = 1): void {
    this.series.find(values).value += by;
  }

  values(): MetricValue[] {
    return this.series.cells.map((s) => ({ value: s.value, labels: s.labels }));
  }
}

/** One series' observations, as they travel between threads (structured-cloneable). */
export interface HistogramDelta {
  readonly values: readonly string[];
  readonly count: number;
  readonly sum: number;
  /** per bucket (not cumulative), the last one +Inf */
  readonly buckets: readonly number[];
}

interface HistogramCell {
  readonly values: readonly string[];
  readonly labels: Record<string, string>;
  count: number;
  sum: number;
  readonly buckets: number[];
}

/** Histogram series by label values; counts() also serves a `_total` counter over the same observations. */
export class HistogramSeries {
  private readonly series: SeriesTrie<HistogramCell>;
  private readonly cells: HistogramCell[];
  constructor(private readonly name: string, private readonly labelNames: readonly string[], private readonly bounds: readonly number[]) {
    this.series = new SeriesTrie((values) => ({
      values: [...values], labels: labelsOf(labelNames, values), count: 0, sum: 0, buckets: new Array<number>(bounds.length + 1).fill(0),
    }));
    this.cells = this.series.cells;
    // an unlabelled histogram has its one series from the start, rendered with zeros before any observation
    if (labelNames.length === 0) this.series.find([]);
  }

  private cell(values: readonly string[]): HistogramCell {
    return this.series.find(values);
  }

  observe(values: readonly string[], v: number): void {
    const s = this.cell(values);
    s.count++;
    s.sum += v;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && v > bounds[i]!) i++;
    s.buckets[i]!++;
  }

  /** The observations since the previous drain, per series (those with none left out); the series start again at 0. */
  drain(): HistogramDelta[] {
    const out: HistogramDelta[] = [];
    for (const s of this.cells) {
      if (s.count === 0) continue;
      out.push({ values: s.values, count: s.count, sum: s.sum, buckets: [...s.buckets] });
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
    return out;
  }

  /** Adds observations drained from a series of the same name, labels and bounds (another thread's). */
  merge(deltas: readonly HistogramDelta[]): void {
    for (const d of deltas) {
      if (d.values.length !== this.labelNames.length || d.buckets.length !== this.bounds.length + 1) continue;
      const s = this.cell(d.values);
      s.count += d.count;
      s.sum += d.sum;
      for (let i = 0; i < d.buckets.length; i++) s.buckets[i]! += d.buckets[i]!;
    }
  }

  /** the histogram's _bucket, _sum and _count samples */
  values(): MetricValue[] {
    return this.cells.flatMap((s) => {
      let cumulative = 0;
      const out: MetricValue[] = this.bounds.map((le, i) => {
        cumulative += s.buckets[i]!;
        return { metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative };
      });
      out.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      out.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
      return out;
    });
  }

  /** the number of observations per label set */
  counts(): MetricValue[] {
    return this.cells.map((s) => ({ value: s.count, labels: s.labels }));
  }
}
