// `static-admissiond validate`: loads every configured directory exactly as the daemon's initial load does and
// reports, per plugin, the object counts and content hash, plus warnings; exit 1 on any error.
import { resolve } from 'node:path';
import { AdmissionConfigError } from '../config/admission-config.js';
import type { PluginSetup } from '../config/admission-config.js';
import { ManifestError } from '../manifest/errors.js';
import { initialLoadMessage, isPluginName, pluginKinds, pluginNames } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import { authorizerWarnings, manifestWarnings } from '../manifest/warnings.js';
import { describeIgnored, ignoredEntries } from '../manifest/ignored.js';
import type { IgnoredEntry } from '../manifest/ignored.js';
import { formatTypeCheckWarning, formatUnknownResources, typeCheckManifests } from '../manifest/type-check.js';
import type { SchemaSource } from '../cel/index.js';
import type { ManifestWarningOptions } from '../manifest/warnings.js';
import { loadSnapshotSync } from '../reload/pipeline.js';
import { admissionSetupFrom, authorizationClientFrom, authorizationFlag, configFlags, crdFlag, featureGatesFrom } from './common.js';
import { schemaSourceFor } from '../manifest/crds.js';
import type { CommandIO } from './common.js';
import { flagBool, flagString, helpFlag, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';
import { validateStaticManifestsDir } from '../config/admission-config.js';
import { shortenedPolicyAuditKeys } from '../admission/audit-keys.js';
import type { LoadedManifests } from '../manifest/load.js';
import { sideCoverage, sideOf, systemNamespaces } from '../registration/coverage.js';
import type { LoadedPlugin } from '../registration/coverage.js';
import { driftAgainst, RegistrationFileError } from '../registration/drift.js';
import { registrationUpdateCommands } from '../registration/keeper.js';
import { unreachableAdvice, unreachableMessage } from '../registration/unreachable.js';

export const validateFlags: readonly FlagSpec[] = [
  ...configFlags,
  crdFlag,
  { name: 'plugin', type: 'string', default: '', usage: `validate one directory as this plugin's (${pluginNames.join(', ')}); the directory is the positional argument` },
  { name: 'output', short: 'o', type: 'string', default: 'text', usage: 'text or json (one object on stdout, whatever the outcome)' },
  { name: 'registration', type: 'string', default: '', usage: 'the registration kube-apiserver uses (as printed by `registration`): exit 1 when loaded objects can match requests it does not send; a warning when it sends requests no loaded object can match' },
  { name: 'include-system-namespaces', type: 'boolean', default: false, usage: 'the registration sends kube-system and kube-node-lease too: no warning for policies that would lose coverage there' },
  { name: 'warnings-as-errors', type: 'boolean', default: false, usage: 'exit 1 when there are warnings' },
  { ...authorizationFlag, usage: 'the kubeconfig serve will answer CEL authorizer checks with (checked, and no warning about policies using authorizer)' },
  helpFlag,
];

export interface PluginReport {
  plugin: PluginName;
  dir: string;
  hash: string;
  counts: Record<string, number>;
  warnings: string[];
  // the fields below are left out when empty or zero, so that the documented shape is what a plain directory gives
  /** of `warnings`, how many are type-check warnings */
  typeCheckWarnings?: number;
  /** notes that are not warnings: resources matched that have no schema to type-check against */
  notes?: string[];
  /** directory entries the load skipped, and why */
  ignored?: IgnoredEntry[];
  /** editor droppings and hidden entries skipped, counted only */
  ignoredHidden?: number;
  /** audit annotation keys answered under a shortened name: in-tree key → the key this daemon answers */
  auditAnnotationKeys?: Record<string, string>;
}

export interface ValidateReport {
  plugins: PluginReport[];
  errors: Array<{ plugin: string; message: string }>;
  /** warnings of no one plugin (the registration sends for a side no plugin is configured for); absent when none */
  warnings?: string[];
}

interface RegistrationChecks {
  readonly registrationFile: string;
  /** named in the command that prints the registration again */
  readonly admissionConfig?: string;
  readonly includeSystemNamespaces: boolean;
  /** --authorization-kubeconfig was given: no warning about policies that use `authorizer` */
  readonly authorizationConfigured?: boolean;
  /** where kinds' schemas come from (built-ins, plus --crd) */
  readonly schemas?: SchemaSource;
}

/** Keys a policy's audit annotations are answered under, where they differ from `<policy>_<key>`. */
function shortenedAuditKeys(manifests: LoadedManifests): Record<string, string> | undefined {
  const shortened = manifests.family === 'policy' ? shortenedPolicyAuditKeys(manifests.policies) : [];
  return shortened.length === 0 ? undefined : Object.fromEntries(shortened);
}

function systemNamespaceWarnings(loaded: LoadedPlugin): string[] {
  const coverage = sideCoverage(sideOf(loaded.plugin), [loaded]);
  return coverage.objects.filter((o) => o.systemNamespaces).map((o) => `${o.owner} can match requests in ${systemNamespaces.join(' and ')}, which the default registration does not send to static-admissiond: it is not enforced there (in-tree it would be). Register with --include-system-namespaces to send them.`);
}

/** Uncovered objects are errors of their plugin; requests sent for nothing are warnings of the side's plugins. */
function registrationDrift(file: string, loaded: readonly LoadedPlugin[], options: ManifestWarningOptions, admissionConfig: string, report: ValidateReport): void {
  const drift = driftAgainst(file, loaded, loaded.map((l) => l.plugin), options);
  const { print, apply } = registrationUpdateCommands(file, admissionConfig, drift.printedWith);
  const fix = `Print the registration again (${print}) and apply it (${apply}).`;
  for (const [plugin, uncovered] of drift.uncovered) {
    for (const u of uncovered) {
      report.errors.push({ plugin, message: `${u.owner} can match requests the registration ${JSON.stringify(file)} does not send, so it is not enforced: ${u.missing.slice(0, 8).join('; ')}${u.missing.length > 8 ? `; and ${u.missing.length - 8} more` : ''}. ${fix}` });
    }
  }
  for (const u of drift.unreachable) {
    report.plugins.find((p) => p.plugin === u.plugin)?.warnings.push(`${unreachableMessage(u)} ${unreachableAdvice}`);
  }
  for (const webhooks of drift.excess.values()) {
    for (const w of webhooks) {
      const message = `the registration ${JSON.stringify(file)} sends requests no loaded ${w.side} object can match (webhook ${JSON.stringify(w.webhook)}): ${w.excess.slice(0, 8).join('; ')}${w.excess.length > 8 ? `; and ${w.excess.length - 8} more` : ''}. With static-admissiond stopped they are blocked for nothing. ${fix}`;
      // reported with the side's first configured plugin; a side with none configured has a report of its own
      const owner = report.plugins.find((p) => sideOf(p.plugin) === w.side);
      if (owner) owner.warnings.push(message);
      else (report.warnings ??= []).push(message);
    }
  }
}

function validatePlugins(setups: readonly PluginSetup[], warningOptions: ManifestWarningOptions, checks: RegistrationChecks): ValidateReport {
  const report: ValidateReport = { plugins: [], errors: [] };
  const loaded: LoadedPlugin[] = [];
  for (const { plugin, staticManifestsDir: dir } of setups) {
    try {
      const snapshot = loadSnapshotSync(plugin, dir);
      const kinds = pluginKinds[plugin];
      loaded.push({ plugin, manifests: snapshot.manifests });
      const warnings = [...manifestWarnings(kinds.primary, kinds.binding, snapshot.manifests, warningOptions), ...authorizerWarnings(snapshot.compiled, checks.authorizationConfigured === true)];
      if (!checks.includeSystemNamespaces) warnings.push(...systemNamespaceWarnings({ plugin, manifests: snapshot.manifests }));
      const typeCheck = typeCheckManifests(kinds.primary, snapshot.manifests, checks.schemas);
      warnings.push(...typeCheck.warnings.map(formatTypeCheckWarning));
      const ignored = ignoredEntries(dir);
      const notes = formatUnknownResources(typeCheck);
      const auditAnnotationKeys = shortenedAuditKeys(snapshot.manifests);
      report.plugins.push({
        plugin,
        dir,
        hash: snapshot.hash,
        counts: { ...snapshot.counts },
        warnings,
        ...(typeCheck.warnings.length > 0 ? { typeCheckWarnings: typeCheck.warnings.length } : {}),
        ...(notes.length > 0 ? { notes } : {}),
        ...(ignored.named.length > 0 ? { ignored: [...ignored.named] } : {}),
        ...(ignored.hidden > 0 ? { ignoredHidden: ignored.hidden } : {}),
        ...(auditAnnotationKeys ? { auditAnnotationKeys } : {}),
      });
    } catch (err) {
      if (!(err instanceof ManifestError)) throw err;
      report.errors.push({ plugin, message: initialLoadMessage(plugin, dir, err.message) });
    }
  }
  if (checks.registrationFile !== '' && report.errors.length === 0) {
    try {
      registrationDrift(checks.registrationFile, loaded, warningOptions, checks.admissionConfig ?? '', report);
    } catch (err) {
      if (!(err instanceof RegistrationFileError)) throw err;
      report.errors.push({ plugin: '', message: err.message });
    }
  }
  return report;
}

function renderText(report: ValidateReport, io: CommandIO): void {
  for (const p of report.plugins) {
    const counts = Object.entries(p.counts).map(([k, n]) => `${n} ${k}`).join(', ') || 'no objects';
    io.stdout(`${p.plugin}: ${p.dir}: ${counts}; hash ${p.hash === '' ? '""' : p.hash}\n`);
    for (const line of describeIgnored({ named: p.ignored ?? [], hidden: p.ignoredHidden ?? 0 })) io.stdout(`  ${line}\n`);
    for (const note of p.notes ?? []) io.stdout(`  note: ${note}\n`);
    for (const w of p.warnings) io.stderr(`warning: ${p.plugin}: ${w}\n`);
    for (const [key, answered] of Object.entries(p.auditAnnotationKeys ?? {})) {
      io.stdout(`  audit annotation ${key} is answered as ${answered} (over 63 characters once the webhook name is added; the apiserver records <webhook name>/${answered})\n`);
    }
  }
  for (const w of report.warnings ?? []) io.stderr(`warning: ${w}\n`);
  for (const e of report.errors) io.stderr(`error: ${e.plugin === '' ? '' : `${e.plugin}: `}${e.message}\n`);
}

export async function validate(argv: readonly string[], io: CommandIO): Promise<number> {
  const flags = parseFlags(argv, validateFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond validate [--admission-config F | --plugin NAME DIR] [-o json]', 'Loads manifest directories exactly as the daemon would and reports counts, content hashes and warnings. Exit 0 when valid, 1 on an error (or a warning with --warnings-as-errors), 2 on a usage error.', validateFlags));
    return 0;
  }
  const output = flagString(flags, 'output');
  if (output !== 'text' && output !== 'json') throw new UsageError(`invalid --output ${JSON.stringify(output)}: must be text or json`);
  let report: ValidateReport;
  const checks: RegistrationChecks = { registrationFile: flagString(flags, 'registration'), admissionConfig: flagString(flags, 'admission-config'), includeSystemNamespaces: flagBool(flags, 'include-system-namespaces') };
  try {
    const gates = featureGatesFrom(flags);
    // the kubeconfig is read as serve reads it, so that a broken one is an error here too
    const authorization = authorizationClientFrom(flags);
    await authorization?.close();
    const authorizationConfigured = authorization !== undefined;
    const schemas = schemaSourceFor(flagString(flags, 'crd'));
    const plugin = flagString(flags, 'plugin');
    if (plugin !== '') {
      if (!isPluginName(plugin)) throw new UsageError(`unknown plugin ${JSON.stringify(plugin)}: must be one of ${pluginNames.join(', ')}`);
      if (flags.positional.length !== 1) throw new UsageError('validate --plugin NAME takes exactly one directory');
      // an empty path is refused by the loader (manifest.LoadFiles), never resolved to the working directory
      const dir = flags.positional[0] === '' ? '' : resolve(flags.positional[0]!);
      validateStaticManifestsDir(dir, gates);
      report = validatePlugins([{ plugin, staticManifestsDir: dir, kubeConfigFile: '' }], { excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources }, { ...checks, authorizationConfigured, schemas });
    } else {
      if (flags.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(flags.positional[0])}: use --plugin NAME DIR to validate one directory`);
      report = validatePlugins(admissionSetupFrom(flags, gates).plugins, { excludeWebhookVirtualResources: gates.ExcludeAdmissionWebhookVirtualResources }, { ...checks, authorizationConfigured, schemas });
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (!(err instanceof AdmissionConfigError) && !(err instanceof Error)) throw err;
    report = { plugins: [], errors: [{ plugin: '', message: err.message }] };
  }
  if (output === 'json') io.stdout(JSON.stringify(report) + '\n');
  else renderText(report, io);
  const warned = (report.warnings ?? []).length > 0 || report.plugins.some((p) => p.warnings.length > 0);
  return report.errors.length > 0 || (warned && flagBool(flags, 'warnings-as-errors')) ? 1 : 0;
}
