// apiserver_mutating_admission_policy_check_total / _check_duration_seconds with kube-apiserver's names, help, labels
// (policy, policy_binding, error_type) and buckets (S/admission/plugin/policy/mutating/metrics/metrics.go): one
// observation per mutation evaluated, as upstream's ObserveAdmission / ObserveRejection.
//
// Pre-aggregated like the validating family (metrics/policy.ts): recording is a map lookup and a few increments; the
// text is produced when Prometheus scrapes.
import type { Histogram, Registry } from 'prom-client';

export interface MutationCheckRecord {
  readonly policy: string;
  readonly binding: string;
  readonly errorType: string;
  readonly seconds: number;
}

export interface MutatingPolicyMetrics {
  recordChecks(checks: readonly MutationCheckRecord[]): void;
}

const buckets = [0.0000005, 0.001, 0.01, 0.1, 1.0] as const;

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  count: number;
  sum: number;
  /** non-cumulative counts per bucket; the last slot is +Inf */
  readonly bucketCounts: number[];
}

interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/** A metric the registry renders from `get()` (the shape prom-client's own metrics hand it). */
class AggregatedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
    private readonly values: () => MetricValue[],
  ) {}

  get(): Promise<{ name: string; help: string; type: string; values: MetricValue[]; aggregator: string }> {
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator });
  }

  reset(): void {}
}

export function createMutatingPolicyMetrics(registry: Registry): MutatingPolicyMetrics {
  const series = new Map<string, Series>();
  const totalName = 'apiserver_mutating_admission_policy_check_total';
  const durationName = 'apiserver_mutating_admission_policy_check_duration_seconds';
  const total = new AggregatedMetric(totalName,
    '[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.',
    'counter', () => [...series.values()].map((s) => ({ value: s.count, labels: s.labels })));
  const duration = new AggregatedMetric(durationName,
    '[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.',
    'histogram', () => [...series.values()].flatMap((s) => {
      let cumulative = 0;
      const out: MetricValue[] = buckets.map((le, i) => {
        cumulative += s.bucketCounts[i]!;
        return { metricName: `${durationName}_bucket`, labels: { ...s.labels, le }, value: cumulative };
      });
      out.push({ metricName: `${durationName}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      out.push({ metricName: `${durationName}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${durationName}_count`, labels: s.labels, value: s.count });
      return out;
    }));
  // prom-client's registry renders any object with name/help/type/get(); its typings only name its own classes
  registry.registerMetric(total as unknown as Histogram);
  registry.registerMetric(duration as unknown as Histogram);

  return {
    recordChecks(checks) {
      for (const c of checks) {
        const key = `${c.policy}\u0000${c.binding}\u0000${c.errorType}`;
        let s = series.get(key);
        if (!s) {
          s = {
            labels: { policy: c.policy, policy_binding: c.binding, error_type: c.errorType },
            count: 0, sum: 0, bucketCounts: new Array<number>(buckets.length + 1).fill(0),
          };
          series.set(key, s);
        }
        s.count++;
        s.sum += c.seconds;
        let i = 0;
        while (i < buckets.length && c.seconds > buckets[i]!) i++;
        s.bucketCounts[i]!++;
      }
    },
  };
}
