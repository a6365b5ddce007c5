// Reads kube-apiserver's --admission-control-config-file (an AdmissionConfiguration) and the plugin configurations
// it carries inline or by path, keeping the four plugins that take static manifests. Validation and messages follow
// apiserver's admission config loading, webhook LoadConfig and manifest.ValidateStaticManifestsDir.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseManifestDocument, DocumentSyntaxError } from '../manifest/document.js';
import type { JsonObject, JsonValue } from '../manifest/document.js';
import { isPluginName } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import type { FeatureGates } from './feature-gates.js';
import { ownValue } from '../json/own.js';

export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

export interface PluginSetup {
  readonly plugin: PluginName;
  /** absolute manifest directory; empty when the plugin has none configured */
  readonly staticManifestsDir: string;
  /** webhook plugins: kubeconfig with the credentials used to call webhooks */
  readonly kubeConfigFile: string;
}

export interface AdmissionSetup {
  readonly configFile: string;
  /** plugins that configure a staticManifestsDir, in the order the configuration lists them */
  readonly plugins: readonly PluginSetup[];
}

const admissionConfigVersions = new Set(['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1']);
const configFields: Record<string, readonly string[]> = {
  AdmissionConfiguration: ['apiVersion', 'kind', 'plugins'],
  AdmissionPluginConfiguration: ['name', 'path', 'configuration'],
  WebhookAdmissionConfiguration: ['apiVersion', 'kind', 'kubeConfigFile', 'staticManifestsDir'],
  ValidatingAdmissionPolicyConfiguration: ['apiVersion', 'kind', 'staticManifestsDir'],
  MutatingAdmissionPolicyConfiguration: ['apiVersion', 'kind', 'staticManifestsDir'],
};

/** The configuration kinds each plugin's own scheme registers (apiVersion → kind → config type). */
const pluginConfigKinds: Record<PluginName, Record<string, Record<string, string>>> = {
  ValidatingAdmissionWebhook: {
    'apiserver.config.k8s.io/v1': { WebhookAdmissionConfiguration: 'WebhookAdmissionConfiguration' },
    'apiserver.config.k8s.io/v1alpha1': { WebhookAdmission: 'WebhookAdmissionConfiguration' },
  },
  MutatingAdmissionWebhook: {
    'apiserver.config.k8s.io/v1': { WebhookAdmissionConfiguration: 'WebhookAdmissionConfiguration' },
    'apiserver.config.k8s.io/v1alpha1': { WebhookAdmission: 'WebhookAdmissionConfiguration' },
  },
  ValidatingAdmissionPolicy: {
    'apiserver.config.k8s.io/v1': { ValidatingAdmissionPolicyConfiguration: 'ValidatingAdmissionPolicyConfiguration' },
  },
  MutatingAdmissionPolicy: {
    'apiserver.config.k8s.io/v1': { MutatingAdmissionPolicyConfiguration: 'MutatingAdmissionPolicyConfiguration' },
  },
};

/** The config type registered for apiVersion and kind, which come from the file: own entries only. */
function kindIn(byVersion: Readonly<Record<string, Record<string, string>>>, apiVersion: string, kind: string): string | undefined {
  const kinds = ownValue(byVersion, apiVersion);
  return kinds === undefined ? undefined : ownValue(kinds, kind);
}

function parse(text: string): JsonValue {
  try {
    const parsed = parseManifestDocument(text);
    if (parsed.duplicateErrors.length > 0) throw new AdmissionConfigError(`strict decoding error: ${parsed.duplicateErrors.join(', ')}`);
    return parsed.value;
  } catch (err) {
    if (err instanceof DocumentSyntaxError) throw new AdmissionConfigError(err.message);
    throw err;
  }
}

function asObject(v: JsonValue | undefined, what: string): JsonObject {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new AdmissionConfigError(`json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type ${what}`);
  return v;
}

function strict(obj: JsonObject, type: string, prefix = ''): void {
  const allowed = configFields[type]!;
  const unknown = Object.keys(obj).filter((k) => !allowed.includes(k)).map((k) => `unknown field "${prefix}${k}"`);
  if (unknown.length > 0) throw new AdmissionConfigError(`strict decoding error: ${unknown.join(', ')}`);
  for (const k of allowed) {
    if (k === 'plugins' || k === 'configuration') continue;
    const v = obj[k];
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw new AdmissionConfigError(`json: cannot unmarshal ${typeof v} into Go struct field ${type}.${prefix}${k} of type string`);
    }
  }
}

function typeMeta(obj: JsonObject, raw: string): { apiVersion: string; kind: string } {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (kind === '') throw new AdmissionConfigError(`Object 'Kind' is missing in '${raw}'`);
  if (apiVersion === '') throw new AdmissionConfigError(`Object 'apiVersion' is missing in '${raw}'`);
  return { apiVersion, kind };
}

function goStatError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return `stat ${e.path}: no such file or directory`;
  if (e.code === 'EACCES') return `stat ${e.path}: permission denied`;
  if (e.code === 'ENOTDIR') return `stat ${e.path}: not a directory`;
  return e.message;
}

/**
 * ValidateStaticManifestsDir: gate, absolute path (a leading `/`), stat, directory. With `root` (a node's file system
 * copied under a directory, as `test` suites read one) the directory is looked for under it.
 */
export function validateStaticManifestsDir(dir: string, gates: FeatureGates, root = ''): void {
  if (dir.length === 0) return;
  if (!gates.ManifestBasedAdmissionControlConfig) {
    throw new AdmissionConfigError('staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled');
  }
  if (!dir.startsWith('/')) throw new AdmissionConfigError(`staticManifestsDir: Invalid value: ${JSON.stringify(dir)}: must be an absolute file path`);
  let info;
  try {
    info = statSync(underRoot(root, dir));
  } catch (err) {
    throw new AdmissionConfigError(`staticManifestsDir: Invalid value: ${JSON.stringify(dir)}: unable to read: ${goStatError(err)}`);
  }
  if (!info.isDirectory()) throw new AdmissionConfigError(`staticManifestsDir: Invalid value: ${JSON.stringify(dir)}: must be a directory`);
}

/** `path` (absolute) read under `root`; `path` itself when there is no root. */
function underRoot(root: string, path: string): string {
  return root === '' ? path : join(root, path);
}

/**
 * Decodes one plugin's configuration with that plugin's scheme and checks it as the plugin does at start. With
 * `root`, the absolute paths it names are read under that directory (and returned so).
 */
export function decodePluginConfiguration(plugin: PluginName, text: string, gates: FeatureGates, root = ''): PluginSetup {
  const obj = asObject(parse(text), 'runtime.Object');
  const { apiVersion, kind } = typeMeta(obj, text);
  const type = kindIn(pluginConfigKinds[plugin], apiVersion, kind);
  if (type === undefined) {
    const registered = Object.values(pluginConfigKinds).some((byVersion) => kindIn(byVersion, apiVersion, kind) !== undefined);
    if (registered) throw new AdmissionConfigError(`unexpected type: *${apiVersion.split('/')[1]}.${kind}`);
    throw new AdmissionConfigError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/admission/plugin/${plugin}/config.go"`);
  }
  strict(obj, type);
  const kubeConfigFile = typeof obj.kubeConfigFile === 'string' ? obj.kubeConfigFile : '';
  const staticManifestsDir = typeof obj.staticManifestsDir === 'string' ? obj.staticManifestsDir : '';
  if (kubeConfigFile.length > 0 && !kubeConfigFile.startsWith('/')) {
    throw new AdmissionConfigError(`kubeConfigFile: Invalid value: ${JSON.stringify(kubeConfigFile)}: must be an absolute file path`);
  }
  validateStaticManifestsDir(staticManifestsDir, gates, root);
  return {
    plugin,
    staticManifestsDir: staticManifestsDir === '' ? '' : underRoot(root, staticManifestsDir),
    kubeConfigFile: kubeConfigFile === '' ? '' : underRoot(root, kubeConfigFile),
  };
}

/**
 * Reads an AdmissionConfiguration file and the configurations of the four static-manifest plugins. Plugins other
 * than those four are ignored (they are the apiserver's business). Throws AdmissionConfigError. With `root`, the
 * absolute paths of the configuration (plugin configuration files, staticManifestsDir, kubeConfigFile) are read
 * under that directory: a node's configuration checked against a copy of its files.
 */
export function readAdmissionConfiguration(configFile: string, gates: FeatureGates, root = ''): AdmissionSetup {
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`unable to read admission control configuration from "${configFile}" [${(err as Error).message}]`);
  }
  const obj = asObject(parse(text), 'AdmissionConfiguration');
  const { apiVersion, kind } = typeMeta(obj, text);
  if (!admissionConfigVersions.has(apiVersion) || kind !== 'AdmissionConfiguration') {
    throw new AdmissionConfigError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme "k8s.io/apiserver/pkg/admission/config.go"`);
  }
  strict(obj, 'AdmissionConfiguration');
  const entries = obj.plugins ?? [];
  if (!Array.isArray(entries)) throw new AdmissionConfigError('json: cannot unmarshal object into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration');
  const baseDir = dirname(resolve(configFile));
  const plugins: PluginSetup[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const e = asObject(entry, 'v1.AdmissionPluginConfiguration');
    strict(e, 'AdmissionPluginConfiguration', `plugins[${i}].`);
    const name = typeof e.name === 'string' ? e.name : '';
    // the apiserver uses the first entry for a plugin
    if (!isPluginName(name) || seen.has(name)) return;
    seen.add(name);
    let configText: string | undefined;
    if (typeof e.path === 'string' && e.path !== '') {
      const path = isAbsolute(e.path) ? underRoot(root, e.path) : resolve(baseDir, e.path);
      try {
        configText = readFileSync(path, 'utf8');
      } catch (err) {
        throw new AdmissionConfigError(`couldn't open admission plugin configuration ${path}: ${(err as Error).message}`);
      }
    } else if (e.configuration !== undefined && e.configuration !== null) {
      configText = JSON.stringify(e.configuration);
    }
    if (configText === undefined) return;
    const setup = decodePluginConfiguration(name, configText, gates, root);
    if (setup.staticManifestsDir !== '') plugins.push(setup);
  });
  return { configFile: resolve(configFile), plugins };
}
