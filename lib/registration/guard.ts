// The REST ValidatingAdmissionPolicy printed with `registration --format api`: what a webhook cannot guard because
// the apiserver never sends it admission-configuration objects (IsExemptAdmissionConfigurationResource).
//
// - UPDATE and DELETE of the daemon's own webhook configurations are denied unless the user is in the break-glass
//   group, so `kubectl delete validatingwebhookconfiguration static-admissiond` cannot switch every policy off.
// - Webhook configuration names ending in ".static.k8s.io" are refused, as KEP-5793 suggests for apiservers without
//   the ManifestBasedAdmissionControlConfig gate (pkg/apis/admissionregistration/validation: that suffix is reserved).
//
// Upstream exempts ValidatingAdmissionPolicy, its binding, MutatingAdmissionPolicy and its binding from every
// admission policy and webhook (S/admission/plugin/policy/generic/plugin.go, rules.go): this policy cannot guard
// itself, its binding, or those kinds' names. The registration's comments say so.
import { staticConfigSuffix as staticSuffix } from '../manifest/load.js';
import { atLeast } from './version.js';
import type { KubeVersion } from './version.js';

export const defaultBreakGlassGroup = 'static-admissiond:break-glass';
export const guardPolicyName = 'static-admissiond-guard';

export interface GuardOptions {
  /** the configuration names to protect (ValidatingWebhookConfiguration and MutatingWebhookConfiguration) */
  readonly configurationName: string;
  readonly breakGlassGroup: string;
  readonly kubeVersion: KubeVersion;
}

const quote = (s: string): string => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** The guard policy's API version for an apiserver: v1 from 1.30, v1beta1 on 1.28–1.29, none before. */
export function guardAPIVersion(v: KubeVersion): string | undefined {
  if (atLeast(v, 1, 30)) return 'admissionregistration.k8s.io/v1';
  if (atLeast(v, 1, 28)) return 'admissionregistration.k8s.io/v1beta1';
  return undefined;
}

/** The policy and its binding, or nothing for an apiserver that has no ValidatingAdmissionPolicy it could use. */
export function guardObjects(options: GuardOptions): Array<Record<string, unknown>> {
  const apiVersion = guardAPIVersion(options.kubeVersion);
  if (apiVersion === undefined) return [];
  const group = quote(options.breakGlassGroup);
  const name = quote(options.configurationName);
  const policy = {
    apiVersion,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: guardPolicyName },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{
          apiGroups: ['admissionregistration.k8s.io'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
        }],
      },
      validations: [
        {
          // request.userInfo.groups is absent for a user with no groups: has() first, or the check itself errors
          expression: `!(request.operation in ['UPDATE', 'DELETE']) || request.name != ${name} || (has(request.userInfo.groups) && ${group} in request.userInfo.groups)`,
          messageExpression: `'the static-admissiond registration ' + request.resource.resource + ' ' + ${name} + ' may be changed or deleted only by members of the break-glass group ' + ${group} + ': see the static-admissiond README, "Break glass"'`,
          reason: 'Forbidden',
        },
        {
          expression: `request.operation == 'DELETE' || !object.metadata.name.endsWith('${staticSuffix}')`,
          message: `names ending with "${staticSuffix}" are reserved for static manifest-based configurations and cannot be managed via the API`,
          reason: 'Invalid',
        },
      ],
    },
  };
  const binding = {
    apiVersion,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: guardPolicyName },
    spec: { policyName: guardPolicyName, validationActions: ['Deny'] },
  };
  return [policy, binding];
}
