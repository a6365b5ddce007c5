// static_admissiond_type_check_warnings{plugin}: how many expressions of the loaded configuration the type checker
// warns about (lib/manifest/type-check.ts), set at every successful load. Policies that would fail at admission with
// a type mistake load without a word otherwise; the dashboard shows this next to the reload signals.
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface TypeCheckMetrics {
  /** the warnings of a plugin's latest loaded configuration */
  record(plugin: string, warnings: number): void;
}

export function createTypeCheckMetrics(registry: Registry): TypeCheckMetrics {
  const gauge = new Gauge({
    name: 'static_admissiond_type_check_warnings',
    help: 'Expressions of the loaded static manifests that fail type checking against the schemas of the kinds they match (what kube-apiserver reports in a policy\'s status.typeChecking), by plugin.',
    labelNames: ['plugin'] as const,
    registers: [registry],
  });
  return { record: (plugin, warnings) => gauge.set({ plugin }, warnings) };
}
