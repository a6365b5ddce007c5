// The four admission plugins that take static manifests, and which kinds each one's directory accepts.
import type { V1Kind } from './scheme.js';

export const pluginNames = [
  'ValidatingAdmissionWebhook',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'MutatingAdmissionPolicy',
] as const;
export type PluginName = (typeof pluginNames)[number];

export function isPluginName(name: string): name is PluginName {
  return (pluginNames as readonly string[]).includes(name);
}

export type PluginFamily = 'webhook' | 'policy';

export interface PluginKinds {
  readonly family: PluginFamily;
  /** webhook configurations, or policies */
  readonly primary: V1Kind;
  readonly primaryList: V1Kind;
  /** bindings (policy plugins only) */
  readonly binding?: V1Kind;
  readonly bindingList?: V1Kind;
  /** word used in upstream's "failed to load static <word> manifests from" message */
  readonly loadWord: 'webhook' | 'policy';
}

export const pluginKinds: Record<PluginName, PluginKinds> = {
  ValidatingAdmissionWebhook: {
    family: 'webhook', primary: 'ValidatingWebhookConfiguration', primaryList: 'ValidatingWebhookConfigurationList', loadWord: 'webhook',
  },
  MutatingAdmissionWebhook: {
    family: 'webhook', primary: 'MutatingWebhookConfiguration', primaryList: 'MutatingWebhookConfigurationList', loadWord: 'webhook',
  },
  ValidatingAdmissionPolicy: {
    family: 'policy', primary: 'ValidatingAdmissionPolicy', primaryList: 'ValidatingAdmissionPolicyList',
    binding: 'ValidatingAdmissionPolicyBinding', bindingList: 'ValidatingAdmissionPolicyBindingList', loadWord: 'policy',
  },
  MutatingAdmissionPolicy: {
    family: 'policy', primary: 'MutatingAdmissionPolicy', primaryList: 'MutatingAdmissionPolicyList',
    binding: 'MutatingAdmissionPolicyBinding', bindingList: 'MutatingAdmissionPolicyBindingList', loadWord: 'policy',
  },
};

/** Upstream's wrapper for a failed initial load: `failed to load static webhook manifests from "<dir>": <err>`. */
export function initialLoadMessage(plugin: PluginName, dir: string, err: string): string {
  return `failed to load static ${pluginKinds[plugin].loadWord} manifests from "${dir}": ${err}`;
}
