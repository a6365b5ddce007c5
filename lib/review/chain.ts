// The admission chain exactly as `serve` answers it — POST /validate (the static-name guard, the
// ValidatingAdmissionPolicy plugin, then the ValidatingAdmissionWebhook plugin) and POST /mutate (the
// MutatingAdmissionPolicy plugin, then the MutatingAdmissionWebhook plugin) — built in one place for `serve`, `review`,
// `test` and `replay`, so that the offline commands cannot decide differently from the daemon.
import type { Registry } from 'prom-client';
import type { AdmissionSetup } from '../config/admission-config.js';
import type { FeatureGates } from '../config/feature-gates.js';
import { createMutateHandler } from './mutate-handler.js';
import type { MutateHandler } from './mutate-handler.js';
import { createMutatingPolicyPlugin } from '../admission/mutating/plugin.js';
import type { MutatingPlugin } from '../admission/mutation.js';
import type { PolicyPool } from '../admission/pool/pool.js';
import { createValidateHandler } from './validate-handler.js';
import type { ValidateHandler } from './validate-handler.js';
import { createWebhookPlugins } from '../admission/webhooks/plugins.js';
import type { WebhookPlugins } from '../admission/webhooks/plugins.js';
import type { Logger } from '../log/logger.js';
import { ManifestError } from '../manifest/errors.js';
import { InlineRule, policyPath } from './dispatch.js';
import type { InlineRuleOptions } from './dispatch.js';
import { parsedReviewer } from './parsed.js';
import type { Reviewer } from './receive.js';
import { initialLoadMessage } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import { createMutatingPolicyMetrics } from '../metrics/mutating-policy.js';
import type { MutatingPolicyMetrics } from '../metrics/mutating-policy.js';
import { createValidatingPolicyMetrics } from '../metrics/policy.js';
import type { PolicyMetrics } from '../metrics/policy.js';
import { loadSnapshotSync } from '../reload/pipeline.js';
import type { Snapshot } from '../reload/snapshot.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';

export interface AdmissionChain {
  /** POST /validate */
  readonly validate: ValidateHandler;
  /** POST /mutate */
  readonly mutate: MutateHandler;
}

export interface AdmissionChainOptions {
  /** a plugin's current snapshot, read per request (undefined: the plugin is not configured) */
  readonly snapshot: (plugin: PluginName) => Snapshot | undefined;
  /** the static webhooks' plugins; undefined: none are called */
  readonly webhooks: WebhookPlugins | undefined;
  /** evaluates the validating policies on worker threads; undefined: on the calling thread */
  readonly pool?: PolicyPool;
  /** the policy check metrics are registered here; none recorded when undefined */
  readonly registry?: Registry;
  /** answers the policies' `authorizer` checks evaluated on this thread (--authorization-kubeconfig) */
  readonly authorization?: SubjectAccessReviewClient;
}

export function createAdmissionChain(options: AdmissionChainOptions): AdmissionChain {
  return chainWithMetrics(options).chain;
}

function chainWithMetrics(options: AdmissionChainOptions): { readonly chain: AdmissionChain; readonly metrics: { readonly validating?: PolicyMetrics; readonly mutating?: MutatingPolicyMetrics } } {
  const policyMetrics = options.registry ? createValidatingPolicyMetrics(options.registry) : undefined;
  const mutatingPolicyMetrics = options.registry ? createMutatingPolicyMetrics(options.registry) : undefined;
  const authorization = options.authorization === undefined ? {} : { authorization: options.authorization };
  const validate = createValidateHandler({
    snapshot: () => options.snapshot('ValidatingAdmissionPolicy'),
    pool: options.pool,
    ...(policyMetrics ? { policyMetrics } : {}),
    ...authorization,
    ...(options.webhooks?.validating ? { webhooks: options.webhooks.validating } : {}),
  });
  const mutatingPlugins: MutatingPlugin[] = [createMutatingPolicyPlugin({
    hooks: () => {
      const snapshot = options.snapshot('MutatingAdmissionPolicy');
      return snapshot?.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
    },
    ...(mutatingPolicyMetrics ? { onChecks: (checks) => mutatingPolicyMetrics.recordChecks(checks) } : {}),
    ...authorization,
  })];
  if (options.webhooks?.mutating) mutatingPlugins.push(options.webhooks.mutating);
  return {
    chain: { validate, mutate: createMutateHandler(mutatingPlugins) },
    metrics: { ...(policyMetrics ? { validating: policyMetrics } : {}), ...(mutatingPolicyMetrics ? { mutating: mutatingPolicyMetrics } : {}) },
  };
}

const hasWebhooks = (snapshot: Snapshot | undefined): boolean => snapshot?.compiled.family === 'webhook' && snapshot.compiled.webhooks.length > 0;

/** The daemon's request paths: POST /validate and /mutate as `serve` answers them. */
export interface AdmissionPaths {
  readonly '/validate': Reviewer;
  readonly '/mutate': Reviewer;
}

/**
 * `serve`'s request paths: each request evaluated inline or whole on a worker (lib/review/dispatch.ts), except while
 * the endpoint has static webhooks to call: then through the chain's handlers, which call them from this thread.
 */
export function createAdmissionPaths(options: AdmissionChainOptions & { readonly inline?: InlineRuleOptions }): AdmissionPaths {
  const { chain, metrics } = chainWithMetrics(options);
  const rule = new InlineRule(options.inline);
  const thread = { authorization: options.authorization, validatingMetrics: metrics.validating, mutatingMetrics: metrics.mutating };
  const validating = options.webhooks?.validating;
  const mutating = options.webhooks?.mutating;
  return {
    '/validate': policyPath({
      endpoint: '/validate', snapshot: () => options.snapshot('ValidatingAdmissionPolicy'), pool: options.pool, rule, thread,
      ...(validating ? { webhooks: { active: () => hasWebhooks(options.snapshot('ValidatingAdmissionWebhook')), reviewer: parsedReviewer((r, ctx) => chain.validate.handle(r, ctx), (r, info) => chain.validate.onTimeout(r, info)) } } : {}),
    }),
    '/mutate': policyPath({
      endpoint: '/mutate', snapshot: () => options.snapshot('MutatingAdmissionPolicy'), pool: options.pool, rule, thread,
      ...(mutating ? { webhooks: { active: () => hasWebhooks(options.snapshot('MutatingAdmissionWebhook')), reviewer: parsedReviewer((r, ctx) => chain.mutate.handle(r, ctx), (r, info) => chain.mutate.onTimeout(r, info)) } } : {}),
    }),
  };
}

export type Endpoint = 'validate' | 'mutate';

const endpointPlugins: Record<Endpoint, readonly PluginName[]> = {
  validate: ['ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'],
  mutate: ['MutatingAdmissionPolicy', 'MutatingAdmissionWebhook'],
};

export interface OfflineChainOptions {
  /** the endpoints to serve: only their plugins' directories are read */
  readonly endpoints: readonly Endpoint[];
  /** leave the static webhooks out (policies only) */
  readonly skipWebhooks: boolean;
  readonly gates: FeatureGates;
  readonly logger: Logger;
  /** where `authorizer` checks go, in policies and webhook matchConditions; closed with the chain */
  readonly authorization?: SubjectAccessReviewClient;
}

export interface OfflineChain extends AdmissionChain {
  /** the snapshots loaded, by plugin */
  readonly snapshots: ReadonlyMap<PluginName, Snapshot>;
  /** closes the webhooks' connection pools and the authorization client */
  close(): Promise<void>;
}

/**
 * `review` and `test`: the configured plugins of `endpoints` loaded once, now, as the daemon's initial load does
 * (an error throws with upstream's `failed to load static … manifests from "<dir>": …`), and the webhook
 * kubeconfigs read (an unreadable one throws, as the daemon fails to start).
 */
export function loadOfflineChain(setup: AdmissionSetup, options: OfflineChainOptions): OfflineChain {
  const wanted = new Set(options.endpoints.flatMap((e) => endpointPlugins[e]));
  const plugins = setup.plugins.filter((p) => wanted.has(p.plugin) && !(options.skipWebhooks && p.plugin.endsWith('Webhook')));
  const snapshots = new Map<PluginName, Snapshot>();
  for (const p of plugins) {
    try {
      snapshots.set(p.plugin, loadSnapshotSync(p.plugin, p.staticManifestsDir));
    } catch (err) {
      if (err instanceof ManifestError) throw new Error(initialLoadMessage(p.plugin, p.staticManifestsDir, err.message));
      throw err;
    }
  }
  const webhookSetups = plugins.filter((p) => p.plugin.endsWith('Webhook'));
  const webhooks = webhookSetups.length === 0 ? undefined : createWebhookPlugins({
    plugins: webhookSetups,
    snapshot: (plugin) => snapshots.get(plugin),
    logger: options.logger,
    excludeWebhookVirtualResources: options.gates.ExcludeAdmissionWebhookVirtualResources,
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
  });
  const chain = createAdmissionChain({
    snapshot: (plugin) => snapshots.get(plugin),
    webhooks,
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
  });
  return {
    ...chain,
    snapshots,
    close: async () => {
      await webhooks?.close();
      await options.authorization?.close();
    },
  };
}
