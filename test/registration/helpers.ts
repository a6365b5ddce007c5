// Manifest sets for the registration tests, loaded by the real loader from temporary directories.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginName } from '../../lib/manifest/plugins.js';
import type { LoadedPlugin } from '../../lib/registration/coverage.js';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import { tempDir } from '../server/helpers.js';

export interface PolicyOptions {
  readonly rules: string;
  readonly exclude?: string;
  readonly namespaceSelector?: string;
  readonly bound?: boolean;
  readonly kind?: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy';
  readonly auditAnnotations?: string;
}

/** A policy (and, unless bound is false, its binding) named `<name>.static.k8s.io`. */
export function policy(name: string, o: PolicyOptions): string {
  const kind = o.kind ?? 'ValidatingAdmissionPolicy';
  const body = kind === 'ValidatingAdmissionPolicy'
    ? `  validations:\n  - expression: "true"\n${o.auditAnnotations ?? ''}`
    : `  reinvocationPolicy: Never\n  mutations:\n  - patchType: JSONPatch\n    jsonPatch:\n      expression: \'[JSONPatch{op: "test", path: "/metadata"}].filter(p, false)\'\n`;
  const text = `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}.static.k8s.io}
spec:
  matchConstraints:
${o.namespaceSelector ? `    namespaceSelector: ${o.namespaceSelector}\n` : ''}    resourceRules:
${o.rules}${o.exclude ? `    excludeResourceRules:\n${o.exclude}` : ''}${body}`;
  const binding = `---
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}Binding
metadata: {name: ${name}.static.k8s.io}
spec:
  policyName: ${name}.static.k8s.io
${kind === 'ValidatingAdmissionPolicy' ? '  validationActions: [Deny]\n' : ''}`;
  return o.bound === false ? text : `${text}${binding}`;
}

export function rule(groups: string, versions: string, resources: string, operations = '[CREATE, UPDATE]', scope?: string): string {
  return `    - {apiGroups: ${groups}, apiVersions: ${versions}, resources: ${resources}, operations: ${operations}${scope ? `, scope: ${scope}` : ''}}\n`;
}

export function webhookConfiguration(name: string, rules: string, kind = 'ValidatingWebhookConfiguration'): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}
metadata: {name: ${name}.static.k8s.io}
webhooks:
- name: ${name}.example.com
  clientConfig: {url: "https://127.0.0.1:1/${name}"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules:
${rules.replaceAll('    - ', '  - ')}`;
}

/** Writes each plugin's documents to its own directory and loads them as the daemon does. */
export function loadPlugins(sets: Partial<Record<PluginName, readonly string[]>>): { loaded: LoadedPlugin[]; dirs: Partial<Record<PluginName, string>>; cleanup: () => void } {
  const tmp = tempDir('sad-registration-');
  const loaded: LoadedPlugin[] = [];
  const dirs: Partial<Record<PluginName, string>> = {};
  for (const [plugin, docs] of Object.entries(sets) as Array<[PluginName, readonly string[]]>) {
    const dir = join(tmp.dir, plugin);
    mkdirSync(dir);
    docs.forEach((doc, i) => writeFileSync(join(dir, `${String(i).padStart(2, '0')}.yaml`), doc));
    dirs[plugin] = dir;
    loaded.push({ plugin, manifests: loadSnapshotSync(plugin, dir).manifests });
  }
  return { loaded, dirs, cleanup: tmp.cleanup };
}

