// `static-admissiond serve`: loads every configured plugin's manifests synchronously (exit 1 on failure, before any
// listener opens), then keeps them current and serves health and metrics until the signal aborts.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { AdmissionConfigError } from '../config/admission-config.js';
import type { AdmissionSetup } from '../config/admission-config.js';
import type { FeatureGates } from '../config/feature-gates.js';
import { startHealthServer } from '../health/server.js';
import type { HealthServer, HealthServerOptions } from '../health/server.js';
import { minWorkerMaxOldSpaceMb } from '../admission/pool/pool.js';
import { createWebhookPlugins } from '../admission/webhooks/plugins.js';
import type { WebhookPlugins } from '../admission/webhooks/plugins.js';
import { generateDevCertificates } from '../server/dev-cert.js';
import type { DevCertificates } from '../server/dev-cert.js';
import type { LoadedPlugin } from '../registration/coverage.js';
import { RegistrationKeeper } from '../registration/keeper.js';
import { deriveRegistration } from '../registration/objects.js';
import { renderRegistration } from '../registration/render.js';
import { formatMs } from '../server/limits.js';
import type { AdmissionServerLimits } from '../server/limits.js';
import { startAdmissionServer } from '../server/server.js';
import type { AdmissionServer } from '../server/server.js';
import { join } from 'node:path';
import { apiServerIDHash, defaultAPIServerID } from '../identity/apiserver-id.js';
import { createLogger } from '../log/logger.js';
import type { LogFormat, Logger } from '../log/logger.js';
import { createReloadMetrics } from '../metrics/reload.js';
import { ManifestSource } from '../reload/manifest-source.js';
import type { Snapshot } from '../reload/snapshot.js';
import { Shadow } from '../shadow/shadow.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import { createAdmissionPaths } from '../review/chain.js';
import type { AdmissionPaths } from '../review/chain.js';
import { admissionSetupFrom, authorizationClientFrom, featureGatesFrom, packageRoot, packageVersion } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, flagNumber, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { ParsedFlags } from './flags.js';
import { serveFlags } from './serve-flags.js';
import { close, closeAfterFailure, loadManifests, ping, readiness, registrationKeeper, startPolicyPool } from './serve-start.js';
import type { Running, ServingState } from './serve-start.js';


export async function serve(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, serveFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond serve [flags]', 'Runs the daemon: loads and watches static admission manifests, answers /validate and /mutate, serves health and metrics. Exit 0 after SIGTERM or SIGINT, 1 when it cannot start, 2 on a usage error.', serveFlags));
    return 0;
  }
  const format = flagString(flags, 'logging-format');
  if (format !== 'text' && format !== 'json') throw new UsageError(`invalid --logging-format ${JSON.stringify(format)}: must be text or json`);
  const log = createLogger({ format: format as LogFormat, verbosity: flagNumber(flags, 'v'), write: (line) => io.stderr(line + '\n'), source: 'serve' });
  const { certificate, workers, workerHeapMb, limits } = checkedFlags(flags);
  const configuration = admissionConfiguration(flags, log);
  if (configuration === undefined) return 1;
  const { setup, gates } = configuration;
  const apiServerID = flags.set.has('apiserver-id') ? flagString(flags, 'apiserver-id') : defaultAPIServerID();
  // node's flags: the command's #! line names V8 settings (cmd/engine.ts), which a hand-written `node …` start may lack
  log.info('Starting static-admissiond', {
    version: packageVersion(), node: process.version, nodeFlags: process.execArgv, admissionConfig: setup.configFile, apiServerID, plugins: setup.plugins.map((p) => p.plugin),
  });

  const registry = daemonRegistry();
  const sources = manifestSources(flags, setup, { registry, apiServerID, log });
  if (!loadManifests(flags, sources, gates, registry, log)) return 1;

  // Where `authorizer` checks go: read now, an unusable kubeconfig fails startup (without it, checks fail as
  // evaluation errors under each policy's failure policy).
  const running: Running = {};
  try {
    running.authorization = authorizationClientFrom(flags);
  } catch (err) {
    log.error(err, 'Failed to load the authorization kubeconfig', { kubeconfig: flagString(flags, 'authorization-kubeconfig') });
    return 1;
  }
  const authorizationOption = running.authorization === undefined ? {} : { authorization: running.authorization };
  const current = (plugin: string): Snapshot | undefined => sources.find((s) => s.plugin === plugin)?.current();

  // The static webhooks' plugins: their kubeconfig credentials are read now (an unreadable one fails startup).
  running.webhookPlugins = webhooks(setup, gates, { snapshot: current, registry, log, ...authorizationOption });
  if (running.webhookPlugins === undefined) return closeAfterFailure(running);
  const pool = await startPolicyPool(flags, sources, { workers, workerHeapMb, registry, log });
  if (pool === 'failed') return closeAfterFailure(running);
  running.pool = pool;
  // --shadow-admission-config: never fails startup, whatever the candidate holds
  const shadowConfig = flagString(flags, 'shadow-admission-config');
  const shadow = shadowConfig === '' ? undefined : new Shadow({
    configFile: shadowConfig, gates, enforced: sources, intervalMs: flagNumber(flags, 'reload-interval'), registry,
    logger: log.with('shadow'), authorizationKubeconfig: flagString(flags, 'authorization-kubeconfig'),
  });
  running.shadow = shadow;
  shadow?.start();
  // POST /validate and /mutate, built as `review` and `test` build them
  const paths = createAdmissionPaths({ snapshot: current, webhooks: running.webhookPlugins, pool, registry, ...authorizationOption });

  const state: ServingState = { shuttingDown: false, admissionListening: false };
  running.health = await healthListener(flags, { registry, readyz: readiness(state, sources, pool, shadow), log });
  if (running.health === undefined) return closeAfterFailure(running);

  const admission = await startAdmission(flags, running, { certificate, paths, shadow, limits, registry, log });
  if (admission === undefined) return closeAfterFailure(running);
  state.admissionListening = true;
  log.info('Serving admission webhooks', { url: admission.url });
  const loaded = (): LoadedPlugin[] => loadedPlugins(sources);
  if (running.devCerts) printDevInstructions(io, admission.url, running.devCerts, loaded());

  const keeper = registrationChecks(flags, sources, { setup, gates, loaded, url: admission.url, devCerts: running.devCerts, registry, log });
  if (keeper === 'failed') return closeAfterFailure(running);

  // the reload loops (manifests, registration, shadow) run until the signal; then the listeners close
  const stop = new AbortController();
  const loops = [...sources.map((s) => s.run(stop.signal)), ...(keeper ? [keeper.watch(stop.signal, flagNumber(flags, 'reload-interval'))] : [])];
  if (shadow) loops.push(shadow.run(stop.signal));
  await aborted(io.signal);
  state.shuttingDown = true;
  log.info('Shutting down');
  await close(running, async () => {
    stop.abort();
    await Promise.all(loops);
  });
  return 0;
}

/** /livez, /readyz and /metrics on --health-bind-address; undefined (logged) when it cannot listen. */
async function healthListener(flags: ParsedFlags, options: { readonly registry: Registry; readonly readyz: HealthServerOptions['readyz']; readonly log: Logger }): Promise<HealthServer | undefined> {
  const bindAddress = flagString(flags, 'health-bind-address');
  try {
    const health = await startHealthServer({ bindAddress, registry: options.registry, livez: () => [ping], readyz: options.readyz });
    options.log.info('Serving health and metrics', { url: health.url });
    return health;
  } catch (err) {
    options.log.error(err, 'Failed to start the health listener', { address: bindAddress });
    return undefined;
  }
}

/** The plugins whose manifests are loaded now, for the registration checks and the --dev instructions. */
function loadedPlugins(sources: readonly ManifestSource[]): LoadedPlugin[] {
  return sources.flatMap((s) => {
    const snapshot = s.current();
    return snapshot ? [{ plugin: s.plugin, manifests: snapshot.manifests }] : [];
  });
}

/** One ManifestSource per configured plugin, sharing the reload metrics (labelled with the apiserver ID's hash). */
function manifestSources(flags: ParsedFlags, setup: AdmissionSetup, options: { readonly registry: Registry; readonly apiServerID: string; readonly log: Logger }): ManifestSource[] {
  const metrics = createReloadMetrics(options.registry, apiServerIDHash(options.apiServerID));
  return setup.plugins.map((p) => new ManifestSource({
    plugin: p.plugin,
    dir: p.staticManifestsDir,
    intervalMs: flagNumber(flags, 'reload-interval'),
    metrics,
    logger: options.log.with('reload'),
  }));
}

/**
 * The registration checks (--registration-file, --write-registration), started and told of every reload; undefined
 * when neither flag is set, 'failed' (logged) when they cannot be set up.
 */
function registrationChecks(flags: ParsedFlags, sources: readonly ManifestSource[], options: Parameters<typeof registrationKeeper>[1]): RegistrationKeeper | undefined | 'failed' {
  let keeper: RegistrationKeeper | undefined;
  try {
    keeper = registrationKeeper(flags, options);
    keeper?.start();
  } catch (err) {
    options.log.error(err, 'Failed to set up the registration checks', { registrationFile: flagString(flags, 'registration-file'), writeRegistration: flagString(flags, 'write-registration') });
    return 'failed';
  }
  if (keeper) for (const source of sources) source.on('reload', (event) => keeper.onReload(event.outcome === 'reloaded'));
  return keeper;
}

/** Resolves once `signal` aborts (at once when there is none or it already has). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!signal || signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** --tls-cert-file and --tls-private-key-file, or --dev (a throw-away certificate when they are not given). */
interface ServingCertificate {
  readonly dev: boolean;
  readonly certFile: string;
  readonly keyFile: string;
}

/** The AdmissionConfiguration and the feature gates; undefined (logged) when they cannot be read. */
function admissionConfiguration(flags: ParsedFlags, log: Logger): { readonly setup: AdmissionSetup; readonly gates: FeatureGates } | undefined {
  try {
    const gates = featureGatesFrom(flags);
    return { setup: admissionSetupFrom(flags, gates), gates };
  } catch (err) {
    if (err instanceof AdmissionConfigError || err instanceof Error) {
      log.error(err, 'Invalid admission configuration', { config: flagString(flags, 'admission-config') });
      return undefined;
    }
    throw err;
  }
}

/** The static webhooks' plugins, their kubeconfigs read now; undefined (logged) when one cannot be read. */
function webhooks(setup: AdmissionSetup, gates: FeatureGates, options: {
  readonly snapshot: (plugin: string) => Snapshot | undefined;
  readonly registry: Registry;
  readonly log: Logger;
  readonly authorization?: SubjectAccessReviewClient;
}): WebhookPlugins | undefined {
  try {
    return createWebhookPlugins({
      plugins: setup.plugins,
      snapshot: options.snapshot,
      registry: options.registry,
      logger: options.log.with('webhook'),
      excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
      ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    });
  } catch (err) {
    options.log.error(err, 'Failed to load the webhook kubeconfig', { plugins: setup.plugins.filter((p) => p.kubeConfigFile !== '').map((p) => `${p.plugin}=${p.kubeConfigFile}`) });
    return undefined;
  }
}

/** The registry /metrics serves: Node's default metrics and static_admissiond_build_info; the parts add theirs. */
function daemonRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'static_admissiond_build_info', help: 'A metric with a constant 1 value labelled by the version of static-admissiond and of Node.js.', labelNames: ['version', 'node_version'] as const, registers: [registry] })
    .set({ version: packageVersion(), node_version: process.version }, 1);
  return registry;
}

/**
 * The HTTPS admission listener on POST /validate and /mutate (with --dev and no certificate, a throw-away one, kept in
 * `running` to be removed at exit). Undefined (logged) when it cannot start.
 */
async function startAdmission(flags: ParsedFlags, running: Running, options: {
  readonly certificate: ServingCertificate;
  readonly paths: AdmissionPaths;
  readonly shadow: Shadow | undefined;
  readonly limits: AdmissionServerLimits;
  readonly registry: Registry;
  readonly log: Logger;
}): Promise<AdmissionServer | undefined> {
  const { certificate, paths, shadow, log } = options;
  try {
    running.devCerts = certificate.dev && certificate.certFile === '' ? await generateDevCertificates() : undefined;
    return running.admission = await startAdmissionServer({
      bindAddress: flagString(flags, 'bind-address'),
      port: flagNumber(flags, 'secure-port'),
      tls: {
        certFile: running.devCerts?.certFile ?? certificate.certFile,
        keyFile: running.devCerts?.keyFile ?? certificate.keyFile,
        ...(flagString(flags, 'client-ca-file') === '' ? {} : { clientCAFile: flagString(flags, 'client-ca-file') }),
      },
      routes: {
        '/validate': { reviewer: paths['/validate'] },
        '/mutate': { reviewer: paths['/mutate'] },
      },
      ...(shadow ? { afterAnswer: (endpoint: string, body: Buffer, answer: Uint8Array) => shadow.observe(endpoint, body, answer) } : {}),
      limits: options.limits,
      logger: log.with('server'),
      registry: options.registry,
    });
  } catch (err) {
    log.error(err, 'Failed to start the admission listener', { address: `${flagString(flags, 'bind-address')}:${flagNumber(flags, 'secure-port')}` });
    return undefined;
  }
}

/** The flags whose values are checked before anything starts; a bad one is a usage error (exit 2). */
function checkedFlags(flags: ParsedFlags): { readonly certificate: ServingCertificate; readonly workers: number; readonly workerHeapMb: number; readonly limits: AdmissionServerLimits } {
  const certificate = certificateFlags(flags);
  const workers = flagNumber(flags, 'workers');
  if (!Number.isInteger(workers) || workers < 0) throw new UsageError(`invalid --workers ${workers}: must be 0 (evaluate on the main thread) or more`);
  const workerHeapMb = flagNumber(flags, 'worker-max-old-space-size');
  if (!Number.isInteger(workerHeapMb) || workerHeapMb < minWorkerMaxOldSpaceMb) throw new UsageError(`invalid --worker-max-old-space-size ${workerHeapMb}: must be at least ${minWorkerMaxOldSpaceMb} (MiB)`);
  return { certificate, workers, workerHeapMb, limits: listenerLimits(flags) };
}

/** The serving certificate's files, or --dev's throw-away one (when no --tls-cert-file is given). */
function certificateFlags(flags: ParsedFlags): ServingCertificate {
  const dev = flagBool(flags, 'dev');
  const certFile = flagString(flags, 'tls-cert-file');
  const keyFile = flagString(flags, 'tls-private-key-file');
  if (!dev && (certFile === '' || keyFile === '')) {
    throw new UsageError('--tls-cert-file and --tls-private-key-file are required: the apiserver calls this daemon over HTTPS (or run with --dev for a throw-away certificate)');
  }
  return { dev, certFile, keyFile };
}

/** The admission listener's limits from the flags; contradictions are usage errors. */
function listenerLimits(flags: ParsedFlags): AdmissionServerLimits {
  const maxBodyBytes = flagNumber(flags, 'max-request-body-bytes');
  if (!(maxBodyBytes > 0)) throw new UsageError(`invalid --max-request-body-bytes ${maxBodyBytes}: must be greater than zero`);
  const headersTimeoutMs = flagNumber(flags, 'request-header-timeout');
  const requestTimeoutMs = flagNumber(flags, 'request-body-timeout');
  for (const [name, ms] of [['request-header-timeout', headersTimeoutMs], ['request-body-timeout', requestTimeoutMs]] as const) {
    if (!(ms >= 1)) throw new UsageError(`invalid --${name} ${formatMs(ms)}: must be at least 1ms`);
  }
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new UsageError(`--request-header-timeout (${formatMs(headersTimeoutMs)}) must not exceed --request-body-timeout (${formatMs(requestTimeoutMs)}): the whole request includes its headers`);
  }
  return { maxBodyBytes, headersTimeoutMs: Math.round(headersTimeoutMs), requestTimeoutMs: Math.round(requestTimeoutMs) };
}

/** --dev: what a person needs to try the daemon: the CA file, the registrations to paste, a denial and a mutation to try. */
function printDevInstructions(io: CommandIO, url: string, certs: DevCertificates, loaded: readonly LoadedPlugin[]): void {
  const example = join(packageRoot, 'testdata', 'dev', 'requests', 'privileged-pod.json');
  io.stdout([
    `static-admissiond --dev is serving ${url} with a throw-away certificate; its CA is ${certs.caFile}`,
    '',
    'The ValidatingWebhookConfiguration (/validate) and MutatingWebhookConfiguration (/mutate) for a 1.36+ apiserver',
    '(static manifests) pointing at this daemon:',
    '---',
    renderRegistration(deriveRegistration(loaded, { url, caBundle: certs.caBundle })).trimEnd(),
    '---',
    '',
    'Send it a privileged pod (denied by testdata/dev/policies/deny-privileged.yaml):',
    `  curl -s --cacert ${certs.caFile} -H 'Content-Type: application/json' --data @${example} ${url}/validate`,
    '',
    'Send it a ConfigMap (given a team label by testdata/dev/mutating-policies/default-team-label.yaml; the patch is base64):',
    `  curl -s --cacert ${certs.caFile} -H 'Content-Type: application/json' --data @${join(packageRoot, 'testdata', 'dev', 'requests', 'configmap.json')} ${url}/mutate`,
    '',
  ].join('\n'));
}
