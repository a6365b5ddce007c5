// `static-admissiond serve`: loads every configured plugin's manifests synchronously (exit 1 on failure, before any
// listener opens), then keeps them current and serves health and metrics until the signal aborts.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { AdmissionConfigError } from '../config/admission-config.js';
import { startHealthServer } from '../health/server.js';
import { defaultPoolThreads, defaultWorkerMaxOldSpaceMb, minWorkerMaxOldSpaceMb, PolicyPool } from '../admission/pool/pool.js';
import { createWebhookPlugins } from '../admission/webhooks/plugins.js';
import type { WebhookPlugins } from '../admission/webhooks/plugins.js';
import { generateDevCertificates } from '../server/dev-cert.js';
import type { DevCertificates } from '../server/dev-cert.js';
import { createRegistrationMetrics } from '../metrics/registration.js';
import type { LoadedPlugin } from '../registration/coverage.js';
import { RegistrationKeeper } from '../registration/keeper.js';
import { caBundleFromPEM, deriveRegistration } from '../registration/objects.js';
import { renderRegistration } from '../registration/render.js';
import { readFileSync } from 'node:fs';
import { defaultAdmissionServerLimits, formatMs } from '../server/limits.js';
import type { AdmissionServerLimits } from '../server/limits.js';
import { startAdmissionServer } from '../server/server.js';
import type { AdmissionServer } from '../server/server.js';
import { join } from 'node:path';
import type { HealthCheck } from '../health/checks.js';
import { apiServerIDHash, defaultAPIServerID } from '../identity/apiserver-id.js';
import { createLogger } from '../log/logger.js';
import type { LogFormat } from '../log/logger.js';
import { createReloadMetrics } from '../metrics/reload.js';
import { createTypeCheckMetrics } from '../metrics/type-check.js';
import type { SchemaSource } from '../cel/index.js';
import { schemaSourceFor } from '../manifest/crds.js';
import { ManifestError } from '../manifest/errors.js';
import { reportLoad, reportReload } from './load-report.js';
import type { LoadReportOptions } from './load-report.js';
import { InitialLoadError, ManifestSource } from '../reload/manifest-source.js';
import { Shadow } from '../shadow/shadow.js';
import { createAdmissionPaths } from '../review/chain.js';
import { admissionSetupFrom, authorizationClientFrom, authorizationFlag, configFlags, crdFlag, featureGatesFrom, packageRoot, packageVersion } from './common.js';
import type { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import type { CommandIO } from './common.js';
import { flagBool, flagNumber, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec, ParsedFlags } from './flags.js';

export const serveFlags: readonly FlagSpec[] = [
  ...configFlags,
  crdFlag,
  { name: 'bind-address', type: 'string', default: '127.0.0.1', usage: 'address of the HTTPS admission listener' },
  { name: 'secure-port', type: 'int', default: 9443, usage: 'port of the HTTPS admission listener (0 picks a free one)' },
  { name: 'tls-cert-file', type: 'string', default: '', usage: 'serving certificate (PEM); reloaded when it changes, the last good pair kept' },
  { name: 'tls-private-key-file', type: 'string', default: '', usage: 'serving private key (PEM) matching --tls-cert-file' },
  { name: 'client-ca-file', type: 'string', default: '', usage: 'when set, clients (the apiserver) must present a certificate signed by this CA' },
  { name: 'health-bind-address', type: 'string', default: '127.0.0.1:9444', usage: 'host:port of the plain-HTTP /metrics, /livez, /readyz, /healthz listener' },
  { name: 'apiserver-id', type: 'string', default: '', usage: 'the co-located kube-apiserver\'s ID, source of the apiserver_id_hash metric label', defaultText: 'computed from the hostname as kube-apiserver does' },
  { name: 'max-request-body-bytes', type: 'int', default: defaultAdmissionServerLimits.maxBodyBytes, usage: 'largest admission request body accepted (after gunzip), larger gets 413: two objects of kube-apiserver\'s 3 MiB request limit (an UPDATE carries object and oldObject) and 1 MiB for the rest' },
  { name: 'request-header-timeout', type: 'duration', default: formatMs(defaultAdmissionServerLimits.headersTimeoutMs), usage: 'time a connection has to send a request\'s headers (408 after); shorter than the webhook timeoutSeconds the apiserver gives a call' },
  { name: 'request-body-timeout', type: 'duration', default: formatMs(defaultAdmissionServerLimits.requestTimeoutMs), usage: 'time a request has to arrive in full, body included, from its first byte (408 after); at least --request-header-timeout' },
  { name: 'reload-interval', type: 'duration', default: '1m', usage: 'polling fallback period for manifest directories (and --registration-file)' },
  { name: 'workers', type: 'int', default: defaultPoolThreads(), usage: 'policy evaluation worker threads; 0 evaluates on the main thread', defaultText: `CPUs - 1, at least 1: ${defaultPoolThreads()} here` },
  { name: 'worker-max-old-space-size', type: 'int', default: defaultWorkerMaxOldSpaceMb, usage: 'MiB of old-generation heap each policy worker may use; a worker reaching it is replaced and its requests are answered by their failure policy (the main thread\'s own limit is node\'s --max-old-space-size, in NODE_OPTIONS)' },
  { name: 'registration-file', type: 'string', default: '', usage: 'the registration kube-apiserver uses (as printed by `registration`), watched like the manifests: at every reload and every change of it, log, and count in static_admissiond_registration_uncovered_objects and static_admissiond_registration_excess_rules, the loaded objects that can match requests it does not send and the requests it sends that no loaded object can match' },
  { name: 'write-registration', type: 'string', default: '', usage: 'kube-apiserver 1.36+: keep a static registration in DIR/validating and DIR/mutating (the apiserver\'s ValidatingAdmissionWebhook and MutatingAdmissionWebhook staticManifestsDir) in step with the loaded manifests, rewritten atomically after each good reload only' },
  { name: 'registration-url', type: 'string', default: '', usage: 'with --write-registration: the URL the apiserver calls', defaultText: 'https://<bind-address>:<secure-port>' },
  { name: 'registration-ca-file', type: 'string', default: '', usage: 'with --write-registration: PEM CA bundle that verifies the serving certificate', defaultText: 'the --dev CA' },
  { name: 'include-system-namespaces', type: 'boolean', default: false, usage: 'with --write-registration: send kube-system and kube-node-lease too' },
  { name: 'shadow-admission-config', type: 'string', default: '', usage: 'a candidate AdmissionConfiguration whose policies are loaded and watched beside the enforced ones and decided on every answered request, after the answer went out: differences are counted in static_admissiond_shadow_decisions_total and logged, answers never change' },
  authorizationFlag,
  { name: 'logging-format', type: 'string', default: 'text', usage: 'log format on stderr: text (klog) or json' },
  { name: 'v', short: 'v', type: 'int', default: 0, usage: 'log verbosity' },
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

export async function serve(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, serveFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond serve [flags]', 'Runs the daemon: loads and watches static admission manifests, answers /validate and /mutate, serves health and metrics. Exit 0 after SIGTERM or SIGINT, 1 when it cannot start, 2 on a usage error.', serveFlags));
    return 0;
  }
  const format = flagString(flags, 'logging-format');
  if (format !== 'text' && format !== 'json') throw new UsageError(`invalid --logging-format ${JSON.stringify(format)}: must be text or json`);
  const log = createLogger({ format: format as LogFormat, verbosity: flagNumber(flags, 'v'), write: (line) => io.stderr(line + '\n'), source: 'serve' });

  const dev = flagBool(flags, 'dev');
  const certFile = flagString(flags, 'tls-cert-file');
  const keyFile = flagString(flags, 'tls-private-key-file');
  if (!dev && (certFile === '' || keyFile === '')) {
    throw new UsageError('--tls-cert-file and --tls-private-key-file are required: the apiserver calls this daemon over HTTPS (or run with --dev for a throw-away certificate)');
  }
  const workers = flagNumber(flags, 'workers');
  if (!Number.isInteger(workers) || workers < 0) throw new UsageError(`invalid --workers ${workers}: must be 0 (evaluate on the main thread) or more`);
  const workerHeapMb = flagNumber(flags, 'worker-max-old-space-size');
  if (!Number.isInteger(workerHeapMb) || workerHeapMb < minWorkerMaxOldSpaceMb) throw new UsageError(`invalid --worker-max-old-space-size ${workerHeapMb}: must be at least ${minWorkerMaxOldSpaceMb} (MiB)`);
  const limits = listenerLimits(flags);
  let setup;
  let gates;
  try {
    gates = featureGatesFrom(flags);
    setup = admissionSetupFrom(flags, gates);
  } catch (err) {
    if (err instanceof AdmissionConfigError || err instanceof Error) {
      log.error(err, 'Invalid admission configuration', { config: flagString(flags, 'admission-config') });
      return 1;
    }
    throw err;
  }
  const apiServerID = flags.set.has('apiserver-id') ? flagString(flags, 'apiserver-id') : defaultAPIServerID();
  log.info('Starting static-admissiond', { version: packageVersion(), admissionConfig: setup.configFile, apiServerID, plugins: setup.plugins.map((p) => p.plugin) });

  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({ name: 'static_admissiond_build_info', help: 'A metric with a constant 1 value labelled by the version of static-admissiond and of Node.js.', labelNames: ['version', 'node_version'] as const, registers: [registry] })
    .set({ version: packageVersion(), node_version: process.version }, 1);
  const metrics = createReloadMetrics(registry, apiServerIDHash(apiServerID));

  const sources = setup.plugins.map((p) => new ManifestSource({
    plugin: p.plugin,
    dir: p.staticManifestsDir,
    intervalMs: flagNumber(flags, 'reload-interval'),
    metrics,
    logger: log.with('reload'),
  }));
  let schemas: SchemaSource;
  try {
    schemas = schemaSourceFor(flagString(flags, 'crd'));
  } catch (err) {
    if (!(err instanceof ManifestError)) throw err;
    log.error(err, 'Failed to read the CustomResourceDefinitions', { crd: flagString(flags, 'crd') });
    return 1;
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
        return 1;
      }
      throw err;
    }
  }

  // Where `authorizer` checks go: read now, an unusable kubeconfig fails startup (without it, checks fail as
  // evaluation errors under each policy's failure policy).
  let authorization: SubjectAccessReviewClient | undefined;
  try {
    authorization = authorizationClientFrom(flags);
  } catch (err) {
    log.error(err, 'Failed to load the authorization kubeconfig', { kubeconfig: flagString(flags, 'authorization-kubeconfig') });
    return 1;
  }
  const authorizationOption = authorization === undefined ? {} : { authorization };

  // The static webhooks' plugins: their kubeconfig credentials are read now (an unreadable one fails startup).
  let webhookPlugins: WebhookPlugins;
  try {
    webhookPlugins = createWebhookPlugins({
      plugins: setup.plugins,
      snapshot: (plugin) => sources.find((s) => s.plugin === plugin)?.current(),
      registry,
      logger: log.with('webhook'),
      excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
      ...authorizationOption,
    });
  } catch (err) {
    await authorization?.close();
    log.error(err, 'Failed to load the webhook kubeconfig', { plugins: setup.plugins.filter((p) => p.kubeConfigFile !== '').map((p) => `${p.plugin}=${p.kubeConfigFile}`) });
    return 1;
  }

  const policies = sources.find((s) => s.plugin === 'ValidatingAdmissionPolicy');
  const mutatingPolicies = sources.find((s) => s.plugin === 'MutatingAdmissionPolicy');
  const pooled = [policies, mutatingPolicies].filter((s) => s !== undefined);
  // The policy pool: the workers compile the current snapshots now, and every reloaded one as it comes.
  const pool = pooled.length > 0 && workers > 0
    ? new PolicyPool({
      threads: workers,
      snapshots: pooled.flatMap((s) => s.current() ?? []),
      resourceLimits: { maxOldGenerationSizeMb: workerHeapMb },
      registry,
      logger: log.with('policy-pool'),
      authorizationKubeconfig: flagString(flags, 'authorization-kubeconfig'),
    })
    : undefined;
  if (pool) {
    for (const source of pooled) {
      source.on('reload', (event) => {
        const snapshot = source.current();
        if (event.outcome === 'reloaded' && snapshot) pool.publish(snapshot);
      });
    }
    // Before any listener opens: once ready, every worker holds the compiled policies (later snapshots are compiled
    // as they come; until every worker has one, its requests are evaluated on the main thread).
    try {
      await pool.ready(120_000);
    } catch (err) {
      log.error(err, 'Failed to start the policy worker pool', { workers });
      await pool.close();
      return 1;
    }
    log.info('Started the policy worker pool', { workers });
  }
  // --shadow-admission-config: never fails startup, whatever the candidate holds
  const shadowConfig = flagString(flags, 'shadow-admission-config');
  const shadow = shadowConfig === '' ? undefined : new Shadow({
    configFile: shadowConfig, gates, enforced: sources, intervalMs: flagNumber(flags, 'reload-interval'), registry,
    logger: log.with('shadow'), authorizationKubeconfig: flagString(flags, 'authorization-kubeconfig'),
  });
  shadow?.start();
  // POST /validate and /mutate, built as `review` and `test` build them
  const paths = createAdmissionPaths({
    snapshot: (plugin) => sources.find((s) => s.plugin === plugin)?.current(),
    webhooks: webhookPlugins,
    pool,
    registry,
    ...authorizationOption,
  });

  let shuttingDown = false;
  let admissionListening = false;
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const readyz: HealthCheck[] = [
    ping,
    ...sources.map((s) => ({ name: `manifests-loaded/${s.plugin}`, check: () => (s.hasSynced() ? undefined : 'initial load not complete') })),
    ...(pool ? [{ name: 'policy-workers', check: () => (pool.threads > 0 ? undefined : 'no policy worker thread is running') }] : []),
    // ready only once the apiserver can reach us: systemd orders the kubelet (and so the apiserver) after /readyz
    { name: 'admission-listener', check: () => (admissionListening ? undefined : 'the HTTPS admission listener is not serving yet') },
    { name: 'shutdown', check: () => (shuttingDown ? 'process is shutting down' : undefined) },
    ...(shadow ? [shadow.readiness] : []),
  ];
  let health;
  try {
    health = await startHealthServer({ bindAddress: flagString(flags, 'health-bind-address'), registry, livez: () => [ping], readyz: () => readyz });
  } catch (err) {
    log.error(err, 'Failed to start the health listener', { address: flagString(flags, 'health-bind-address') });
    await shadow?.close();
    await pool?.close();
    return 1;
  }
  log.info('Serving health and metrics', { url: health.url });

  let devCerts: DevCertificates | undefined;
  let admission: AdmissionServer;
  try {
    devCerts = dev && certFile === '' ? await generateDevCertificates() : undefined;
    admission = await startAdmissionServer({
      bindAddress: flagString(flags, 'bind-address'),
      port: flagNumber(flags, 'secure-port'),
      tls: {
        certFile: devCerts?.certFile ?? certFile,
        keyFile: devCerts?.keyFile ?? keyFile,
        ...(flagString(flags, 'client-ca-file') === '' ? {} : { clientCAFile: flagString(flags, 'client-ca-file') }),
      },
      routes: {
        '/validate': { reviewer: paths['/validate'] },
        '/mutate': { reviewer: paths['/mutate'] },
      },
      ...(shadow ? { afterAnswer: (endpoint: string, body: Buffer, answer: Uint8Array) => shadow.observe(endpoint, body, answer) } : {}),
      limits,
      logger: log.with('server'),
      registry,
    });
  } catch (err) {
    log.error(err, 'Failed to start the admission listener', { address: `${flagString(flags, 'bind-address')}:${flagNumber(flags, 'secure-port')}` });
    await health.close();
    await shadow?.close();
    await pool?.close();
    devCerts?.cleanup();
    return 1;
  }
  admissionListening = true;
  log.info('Serving admission webhooks', { url: admission.url });
  const loaded = (): LoadedPlugin[] => sources.flatMap((s) => {
    const snapshot = s.current();
    return snapshot ? [{ plugin: s.plugin, manifests: snapshot.manifests }] : [];
  });
  if (devCerts) printDevInstructions(io, admission.url, devCerts, loaded());

  // The registration: drift against the one in use, and the static one kept in step (after good swaps only).
  let keeper: RegistrationKeeper | undefined;
  const registrationFile = flagString(flags, 'registration-file');
  const writeDir = flagString(flags, 'write-registration');
  if (registrationFile !== '' || writeDir !== '') {
    try {
      const caFile = flagString(flags, 'registration-ca-file');
      if (writeDir !== '' && caFile === '' && !devCerts) throw new UsageError('--write-registration needs --registration-ca-file: the CA that signed the serving certificate');
      keeper = new RegistrationKeeper({
        loaded,
        plugins: setup.plugins.map((p) => p.plugin),
        admissionConfig: setup.configFile,
        ...(registrationFile === '' ? {} : { registrationFile }),
        ...(writeDir === '' ? {} : { writeDir }),
        registration: {
          url: flagString(flags, 'registration-url') || admission.url,
          caBundle: writeDir === '' ? '' : caFile !== '' ? caBundleFromPEM(readFileSync(caFile), `--registration-ca-file ${JSON.stringify(caFile)}`) : devCerts!.caBundle,
          includeSystemNamespaces: flagBool(flags, 'include-system-namespaces'),
          excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
        },
        metrics: createRegistrationMetrics(registry),
        logger: log.with('registration'),
      });
      keeper.start();
    } catch (err) {
      log.error(err, 'Failed to set up the registration checks', { registrationFile, writeRegistration: writeDir });
      await admission.close();
      await webhookPlugins.close();
      await health.close();
      await shadow?.close();
      await pool?.close();
      devCerts?.cleanup();
      return 1;
    }
    for (const source of sources) source.on('reload', (event) => keeper?.onReload(event.outcome === 'reloaded'));
  }

  const stop = new AbortController();
  const loops = [...sources.map((s) => s.run(stop.signal)), ...(keeper ? [keeper.watch(stop.signal, flagNumber(flags, 'reload-interval'))] : [])];
  if (shadow) loops.push(shadow.run(stop.signal));
  await new Promise<void>((resolve) => {
    if (!io.signal || io.signal.aborted) return resolve();
    io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  shuttingDown = true;
  log.info('Shutting down');
  // stop taking admission requests and drain them first, then the reload loops, then health
  await admission.close();
  await webhookPlugins.close();
  await authorization?.close();
  stop.abort();
  await Promise.all(loops);
  await shadow?.close();
  await pool?.close();
  await health.close();
  devCerts?.cleanup();
  return 0;
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
