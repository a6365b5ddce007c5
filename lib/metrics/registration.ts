// The registration drift signal: how many loaded objects can match requests the registration in use
// (--registration-file) never sends. Any value above 0 is a policy that is silently unenforced.
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface RegistrationMetrics {
  setUncovered(plugin: string, count: number): void;
}

export function createRegistrationMetrics(registry: Registry): RegistrationMetrics {
  const uncovered = new Gauge({
    name: 'static_admissiond_registration_uncovered_objects',
    help: 'Number of loaded policies and static webhooks that can match requests the registration in use (--registration-file) does not send to this daemon, by plugin. Above 0, those objects are not enforced: print the registration again and apply it.',
    labelNames: ['plugin'] as const,
    registers: [registry],
  });
  return {
    setUncovered(plugin, count) {
      uncovered.set({ plugin }, count);
    },
  };
}
