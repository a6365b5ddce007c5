// `static-admissiond registration --url https://127.0.0.1:9443 --ca-file F [--format static|api]`: prints the
// ValidatingWebhookConfiguration and MutatingWebhookConfiguration that point kube-apiserver at this daemon.
import { readFileSync } from 'node:fs';
import { caBundleFromPEM, defaultRegistrationTimeoutSeconds, RegistrationError, registrationFormats, renderRegistration } from '../server/registration.js';
import type { RegistrationFormat, RegistrationKind } from '../server/registration.js';
import type { CommandIO } from './common.js';
import { flagBool, flagNumber, flagString, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';

export const registrationFlags: readonly FlagSpec[] = [
  { name: 'url', type: 'string', default: 'https://127.0.0.1:9443', usage: 'base URL of the daemon\'s admission listener; /validate and /mutate are appended' },
  { name: 'ca-file', type: 'string', default: '', usage: 'PEM CA bundle that verifies the daemon\'s serving certificate (becomes caBundle); required' },
  { name: 'format', type: 'string', default: 'static', usage: 'static: names ending in .static.k8s.io, for the staticManifestsDir of a 1.36+ kube-apiserver; api: plain names, for kubectl apply on older apiservers' },
  { name: 'only', type: 'string', default: '', usage: 'print only the validating or the mutating configuration (each static one goes into its own directory)' },
  { name: 'timeout-seconds', type: 'int', default: defaultRegistrationTimeoutSeconds, usage: 'timeoutSeconds of both webhooks (1-30)' },
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

export function registration(argv: readonly string[], io: CommandIO): number {
  const flags = parseFlags(argv, registrationFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond registration --url https://127.0.0.1:9443 --ca-file F [--format static|api]', 'Prints the ValidatingWebhookConfiguration (/validate) and MutatingWebhookConfiguration (/mutate) that point kube-apiserver at this daemon, as YAML.', registrationFlags));
    return 0;
  }
  if (flags.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(flags.positional[0])}`);
  const format = flagString(flags, 'format');
  if (!(registrationFormats as readonly string[]).includes(format)) throw new UsageError(`invalid --format ${JSON.stringify(format)}: must be static or api`);
  const only = flagString(flags, 'only');
  if (only !== '' && only !== 'validating' && only !== 'mutating') throw new UsageError(`invalid --only ${JSON.stringify(only)}: must be validating or mutating`);
  const caFile = flagString(flags, 'ca-file');
  if (caFile === '') throw new UsageError('--ca-file is required: the CA that signed the serving certificate');
  try {
    let pem: Buffer;
    try {
      pem = readFileSync(caFile);
    } catch (err) {
      throw new RegistrationError(`--ca-file ${JSON.stringify(caFile)}: ${(err as Error).message}`);
    }
    io.stdout(renderRegistration({
      url: flagString(flags, 'url'),
      caBundle: caBundleFromPEM(pem, `--ca-file ${JSON.stringify(caFile)}`),
      format: format as RegistrationFormat,
      ...(only === '' ? {} : { only: only as RegistrationKind }),
      timeoutSeconds: flagNumber(flags, 'timeout-seconds'),
    }));
    return 0;
  } catch (err) {
    if (!(err instanceof RegistrationError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
}
