// The manifest reload metrics with kube-apiserver's names, help, labels and semantics
// (staging/src/k8s.io/apiserver/pkg/admission/plugin/manifest/metrics), recorded only through the functions below.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

const prefix = 'apiserver_manifest_admission_config_controller';

export interface ReloadMetrics {
  recordSuccess(plugin: string, hash: string): void;
  recordFailure(plugin: string): void;
}

/** Registers the three reload metrics in `registry`. `apiServerIDHash` is the `apiserver_id_hash` label value. */
export function createReloadMetrics(registry: Registry, apiServerIDHash: string, now: () => number = Date.now): ReloadMetrics {
  const reloads = new Counter({
    name: `${prefix}_automatic_reloads_total`,
    help: '[ALPHA] Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.',
    labelNames: ['status', 'plugin', 'apiserver_id_hash'] as const,
    registers: [registry],
  });
  const lastTimestamp = new Gauge({
    name: `${prefix}_automatic_reload_last_timestamp_seconds`,
    help: '[ALPHA] Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.',
    labelNames: ['status', 'plugin', 'apiserver_id_hash'] as const,
    registers: [registry],
  });
  // One series per plugin, rebuilt at each scrape, so a new hash replaces the old series instead of adding one.
  const lastConfig = new Map<string, string>();
  new Gauge({
    name: `${prefix}_last_config_info`,
    help: '[ALPHA] Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.',
    labelNames: ['plugin', 'apiserver_id_hash', 'hash'] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (apiServerIDHash === '') return;
      for (const [plugin, hash] of lastConfig) this.set({ plugin, apiserver_id_hash: apiServerIDHash, hash }, 1);
    },
  });

  const record = (status: 'success' | 'failure', plugin: string): void => {
    const labels = { status, plugin, apiserver_id_hash: apiServerIDHash };
    reloads.inc(labels);
    lastTimestamp.set(labels, now() / 1000);
  };
  return {
    recordSuccess(plugin, hash) {
      record('success', plugin);
      lastConfig.set(plugin, hash);
    },
    recordFailure(plugin) {
      record('failure', plugin);
    },
  };
}
