// Pieces every subcommand shares: the package root (for bundled testdata), the --dev admission setup, and the
// flags that select and read the admission configuration, so `serve` and `validate` cannot disagree.
import { join } from 'node:path';
import { readAdmissionConfiguration } from '../config/admission-config.js';
import type { AdmissionSetup } from '../config/admission-config.js';
import { defaultFeatureGates, parseFeatureGates } from '../config/feature-gates.js';
import type { FeatureGates } from '../config/feature-gates.js';
import type { FlagSpec, ParsedFlags } from './flags.js';
import { flagBool, flagString, UsageError } from './flags.js';
import { SubjectAccessReviewClient } from '../webhook/subject-access-review.js';
import { packageRoot } from './package-root.js';

export { packageRoot, packageVersion } from './package-root.js';

export const defaultAdmissionConfig = '/etc/kubernetes/admission/admission-config.yaml';

export const configFlags: readonly FlagSpec[] = [
  { name: 'admission-config', type: 'string', default: defaultAdmissionConfig, usage: 'AdmissionConfiguration file whose plugin configurations carry staticManifestsDir (as kube-apiserver --admission-control-config-file)' },
  { name: 'feature-gates', type: 'string', default: '', usage: 'comma-separated Gate=true|false: ManifestBasedAdmissionControlConfig, ExcludeAdmissionWebhookVirtualResources (both default true)' },
  { name: 'dev', type: 'boolean', default: false, usage: 'use the bundled example manifests under testdata/dev instead of --admission-config' },
];

/** --crd: the CustomResourceDefinitions custom resources are type-checked against (validate, serve, test). */
export const crdFlag: FlagSpec = {
  name: 'crd',
  type: 'string',
  default: '',
  usage: 'directory of CustomResourceDefinition manifests (`kubectl get crd -o yaml`): expressions are type-checked against their schemas too (built-in kinds always are)',
};

/** --authorization-kubeconfig: where `authorizer` checks go (serve, review; validate only to silence its warning). */
export const authorizationFlag: FlagSpec = {
  name: 'authorization-kubeconfig',
  type: 'string',
  default: '',
  usage: 'kubeconfig (its current context) of the kube-apiserver that answers the SubjectAccessReviews of CEL authorizer checks; without it a check is an evaluation error under the failure policy',
};

/** The SubjectAccessReview client of --authorization-kubeconfig, if set. Throws KubeconfigError. */
export function authorizationClientFrom(flags: ParsedFlags): SubjectAccessReviewClient | undefined {
  const path = flagString(flags, 'authorization-kubeconfig');
  return path === '' ? undefined : SubjectAccessReviewClient.fromKubeconfig(path);
}

/** The example manifests `--dev` serves: directories under testdata/dev, resolved to absolute paths at start. */
export function devAdmissionSetup(): AdmissionSetup {
  const base = join(packageRoot, 'testdata', 'dev');
  return {
    configFile: '(--dev)',
    plugins: [
      { plugin: 'ValidatingAdmissionPolicy', staticManifestsDir: join(base, 'policies'), kubeConfigFile: '' },
      { plugin: 'MutatingAdmissionPolicy', staticManifestsDir: join(base, 'mutating-policies'), kubeConfigFile: '' },
    ],
  };
}

/** --feature-gates; a value it cannot take is a usage error worded as pflag words a flag's Set error. */
export function featureGatesFrom(flags: ParsedFlags): FeatureGates {
  const spec = flagString(flags, 'feature-gates');
  if (spec === '') return defaultFeatureGates;
  try {
    return parseFeatureGates(spec);
  } catch (err) {
    throw new UsageError(`invalid argument ${JSON.stringify(spec)} for "--feature-gates" flag: ${(err as Error).message}`);
  }
}

export function admissionSetupFrom(flags: ParsedFlags, gates: FeatureGates): AdmissionSetup {
  if (flagBool(flags, 'dev') && !flags.set.has('admission-config')) return devAdmissionSetup();
  return readAdmissionConfiguration(flagString(flags, 'admission-config'), gates);
}

/** Where a subcommand writes; injectable so tests run commands in-process. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** aborts a long-running command (serve) */
  signal?: AbortSignal;
  /** standard input, read whole (review -) */
  readStdin?: () => Promise<Buffer>;
  /** resolves once stdout has taken what it was given (commands that write much wait on it: replay -o json) */
  drain?: () => Promise<void>;
  /** stderr is a terminal: progress may be drawn there */
  stderrIsTTY?: boolean;
}
