// The two webhook admission plugins as the daemon (and `review`) runs them, built from the AdmissionConfiguration:
// each plugin has its own kubeConfigFile (credentials) and so its own client pools; both record the same upstream
// metrics. A kubeconfig that cannot be read fails here, at startup, as kube-apiserver fails to start.
import type { Registry } from 'prom-client';
import type { PluginSetup } from '../../config/admission-config.js';
import type { Logger } from '../../log/logger.js';
import type { StaticWebhook } from '../../manifest/compile.js';
import type { Snapshot } from '../../reload/snapshot.js';
import { WebhookClients } from '../../webhook/client.js';
import { AuthenticationInfoResolver } from '../../webhook/kubeconfig.js';
import { createWebhookMetrics, noWebhookMetrics } from '../../webhook/metrics.js';
import { MutatingWebhookPlugin } from './mutating.js';
import { ValidatingWebhookDispatcher } from './validating.js';
import type { SubjectAccessReviewClient } from '../../webhook/subject-access-review.js';

export interface ValidatingWebhookPlugin {
  readonly hooks: () => readonly StaticWebhook[];
  readonly dispatcher: ValidatingWebhookDispatcher;
}

export interface WebhookPlugins {
  /** set when ValidatingAdmissionWebhook is configured */
  readonly validating: ValidatingWebhookPlugin | undefined;
  /** set when MutatingAdmissionWebhook is configured: the second plugin of the /mutate chain */
  readonly mutating: MutatingWebhookPlugin | undefined;
  /** closes every outbound connection pool */
  close(): Promise<void>;
}

export interface WebhookPluginsOptions {
  readonly plugins: readonly PluginSetup[];
  /** the current snapshot of a plugin (read per request) */
  readonly snapshot: (plugin: 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook') => Snapshot | undefined;
  /** metrics go here; none when undefined */
  readonly registry?: Registry;
  readonly logger: Logger;
  readonly excludeWebhookVirtualResources: boolean;
  /** answers `authorizer` checks in matchConditions (--authorization-kubeconfig) */
  readonly authorization?: SubjectAccessReviewClient;
}

function hooksOf(snapshot: Snapshot | undefined): readonly StaticWebhook[] {
  return snapshot?.compiled.family === 'webhook' ? snapshot.compiled.webhooks : [];
}

/** Throws KubeconfigError when a plugin's kubeConfigFile cannot be read. */
export function createWebhookPlugins(options: WebhookPluginsOptions): WebhookPlugins {
  const metrics = options.registry ? createWebhookMetrics(options.registry) : noWebhookMetrics;
  const clients: WebhookClients[] = [];
  const clientsFor = (setup: PluginSetup): WebhookClients => {
    const c = new WebhookClients({ resolver: AuthenticationInfoResolver.fromFile(setup.kubeConfigFile) });
    clients.push(c);
    return c;
  };
  const authorization = options.authorization === undefined ? {} : { authorization: options.authorization };
  const validatingSetup = options.plugins.find((p) => p.plugin === 'ValidatingAdmissionWebhook');
  const mutatingSetup = options.plugins.find((p) => p.plugin === 'MutatingAdmissionWebhook');
  const validating = validatingSetup === undefined ? undefined : {
    hooks: () => hooksOf(options.snapshot('ValidatingAdmissionWebhook')),
    dispatcher: new ValidatingWebhookDispatcher({
      clients: clientsFor(validatingSetup),
      metrics,
      logger: options.logger.with('validating-webhook'),
      excludeWebhookVirtualResources: options.excludeWebhookVirtualResources,
      ...authorization,
    }),
  };
  const mutating = mutatingSetup === undefined ? undefined : new MutatingWebhookPlugin({
    hooks: () => hooksOf(options.snapshot('MutatingAdmissionWebhook')),
    clients: clientsFor(mutatingSetup),
    metrics,
    logger: options.logger.with('mutating-webhook'),
    excludeWebhookVirtualResources: options.excludeWebhookVirtualResources,
    ...authorization,
  });
  return {
    validating,
    mutating,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}
