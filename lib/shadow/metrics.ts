// The shadow set's own metrics, apart from the enforced side's: its reloads never touch upstream's
// apiserver_manifest_admission_config_controller_* series, so a typo in a candidate cannot fire an alert about what
// the node enforces.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { AggregatedMetric, CounterSeries, registerAggregated } from '../metrics/aggregated.js';
import type { ReloadMetrics } from '../metrics/reload.js';
import type { ShadowEndpoint } from './evaluate.js';

/** Why an answered request was not decided by the shadow set. */
export type SkipReason =
  /** the shadow evaluations waiting or running reached their bound */
  | 'queue_full'
  /** the shadow worker used more than its share of a core over the last window */
  | 'cpu_budget'
  /** no candidate snapshot loaded yet (the first load failed, or the worker is still compiling it) */
  | 'not_loaded'
  /** the evaluation failed, or the worker died with it */
  | 'failed';

export const skipReasons: readonly SkipReason[] = ['queue_full', 'cpu_budget', 'not_loaded', 'failed'];

export interface ShadowMetrics {
  readonly reload: ReloadMetrics;
  /** [plugin, policy, binding, enforced, shadow, count] rows */
  recordDecisions(rows: ReadonlyArray<readonly [string, string, string, string, string, number]>): void;
  recordCompared(endpoint: ShadowEndpoint, requests: number, patchDiffers: number): void;
  recordSkipped(endpoint: string, reason: SkipReason, requests?: number): void;
}

export function createShadowMetrics(registry: Registry): ShadowMetrics {
  const decisions = new CounterSeries(['plugin', 'policy', 'binding', 'enforced', 'shadow']);
  const compared = new CounterSeries(['endpoint']);
  const patches = new CounterSeries(['endpoint']);
  const skipped = new CounterSeries(['endpoint', 'reason']);
  registerAggregated(registry, [
    new AggregatedMetric('static_admissiond_shadow_decisions_total',
      'Decisions of the policy bindings that matched an answered request in the enforced or the shadow (--shadow-admission-config) set, by plugin, policy, binding, and what each set decided: allow, deny, warn, audit, error (failed, admitted by failurePolicy Ignore), nomatch, absent (not in that set). enforced != shadow is a difference.',
      'counter', () => decisions.values()),
    new AggregatedMetric('static_admissiond_shadow_requests_total',
      'Answered admission requests decided again by the shadow set, by endpoint.',
      'counter', () => compared.values()),
    new AggregatedMetric('static_admissiond_shadow_patch_differences_total',
      'Answered /mutate requests whose enforced and shadow MutatingAdmissionPolicies would patch the object differently.',
      'counter', () => patches.values()),
    new AggregatedMetric('static_admissiond_shadow_skipped_total',
      'Answered admission requests the shadow set did not decide, by endpoint and reason: queue_full, cpu_budget, not_loaded, failed.',
      'counter', () => skipped.values()),
  ]);

  const reloads = new Counter({
    name: 'static_admissiond_shadow_reloads_total',
    help: 'Loads of the shadow (--shadow-admission-config) manifest directories, by plugin and status (success, failure). Kept apart from apiserver_manifest_admission_config_controller_automatic_reloads_total.',
    labelNames: ['plugin', 'status'] as const,
    registers: [registry],
  });
  const lastTimestamp = new Gauge({
    name: 'static_admissiond_shadow_reload_last_timestamp_seconds',
    help: 'Time of the last load of a shadow manifest directory, by plugin and status.',
    labelNames: ['plugin', 'status'] as const,
    registers: [registry],
  });
  // one series per plugin, rebuilt at each scrape, so a new hash replaces the old series
  const hashes = new Map<string, string>();
  new Gauge({
    name: 'static_admissiond_shadow_config_info',
    help: 'The shadow configuration in use, with its content hash as a label, by plugin.',
    labelNames: ['plugin', 'hash'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [plugin, hash] of hashes) this.set({ plugin, hash }, 1);
    },
  });
  const loaded = (status: 'success' | 'failure', plugin: string): void => {
    reloads.inc({ plugin, status });
    lastTimestamp.set({ plugin, status }, Date.now() / 1000);
  };

  return {
    reload: {
      recordSuccess(plugin, hash) {
        loaded('success', plugin);
        hashes.set(plugin, hash);
      },
      recordFailure(plugin) {
        loaded('failure', plugin);
      },
    },
    recordDecisions(rows) {
      for (const [plugin, policy, binding, enforced, shadow, n] of rows) decisions.inc([plugin, policy, binding, enforced, shadow], n);
    },
    recordCompared(endpoint, requests, patchDiffers) {
      compared.inc([endpoint], requests);
      if (patchDiffers > 0) patches.inc([endpoint], patchDiffers);
    },
    recordSkipped(endpoint, reason, requests = 1) {
      skipped.inc([endpoint, reason], requests);
    },
  };
}
