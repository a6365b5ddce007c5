// The REST ValidatingAdmissionPolicy printed with `registration --format api`: what a webhook cannot guard because
// the apiserver never sends it admission-configuration objects (IsExemptAdmissionConfigurationResource).
//
// - DELETE of the daemon's own webhook configurations is denied unless the user is in the break-glass group, so
//   `kubectl delete validatingwebhookconfiguration static-admissiond` cannot switch every policy off.
// - UPDATE is denied unless the user is in the registrar group (or the break-glass group). Every later apply of the
//   printed registration is an UPDATE of both configurations (both always exist, see objects.ts), so an apply by
//   anyone else is refused for each configuration it would change and changes none of them: never half-applied
//   (docs/adr/0002-registration-updates.md). The denial names the command that does apply it.
// - Webhook configuration names ending in ".static.k8s.io" are refused, as KEP-5793 suggests for apiservers without
//   the ManifestBasedAdmissionControlConfig gate (pkg/apis/admissionregistration/validation: that suffix is reserved).
//
// Upstream exempts ValidatingAdmissionPolicy, its binding, MutatingAdmissionPolicy and its binding from every
// admission policy and webhook (S/admission/plugin/policy/generic/plugin.go, rules.go): this policy cannot guard
// itself, its binding, or those kinds' names. The registration's comments say so.
//
// Every field the apiserver defaults is printed (pkg/apis/admissionregistration/v1 and v1beta1 defaults.go), so that
// applying the same output again is `unchanged`.
import { staticConfigSuffix as staticSuffix } from '../manifest/load.js';
import { atLeast } from './version.js';
import type { KubeVersion } from './version.js';

export const defaultBreakGlassGroup = 'static-admissiond:break-glass';
export const defaultRegistrarGroup = 'static-admissiond:registrar';
export const guardPolicyName = 'static-admissiond-guard';
/** on the guard policy: its groups, for the daemon's drift messages (the policy itself is never sent to it) */
export const registrarGroupAnnotation = 'static-admissiond.io/registrar-group';
export const breakGlassGroupAnnotation = 'static-admissiond.io/break-glass-group';
/** The user impersonated to apply the registration (any name does: the guard looks at the group). */
export const registrarUser = 'static-admissiond-registrar';

export interface GuardOptions {
  /** the configuration names to protect (ValidatingWebhookConfiguration and MutatingWebhookConfiguration) */
  readonly configurationName: string;
  readonly breakGlassGroup: string;
  readonly registrarGroup: string;
  readonly kubeVersion: KubeVersion;
}

/**
 * The command that applies a printed registration as the registrar: impersonation, which cluster-admins may use and
 * the audit log records; system:masters so that no RBAC binding is needed for the impersonated user.
 */
export function registrarApplyCommand(file: string, registrarGroup = defaultRegistrarGroup): string {
  return `kubectl apply -f ${file} --as=${registrarUser} --as-group=${registrarGroup} --as-group=system:masters`;
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
  const breakGlass = quote(options.breakGlassGroup);
  const registrar = quote(options.registrarGroup);
  const name = quote(options.configurationName);
  // request.userInfo.groups is absent for a user with no groups: has() first, or the check itself errors
  const member = (group: string): string => `(has(request.userInfo.groups) && ${group} in request.userInfo.groups)`;
  const subject = `'the static-admissiond registration ' + request.resource.resource + ' ' + ${name}`;
  const policy = {
    apiVersion,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: guardPolicyName, annotations: { [registrarGroupAnnotation]: options.registrarGroup, [breakGlassGroupAnnotation]: options.breakGlassGroup } },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{
          apiGroups: ['admissionregistration.k8s.io'],
          apiVersions: ['*'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations'],
          scope: '*',
        }],
        matchPolicy: 'Equivalent',
        namespaceSelector: {},
        objectSelector: {},
      },
      validations: [
        {
          expression: `request.operation != 'DELETE' || request.name != ${name} || ${member(breakGlass)}`,
          messageExpression: `${subject} + ' may be deleted only by members of the break-glass group ' + ${breakGlass} + ': see the static-admissiond README, "Break glass"'`,
          reason: 'Forbidden',
        },
        {
          expression: `request.operation != 'UPDATE' || request.name != ${name} || ${member(registrar)} || ${member(breakGlass)}`,
          messageExpression: `${subject} + ' is updated only by the registrar group ' + ${registrar} + ', so that an apply never leaves it half-updated: this update was refused and the registration is as it was. Apply the same file as the registrar: ' + ${quote(registrarApplyCommand('<file>', options.registrarGroup))} + ' (see the static-admissiond README, "Updating the registration")'`,
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
