// The registration drift signals, from the registration in use (--registration-file) against the loaded manifests:
// - uncovered objects: loaded objects that can match requests the registration never sends. Above 0, a policy is
//   silently unenforced.
// - excess rules: what the registration sends that no loaded object can match. Above 0, a stopped daemon blocks
//   requests for nothing (a leftover wildcard rule can block namespace creation).
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

export interface RegistrationMetrics {
  setUncovered(plugin: string, count: number): void;
  setExcess(kind: string, count: number): void;
}

export function createRegistrationMetrics(registry: Registry): RegistrationMetrics {
  const uncovered = new Gauge({
    name: 'static_admissiond_registration_uncovered_objects',
    help: 'Number of loaded policies and static webhooks that can match requests the registration in use (--registration-file) does not send to this daemon, by plugin. Above 0, those objects are not enforced: print the registration again and apply it.',
    labelNames: ['plugin'] as const,
    registers: [registry],
  });
  const excess = new Gauge({
    name: 'static_admissiond_registration_excess_rules',
    help: 'Number of request kinds (operation, group/version, resource and scope; the system namespaces; the review resources) the registration in use (--registration-file) sends to this daemon although no loaded object can match them, by webhook configuration kind. Above 0, a stopped daemon blocks those requests for nothing: print the registration again and apply it.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    setUncovered(plugin, count) {
      uncovered.set({ plugin }, count);
    },
    setExcess(kind, count) {
      excess.set({ kind }, count);
    },
  };
}
