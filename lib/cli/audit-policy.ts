// `static-admissiond audit-policy`: prints the audit.k8s.io/v1 Policy that records what `replay` needs of a manifest
// set (lib/replay/audit-policy.ts). Exit 0; 1 when the configuration or a manifest directory is invalid; 2 on bad flags.
import { AdmissionConfigError } from '../config/admission-config.js';
import { ManifestError } from '../manifest/errors.js';
import { auditPolicyFor, renderAuditPolicy } from '../replay/audit-policy.js';
import { admissionSetupFrom, configFlags, featureGatesFrom } from './common.js';
import type { CommandIO } from './common.js';
import { flagBool, parseFlags, UsageError, usageText } from './flags.js';
import type { FlagSpec } from './flags.js';
import { loadConfiguredPlugins } from './registration.js';

export const auditPolicyFlags: readonly FlagSpec[] = [
  ...configFlags,
  { name: 'help', short: 'h', type: 'boolean', default: false, usage: 'show this help' },
];

export function auditPolicy(argv: readonly string[], io: CommandIO): number {
  const flags = parseFlags(argv, auditPolicyFlags);
  if (flagBool(flags, 'help')) {
    io.stdout(usageText('static-admissiond audit-policy --admission-config CANDIDATE',
      'Prints the audit.k8s.io/v1 Policy (for kube-apiserver --audit-policy-file) that records, at level RequestResponse, every write of the resources the manifest set can match, and nothing else: the input `replay` needs. Rules are first-match: to add them to an existing policy, put them (without the final level: None) before its rules. Exit 0 printed, 1 on an invalid configuration or manifests, 2 on a usage error.', auditPolicyFlags));
    return 0;
  }
  if (flags.positional.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(flags.positional[0])}`);
  try {
    const gates = featureGatesFrom(flags);
    const loaded = loadConfiguredPlugins(admissionSetupFrom(flags, gates).plugins);
    io.stdout(renderAuditPolicy(auditPolicyFor(loaded, gates.ExcludeAdmissionWebhookVirtualResources)));
    return 0;
  } catch (err) {
    if (!(err instanceof ManifestError) && !(err instanceof AdmissionConfigError)) throw err;
    io.stderr(`error: ${err.message}\n`);
    return 1;
  }
}
