// The parts `serve` starts, each on its own: the first loads, the policy pool, readiness, the registration keeper,
// and closing what started, in the order shutdown needs, when a later part fails to start.
import type { Registry } from 'prom-client';
import type { AdmissionSetup } from '../config/admission-config.js';
import type { FeatureGates } from '../config/feature-gates.js';
import type { HealthCheck } from '../health/checks.js';
import type { HealthServer } from '../health/server.js';
import { PolicyPool } from '../admission/pool/pool.js';
import type { WebhookPlugins } from '../admission/webhooks/plugins.js';
import type { SchemaSource } from '../cel/index.js';
import type { Logger } from '../log/logger.js';
import { schemaSourceFor } from '../manifest/crds.js';
import { ManifestError } from '../manifest/errors.js';
import { createRegistrationMetrics } from '../metrics/registration.js';
import { createTypeCheckMetrics } from '../metrics/type-check.js';
import type { LoadedPlugin } from '../registration/coverage.js';
import { RegistrationKeeper } from '../registration/keeper.js';
import { caBundleFromPEM } from '../registration/objects.js';
import { InitialLoadError } from '../reload/manifest-source.js';
import type { ManifestSource } from '../reload/manifest-source.js';
import type { DevCertificates } from '../server/dev-cert.js';
import type { AdmissionServer } from '../server/server.js';
import type { Shadow } from '../shadow/shadow.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import { readFileSync } from 'node:fs';
import { reportLoad, reportReload } from './load-report.js';
import type { LoadReportOptions } from './load-report.js';
import { flagBool, flagString, UsageError } from './flags.js';
import type { ParsedFlags } from './flags.js';

/** Where the daemon is between its start and its exit, as /readyz reads it. */
export interface ServingState {
  shuttingDown: boolean;
  admissionListening: boolean;
}

export const ping: HealthCheck = { name: 'ping', check: () => undefined };

/** /readyz: every plugin's first load, a running policy worker, the admission listener serving, not shutting down. */
export function readiness(state: ServingState, sources: readonly ManifestSource[], pool: PolicyPool | undefined, shadow: Shadow | undefined): () => HealthCheck[] {
  const checks: HealthCheck[] = [
    ping,
    ...sources.map((s) => ({ name: `manifests-loaded/${s.plugin}`, check: () => (s.hasSynced() ? undefined : 'initial load not complete') })),
    ...(pool ? [{ name: 'policy-workers', check: () => (pool.threads > 0 ? undefined : 'no policy worker thread is running') }] : []),
    // ready only once the apiserver can reach us: systemd orders the kubelet (and so the apiserver) after /readyz
    { name: 'admission-listener', check: () => (state.admissionListening ? undefined : 'the HTTPS admission listener is not serving yet') },
    { name: 'shutdown', check: () => (state.shuttingDown ? 'process is shutting down' : undefined) },
    ...(shadow ? [shadow.readiness] : []),
  ];
  return () => checks;
}

/** What serve has started so far: closed on shutdown, or when a later step of the start fails. */
export interface Running {
  authorization?: SubjectAccessReviewClient | undefined;
  webhookPlugins?: WebhookPlugins;
  pool?: PolicyPool | undefined;
  shadow?: Shadow | undefined;
  health?: HealthServer;
  devCerts?: DevCertificates | undefined;
  admission?: AdmissionServer;
}

/**
 * Closes what is running: the admission listener first (it stops taking requests and drains them), the outbound
 * clients, then `between` (the reload loops, on shutdown), then the shadow, the pool and health last.
 */
export async function close(running: Running, between?: () => Promise<void>): Promise<void> {
  await running.admission?.close();
  await running.webhookPlugins?.close();
  await running.authorization?.close();
  await between?.();
  await running.shadow?.close();
  await running.pool?.close();
  await running.health?.close();
  running.devCerts?.cleanup();
}

/** A step of the start failed (and logged why): closes what started before it; the exit code. */
export async function closeAfterFailure(running: Running): Promise<number> {
  await close(running);
  return 1;
}

/** Every plugin's first load, synchronous; false (logged) when one fails. Reloads are reported as first loads are. */
export function loadManifests(flags: ParsedFlags, sources: readonly ManifestSource[], gates: FeatureGates, registry: Registry, log: Logger): boolean {
  let schemas: SchemaSource;
  try {
    schemas = schemaSourceFor(flagString(flags, 'crd'));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    log.error(err, 'Failed to read the CustomResourceDefinitions', { crd: flagString(flags, 'crd') });
    return false;
  }
  const loadReport: LoadReportOptions = {
    excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
    authorizationConfigured: flagString(flags, 'authorization-kubeconfig') !== '',
    schemas,
    metrics: createTypeCheckMetrics(registry),
    log,
  };
  for (const source of sources) {
    try {
      reportLoad(source.loadInitial(), loadReport);
      // once per load: a reload that swapped in a new snapshot is reported as the first load was
      source.on('reload', (event) => {
        const snapshot = source.current();
        if (event.outcome === 'reloaded' && snapshot) reportReload(snapshot, loadReport).catch((err: unknown) => log.error(err, 'Failed to report the reload', { plugin: source.plugin }));
      });
    } catch (err) {
      if (err instanceof InitialLoadError) {
        log.error(err, 'Failed to load static manifests', { plugin: err.plugin });
        return false;
      }
      throw err;
    }
  }
  return true;
}

/**
 * The policy pool, when policies are configured and --workers is not 0: the workers compile the current snapshots
 * before any listener opens, and every reloaded one as it comes. 'failed' (logged) when it did not start.
 */
export async function startPolicyPool(flags: ParsedFlags, sources: readonly ManifestSource[], options: { readonly workers: number; readonly workerHeapMb: number; readonly registry: Registry; readonly log: Logger }): Promise<PolicyPool | undefined | 'failed'> {
  const { workers, log } = options;
  const pooled = (['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy'] as const).flatMap((plugin) => sources.find((s) => s.plugin === plugin) ?? []);
  if (pooled.length === 0 || workers === 0) return undefined;
  const pool = new PolicyPool({
    threads: workers,
    snapshots: pooled.flatMap((s) => s.current() ?? []),
    resourceLimits: { maxOldGenerationSizeMb: options.workerHeapMb },
    registry: options.registry,
    logger: log.with('policy-pool'),
    authorizationKubeconfig: flagString(flags, 'authorization-kubeconfig'),
  });
  for (const source of pooled) {
    source.on('reload', (event) => {
      const snapshot = source.current();
      if (event.outcome === 'reloaded' && snapshot) pool.publish(snapshot);
    });
  }
  // once ready, every worker holds the compiled policies (later snapshots are compiled as they come; until every
  // worker has one, its requests are evaluated on the main thread)
  try {
    await pool.ready(120_000);
  } catch (err) {
    log.error(err, 'Failed to start the policy worker pool', { workers });
    await pool.close();
    return 'failed';
  }
  log.info('Started the policy worker pool', { workers });
  return pool;
}

/**
 * The registration: drift against the one in use (--registration-file), and the static one kept in step
 * (--write-registration, after good swaps only). Undefined when neither flag is set; throws what stops it.
 */
export function registrationKeeper(flags: ParsedFlags, options: {
  readonly setup: AdmissionSetup;
  readonly gates: FeatureGates;
  readonly loaded: () => LoadedPlugin[];
  readonly url: string;
  readonly devCerts: DevCertificates | undefined;
  readonly registry: Registry;
  readonly log: Logger;
}): RegistrationKeeper | undefined {
  const registrationFile = flagString(flags, 'registration-file');
  const writeDir = flagString(flags, 'write-registration');
  if (registrationFile === '' && writeDir === '') return undefined;
  const caFile = flagString(flags, 'registration-ca-file');
  if (writeDir !== '' && caFile === '' && !options.devCerts) throw new UsageError('--write-registration needs --registration-ca-file: the CA that signed the serving certificate');
  return new RegistrationKeeper({
    loaded: options.loaded,
    plugins: options.setup.plugins.map((p) => p.plugin),
    admissionConfig: options.setup.configFile,
    ...(registrationFile === '' ? {} : { registrationFile }),
    ...(writeDir === '' ? {} : { writeDir }),
    registration: {
      url: flagString(flags, 'registration-url') || options.url,
      caBundle: writeDir === '' ? '' : caFile !== '' ? caBundleFromPEM(readFileSync(caFile), `--registration-ca-file ${JSON.stringify(caFile)}`) : options.devCerts!.caBundle,
      includeSystemNamespaces: flagBool(flags, 'include-system-namespaces'),
      excludeWebhookVirtualResources: options.gates.ExcludeAdmissionWebhookVirtualResources,
    },
    metrics: createRegistrationMetrics(options.registry),
    logger: options.log.with('registration'),
  });
}
