// `static-admissiond registration --admission-config F --url https://127.0.0.1:9443 --ca-file F`: loads the
// configured manifests exactly as `validate` and `serve` do and prints the webhook registration derived from them.
// The api format is printed for a known kube-apiserver version only: --kube-version, or read with --kubeconfig.
import { readFileSync } from 'node:fs';
import { AdmissionConfigError } from '../config/admission-config.js';
import type { PluginSetup } from '../config/admission-config.js';
import { ManifestError } from '../manifest/errors.js';
import { initialLoadMessage } from '../manifest/plugins.js';
import type { LoadedPlugin } from '../registration/coverage.js';
import { APIServerError, readAPIServer } from '../registration/apiserver.js';
import { defaultBreakGlassGroup, defaultRegistrarGroup, guardAPIVersion } from '../registration/guard.js';
import { caBundleFromPEM, defaultRegistrationTimeoutSeconds, defaultRegistrationURL, deriveRegistration, RegistrationError, registrationFormats } from '../registration/objects.js';
import type { RegistrationFormat } from '../registration/objects.js';
import { renderRegistration } from '../registration/render.js';
import { unreachableAdvice, unreachableMessage } from '../registration/unreachable.js';
import { formatKubeVersion, KubeVersionError, parseKubeVersion } from '../registration/version.js';
import type { KubeVersion } from '../registration/version.js';
import { loadSnapshotSync } from '../reload/pipeline.js';
import { admissionSetupFrom, configFlags, featureGatesFrom } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, flagNumber, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';

export const registrationShapeFlags: readonly FlagSpec[] = [
  { name: 'kube-version', type: 'string', default: '', usage: 'the kube-apiserver version the api format is for (required unless --kubeconfig reads it): 1.28+ keeps the review resources out with webhook matchConditions, older ones with enumerated rules; the guard policy is v1 from 1.30, v1beta1 on 1.28-1.29' },
  { name: 'include-system-namespaces', type: 'boolean', default: false, usage: 'send kube-system and kube-node-lease too (by default they are left out, so a stopped daemon cannot block the control plane; the output names the policies that lose coverage)' },
  { name: 'break-glass-group', type: 'string', default: defaultBreakGlassGroup, usage: 'api format: members of this group may still change or delete the registration (see README, "Break glass")' },
  { name: 'registrar-group', type: 'string', default: defaultRegistrarGroup, usage: 'api format: members of this group may update (never delete) the registration; every apply after the first is made as them (see README, "Updating the registration")' },
  { name: 'timeout-seconds', type: 'int', default: defaultRegistrationTimeoutSeconds, usage: 'timeoutSeconds of the webhooks (1-30)' },
];

export const registrationFlags: readonly FlagSpec[] = [
  ...configFlags,
  { name: 'url', type: 'string', default: defaultRegistrationURL, usage: 'base URL of the daemon\'s admission listener; /validate and /mutate are appended' },
  { name: 'ca-file', type: 'string', default: '', usage: 'PEM CA bundle that verifies the daemon\'s serving certificate (becomes caBundle); required' },
  { name: 'format', type: 'string', default: 'static', usage: 'static: names ending in .static.k8s.io, for the staticManifestsDir of a 1.36+ kube-apiserver; api: plain names and a guard policy, for kubectl apply on older apiservers' },
  { name: 'kubeconfig', type: 'string', default: '', usage: 'api format: read the kube-apiserver version (/version), and whether it serves the guard policy, from the current context of this kubeconfig' },
  { name: 'only', type: 'string', default: '', usage: 'print only the validating or the mutating configuration (each static one goes into its own directory)' },
  ...registrationShapeFlags,
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

/** Loads every configured plugin as the daemon's initial load does; the first failure is a ManifestError with upstream's wrapper. */
export function loadConfiguredPlugins(setups: readonly PluginSetup[]): LoadedPlugin[] {
  return setups.map(({ plugin, staticManifestsDir: dir }) => {
    try {
      return { plugin, manifests: loadSnapshotSync(plugin, dir).manifests };
    } catch (err) {
      if (err instanceof ManifestError) throw new ManifestError(initialLoadMessage(plugin, dir, err.message), { cause: err });
      throw err;
    }
  });
}

/**
 * The kube-apiserver version the api format is printed for: --kube-version, or read with --kubeconfig (then also
 * checked to serve the guard policy). Never guessed: a guess can print objects the apiserver cannot take.
 */
async function targetVersion(flags: ReturnType<typeof parseFlags>, version: KubeVersion | undefined): Promise<KubeVersion> {
  const given = flagString(flags, 'kube-version');
  const kubeconfig = flagString(flags, 'kubeconfig');
  if (kubeconfig === '') {
    if (version === undefined) {
      throw new UsageError('--format api needs the version of the kube-apiserver it is for, and it has no default: give --kube-version (for example --kube-version 1.28) or --kubeconfig to read it from the apiserver\'s /version');
    }
    return version;
  }
  const facts = await readAPIServer(kubeconfig);
  if (version !== undefined && (version.major !== facts.version.major || version.minor !== facts.version.minor)) {
    throw new RegistrationError(`--kube-version ${given} but the apiserver of --kubeconfig ${JSON.stringify(kubeconfig)} is ${facts.gitVersion}: give one of them`);
  }
  if (facts.guardServed === false) {
    throw new RegistrationError(`kube-apiserver ${facts.gitVersion} does not serve ValidatingAdmissionPolicy in ${guardAPIVersion(facts.version)}, so the registration's guard could not be applied: ${formatKubeVersion(facts.version)} needs --feature-gates=ValidatingAdmissionPolicy=true --runtime-config=admissionregistration.k8s.io/v1beta1=true on the apiserver`);
  }
  return facts.version;
}

export async function registration(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, registrationFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond registration --admission-config F --url https://127.0.0.1:9443 --ca-file F [--format static | --format api (--kube-version V | --kubeconfig K)]',
      'Loads the configured manifests as the daemon does and prints the ValidatingWebhookConfiguration (/validate) and MutatingWebhookConfiguration (/mutate) that send the daemon exactly what they can match, as YAML. With --format api it also prints, first, a ValidatingAdmissionPolicy guarding the registration. Exit 0 printed, 1 on invalid configuration, manifests or CA file or an apiserver that cannot take the registration, 2 on a usage error.', registrationFlags));
    return 0;
  }
  if (flags.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(flags.positional[0])}`);
  const format = flagString(flags, 'format');
  if (!(registrationFormats as readonly string[]).includes(format)) throw new UsageError(`invalid --format ${JSON.stringify(format)}: must be static or api`);
  const only = flagString(flags, 'only');
  if (only !== '' && only !== 'validating' && only !== 'mutating') throw new UsageError(`invalid --only ${JSON.stringify(only)}: must be validating or mutating`);
  const caFile = flagString(flags, 'ca-file');
  if (caFile === '') throw new UsageError('--ca-file is required: the CA that signed the serving certificate');
  const breakGlassGroup = flagString(flags, 'break-glass-group');
  const registrarGroup = flagString(flags, 'registrar-group');
  if (breakGlassGroup === '') throw new UsageError('--break-glass-group may not be empty');
  if (registrarGroup === '') throw new UsageError('--registrar-group may not be empty');
  let givenVersion: KubeVersion | undefined;
  try {
    givenVersion = flagString(flags, 'kube-version') === '' ? undefined : parseKubeVersion(flagString(flags, 'kube-version'));
  } catch (err) {
    if (err instanceof KubeVersionError) throw new UsageError(err.message);
    throw err;
  }
  try {
    const kubeVersion = format === 'api' ? await targetVersion(flags, givenVersion) : undefined;
    let pem: Buffer;
    try {
      pem = readFileSync(caFile);
    } catch (err) {
      throw new RegistrationError(`--ca-file ${JSON.stringify(caFile)}: ${(err as Error).message}`);
    }
    const gates = featureGatesFrom(flags);
    const loaded = loadConfiguredPlugins(admissionSetupFrom(flags, gates).plugins);
    const derived = deriveRegistration(loaded, {
      url: flagString(flags, 'url'),
      caBundle: caBundleFromPEM(pem, `--ca-file ${JSON.stringify(caFile)}`),
      format: format as RegistrationFormat,
      ...(only === '' ? {} : { only }),
      timeoutSeconds: flagNumber(flags, 'timeout-seconds'),
      ...(kubeVersion === undefined ? {} : { kubeVersion }),
      includeSystemNamespaces: flagBool(flags, 'include-system-namespaces'),
      breakGlassGroup,
      registrarGroup,
      excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources,
    });
    io.stdout(renderRegistration(derived));
    // the comment says it too, but a registration piped into a file is rarely read before it is applied
    const unreachable = derived.sides.flatMap((s) => s.coverage.unreachable);
    for (const u of unreachable) io.stderr(`warning: ${unreachableMessage(u)}\n`);
    if (unreachable.length > 0) io.stderr(`warning: ${unreachableAdvice}\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof RegistrationError) && !(err instanceof ManifestError) && !(err instanceof AdmissionConfigError) && !(err instanceof APIServerError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
}
