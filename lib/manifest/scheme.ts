// What the manifest loaders' scheme knows, as upstream registers it: every admissionregistration version (v1,
// v1beta1, v1alpha1) with the meta/v1 option kinds AddToGroupVersion adds, plus the unversioned v1 List and Status.
// Decoding any other apiVersion/kind fails with "no kind … is registered"; a registered foreign kind decodes and is
// then refused by the loader as an unsupported resource type, exactly as upstream.

export const admissionGroup = 'admissionregistration.k8s.io';

/** admissionregistration.k8s.io/v1 kinds the loaders accept (with the schema entry of the same name). */
export const v1Kinds = [
  'ValidatingWebhookConfiguration',
  'ValidatingWebhookConfigurationList',
  'MutatingWebhookConfiguration',
  'MutatingWebhookConfigurationList',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyList',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingAdmissionPolicyBindingList',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyList',
  'MutatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicyBindingList',
] as const;
export type V1Kind = (typeof v1Kinds)[number];

const optionKinds = ['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'];
const withLists = (kinds: string[]): string[] => kinds.flatMap((k) => [k, `${k}List`]);

const registered = new Map<string, ReadonlySet<string>>([
  [`${admissionGroup}/v1`, new Set([...v1Kinds, ...optionKinds])],
  [`${admissionGroup}/v1beta1`, new Set([
    ...withLists(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']),
    ...optionKinds,
  ])],
  [`${admissionGroup}/v1alpha1`, new Set([
    ...withLists(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding']),
    ...optionKinds,
  ])],
]);

/**
 * Kinds added with AddUnversionedTypes (the loader's metav1 List and Status, and metav1's own unversioned kinds):
 * runtime.Scheme.New finds them by kind alone (apimachinery pkg/runtime/scheme.go), so under any apiVersion.
 */
const unversioned: ReadonlySet<string> = new Set(['List', 'Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);

/** A metav1.List, whatever apiVersion the document gives it. */
export const isList = (kind: string): boolean => kind === 'List';

/** Go's name for the decoded type, as `%T` prints it in `unsupported resource type %T`. */
export function goTypeName(apiVersion: string, kind: string): string {
  if (unversioned.has(kind) && !registered.get(apiVersion)?.has(kind)) return `*v1.${kind}`;
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  return `*${version}.${kind}`;
}

export function isRegistered(apiVersion: string, kind: string): boolean {
  return (registered.get(apiVersion)?.has(kind) ?? false) || unversioned.has(kind);
}

export function isV1Kind(apiVersion: string, kind: string): kind is V1Kind {
  return apiVersion === `${admissionGroup}/v1` && (v1Kinds as readonly string[]).includes(kind);
}
