// An AdmissionTest suite file (static-admissiond.io/v1alpha1), decoded strictly: the admission configuration it
// tests, the resources it admits, and its cases with their expectations. Relative paths are relative to the suite
// file. Every error is a SuiteError naming the file and the field (exit 2 of `test`). docs/testing-policies.md
// documents the format.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { RE2JS } from 're2js';
import { knownFeatureGates } from '../config/feature-gates.js';
import type { FeatureGateName, FeatureGates } from '../config/feature-gates.js';
import { DocumentSyntaxError, parseManifestDocument } from '../manifest/document.js';
import type { JsonObject, JsonValue } from '../manifest/document.js';
import { splitYAMLDocuments } from '../manifest/files.js';
import { isPluginName, pluginNames } from '../manifest/plugins.js';
import type { PluginName } from '../manifest/plugins.js';
import { cloneJson } from '../json/index.js';
import { FieldReader, isObject, SuiteError, typeName } from './fields.js';
import { setOwn } from '../json/own.js';

export const suiteAPIVersion = 'static-admissiond.io/v1alpha1';
export const suiteKind = 'AdmissionTest';

export const endpoints = ['admission', 'validate', 'mutate'] as const;
export type CaseEndpoint = (typeof endpoints)[number];
export const operations = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;
export type Operation = (typeof operations)[number];

/** An expected text: exact, or an RE2 (Go) regular expression searched anywhere in the actual text. */
export interface TextMatcher {
  readonly exact?: string;
  readonly regexp?: string;
  readonly compiled?: RE2JS;
}

export interface Expectation {
  readonly allowed: boolean;
  readonly code?: number;
  readonly reason?: string;
  readonly message?: TextMatcher;
  /** the complete list, in order */
  readonly warnings?: readonly TextMatcher[];
  /** the complete set */
  readonly auditAnnotations?: Readonly<Record<string, TextMatcher>>;
  /** whether /mutate answered with a patch */
  readonly patched?: boolean;
  /** a subset of the object after admission (mutated) */
  readonly object?: JsonValue;
}

export interface SuiteUserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ExplicitResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** only for resources outside the built-in table; default true */
  readonly namespaced?: boolean;
}

export interface CaseSpec {
  readonly index: number;
  /** `cases[i]`, for messages */
  readonly path: string;
  readonly name: string;
  readonly endpoint: CaseEndpoint;
  readonly operation: Operation;
  readonly object?: JsonObject;
  readonly oldObject?: JsonObject;
  readonly resource?: ExplicitResource;
  readonly subResource: string;
  /** the object's name for CONNECT (its options carry none) */
  readonly requestName?: string;
  /** the case's own namespace (it must agree with the object's) */
  readonly namespace?: string;
  /** the suite's default, used when neither the case nor the object names one */
  readonly defaultNamespace?: string;
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  readonly dryRun: boolean;
  readonly options?: JsonObject;
  readonly userInfo: SuiteUserInfo;
  readonly expect: Expectation;
}

export type AdmissionSource =
  | { readonly kind: 'config'; readonly configFile: string; readonly root: string }
  | { readonly kind: 'manifests'; readonly dirs: ReadonlyArray<{ readonly plugin: PluginName; readonly dir: string }>; readonly kubeConfigFile: string };

export interface Suite {
  readonly file: string;
  readonly name: string;
  readonly admission: AdmissionSource;
  readonly gates: FeatureGates;
  readonly cases: readonly CaseSpec[];
}

/** The user a case runs as when neither it nor the suite's defaults name one. */
export const defaultUser: SuiteUserInfo = { username: 'test-user', groups: [] };

interface Resource {
  readonly object: JsonObject;
  readonly where: string;
}

function parseDocument(file: string, text: string, where: string): JsonValue {
  try {
    const parsed = parseManifestDocument(text);
    if (parsed.duplicateErrors.length > 0) throw new SuiteError(file, `${where}: strict decoding error: ${parsed.duplicateErrors.join(', ')}`);
    return parsed.value;
  } catch (err) {
    if (err instanceof DocumentSyntaxError) throw new SuiteError(file, `${where}: ${err.message}`);
    throw err;
  }
}

function readText(file: string, path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new SuiteError(file, `${what}: ${(err as Error).message}`);
  }
}

function textMatcher(r: FieldReader, key: string): TextMatcher | undefined {
  const v = r.raw(key);
  if (v === undefined) return undefined;
  return matcherOf(r, r.at(key), v);
}

function matcherOf(r: FieldReader, path: string, v: JsonValue): TextMatcher {
  if (typeof v === 'string') return { exact: v };
  const m = new FieldReader(r.file, path, v, ['regexp']);
  const pattern = m.requiredString('regexp');
  try {
    return { regexp: pattern, compiled: RE2JS.compile(pattern) };
  } catch (err) {
    throw r.error(`${path}.regexp: Invalid value: ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

function userInfo(r: FieldReader): SuiteUserInfo {
  const username = r.requiredString('username');
  const uid = r.string('uid');
  const groups = r.stringList('groups') ?? [];
  const extraObj = r.object('extra');
  let extra: Record<string, string[]> | undefined;
  if (extraObj !== undefined) {
    extra = {};
    for (const [k, v] of Object.entries(extraObj)) {
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw r.error(`${r.at('extra')}.${k}: Invalid value: ${typeName(v)}: must be a list of strings`);
      setOwn(extra, k, v as string[]);
    }
  }
  return { username, groups, ...(uid === undefined || uid === '' ? {} : { uid }), ...(extra === undefined ? {} : { extra }) };
}

function expectation(r: FieldReader): Expectation {
  const allowed = r.boolean('allowed');
  if (allowed === undefined) throw r.error(`${r.at('allowed')}: Required value`);
  const warnings = r.list('warnings')?.map((w, i) => matcherOf(r, `${r.at('warnings')}[${i}]`, w));
  const annotations = r.object('auditAnnotations');
  const code = r.integer('code');
  const reason = r.string('reason');
  const message = textMatcher(r, 'message');
  const patched = r.boolean('patched');
  const object = r.raw('object');
  return {
    allowed,
    ...(code === undefined ? {} : { code }),
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
    ...(warnings === undefined ? {} : { warnings }),
    ...(annotations === undefined ? {} : {
      auditAnnotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, matcherOf(r, `${r.at('auditAnnotations')}.${k}`, v)])),
    }),
    ...(patched === undefined ? {} : { patched }),
    ...(object === undefined ? {} : { object }),
  };
}

function admissionSource(r: FieldReader, base: string): AdmissionSource {
  const configFile = r.string('configFile');
  const manifests = r.object('manifests');
  if ((configFile === undefined) === (manifests === undefined)) throw r.error(`${r.path}: Invalid value: exactly one of configFile and manifests must be set`);
  if (configFile !== undefined) {
    if (r.has('kubeConfigFile')) throw r.error(`${r.at('kubeConfigFile')}: Forbidden: the configuration's plugin configurations name their kubeConfigFile`);
    const root = r.string('root');
    return { kind: 'config', configFile: resolve(base, configFile), root: root === undefined || root === '' ? '' : resolve(base, root) };
  }
  if (r.has('root')) throw r.error(`${r.at('root')}: Forbidden: root applies to a configFile`);
  const dirs: Array<{ plugin: PluginName; dir: string }> = [];
  for (const [plugin, dir] of Object.entries(manifests!)) {
    if (!isPluginName(plugin)) {
      throw r.error(`${r.at('manifests')}: Unsupported value: ${JSON.stringify(plugin)}: supported values: ${pluginNames.map((p) => JSON.stringify(p)).join(', ')}`);
    }
    if (typeof dir !== 'string' || dir === '') throw r.error(`${r.at('manifests')}.${plugin}: Invalid value: ${typeName(dir)}: must be a directory path`);
    dirs.push({ plugin, dir: resolve(base, dir) });
  }
  const kubeConfigFile = r.string('kubeConfigFile');
  return { kind: 'manifests', dirs, kubeConfigFile: kubeConfigFile === undefined || kubeConfigFile === '' ? '' : resolve(base, kubeConfigFile) };
}

function featureGates(r: FieldReader): FeatureGates {
  const gates: Record<FeatureGateName, boolean> = { ...knownFeatureGates };
  const spec = r.object('featureGates') ?? {};
  for (const [name, value] of Object.entries(spec)) {
    if (!Object.hasOwn(knownFeatureGates, name)) throw r.error(`${r.at('featureGates')}: Unsupported value: ${JSON.stringify(name)}: supported values: ${Object.keys(knownFeatureGates).map((g) => JSON.stringify(g)).join(', ')}`);
    if (typeof value !== 'boolean') throw r.error(`${r.at('featureGates')}.${name}: Invalid value: ${typeName(value)}: must be a boolean`);
    gates[name as FeatureGateName] = value;
  }
  return gates;
}

/** The documents of a resources file (List items unwrapped), each needing apiVersion and kind. */
function resourcesOf(file: string, value: JsonValue, where: string): Resource[] {
  if (!isObject(value)) throw new SuiteError(file, `${where}: Invalid value: ${typeName(value)}: a resource must be an object`);
  const kind = value.kind;
  if (typeof value.apiVersion !== 'string' || value.apiVersion === '') throw new SuiteError(file, `${where}: apiVersion: Required value`);
  if (typeof kind !== 'string' || kind === '') throw new SuiteError(file, `${where}: kind: Required value`);
  if (kind.endsWith('List') && Array.isArray(value.items)) return value.items.flatMap((item, i) => resourcesOf(file, item, `${where}.items[${i}]`));
  return [{ object: value, where }];
}

function loadResources(r: FieldReader, base: string): Resource[] {
  const out: Resource[] = [];
  (r.list('resources') ?? []).forEach((entry, i) => {
    const where = `${r.at('resources')}[${i}]`;
    if (isObject(entry) && 'file' in entry) {
      const f = new FieldReader(r.file, where, entry, ['file']);
      const path = resolve(base, f.requiredString('file'));
      const text = readText(r.file, path, `${where}.file`);
      let docs: string[];
      try {
        docs = splitYAMLDocuments(text);
      } catch (err) {
        throw r.error(`${path}: ${(err as Error).message}`);
      }
      docs.forEach((doc, d) => {
        const value = parseDocument(r.file, doc, `${path} (document ${d + 1})`);
        if (value !== null) out.push(...resourcesOf(r.file, value, `${path} (document ${d + 1})`));
      });
      return;
    }
    out.push(...resourcesOf(r.file, entry, where));
  });
  return out;
}

const metadataOf = (o: JsonObject): JsonObject => (isObject(o.metadata) ? o.metadata : {});
const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

/** `Kind/name`, `Kind/namespace/name` or a name alone (generateName counts as a name). */
function findResource(resources: readonly Resource[], ref: string, file: string, path: string): JsonObject {
  const parts = ref.split('/');
  const matches = resources.filter(({ object }) => {
    const meta = metadataOf(object);
    const name = str(meta.name) || str(meta.generateName);
    if (parts.length === 1) return name === parts[0];
    if (parts.length === 2) return object.kind === parts[0] && name === parts[1];
    return parts.length === 3 && object.kind === parts[0] && str(meta.namespace) === parts[1] && name === parts[2];
  });
  if (matches.length === 0) throw new SuiteError(file, `${path}: Not found: ${JSON.stringify(ref)}: no resource of the suite is named so (refer to one as name, Kind/name or Kind/namespace/name)`);
  if (matches.length > 1) {
    throw new SuiteError(file, `${path}: Invalid value: ${JSON.stringify(ref)}: names ${matches.length} resources (${matches.map((m) => m.where).join(', ')}); refer to one as Kind/name or Kind/namespace/name`);
  }
  return cloneJson(matches[0]!.object);
}

function objectRef(r: FieldReader, key: string, resources: readonly Resource[]): JsonObject | undefined {
  const v = r.raw(key);
  if (v === undefined) return undefined;
  if (typeof v === 'string') return findResource(resources, v, r.file, r.at(key));
  const found = resourcesOf(r.file, v, r.at(key));
  if (found.length !== 1 || found[0]!.object !== v) throw r.error(`${r.at(key)}: Invalid value: a List: give one object`);
  return cloneJson(found[0]!.object);
}

function explicitResource(r: FieldReader): ExplicitResource | undefined {
  const res = r.child('resource', ['group', 'version', 'resource', 'namespaced']);
  if (res === undefined) return undefined;
  const namespaced = res.boolean('namespaced');
  return { group: res.string('group') ?? '', version: res.requiredString('version'), resource: res.requiredString('resource'), ...(namespaced === undefined ? {} : { namespaced }) };
}

const caseFields = ['name', 'endpoint', 'operation', 'object', 'oldObject', 'resource', 'subResource', 'requestName', 'namespace', 'namespaceLabels', 'dryRun', 'options', 'userInfo', 'expect'];
const expectFields = ['allowed', 'code', 'reason', 'message', 'warnings', 'auditAnnotations', 'patched', 'object'];
const userFields = ['username', 'uid', 'groups', 'extra'];

interface Defaults {
  readonly endpoint: CaseEndpoint;
  readonly namespace?: string;
  readonly userInfo: SuiteUserInfo;
}

function readCase(r: FieldReader, index: number, resources: readonly Resource[], defaults: Defaults): CaseSpec {
  const user = r.child('userInfo', userFields);
  const expect = r.child('expect', expectFields);
  if (expect === undefined) throw r.error(`${r.at('expect')}: Required value`);
  const namespace = r.string('namespace');
  const namespaceLabels = r.stringMap('namespaceLabels');
  const resource = explicitResource(r);
  const object = objectRef(r, 'object', resources);
  const oldObject = objectRef(r, 'oldObject', resources);
  const requestName = r.string('requestName');
  const options = r.object('options');
  return {
    index,
    path: r.path,
    name: r.requiredString('name'),
    endpoint: r.oneOf('endpoint', endpoints) ?? defaults.endpoint,
    operation: r.oneOf('operation', operations) ?? 'CREATE',
    ...(object === undefined ? {} : { object }),
    ...(oldObject === undefined ? {} : { oldObject }),
    ...(resource === undefined ? {} : { resource }),
    subResource: r.string('subResource') ?? '',
    ...(requestName === undefined ? {} : { requestName }),
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
    ...(defaults.namespace === undefined || defaults.namespace === '' ? {} : { defaultNamespace: defaults.namespace }),
    ...(namespaceLabels === undefined ? {} : { namespaceLabels }),
    dryRun: r.boolean('dryRun') ?? false,
    ...(options === undefined ? {} : { options }),
    userInfo: user === undefined ? defaults.userInfo : userInfo(user),
    expect: expectation(expect),
  };
}

/** Decodes a suite file. Throws SuiteError. */
export function readSuite(file: string): Suite {
  const path = resolve(file);
  const text = readText(file, path, 'reading the suite');
  let docs: string[];
  try {
    docs = splitYAMLDocuments(text);
  } catch (err) {
    throw new SuiteError(file, (err as Error).message);
  }
  if (docs.length !== 1) throw new SuiteError(file, `a suite file holds exactly one ${suiteKind} document, found ${docs.length}`);
  const value = parseDocument(file, docs[0]!, 'suite');
  const top = new FieldReader(file, '', value, ['apiVersion', 'kind', 'metadata', 'admission', 'resources', 'defaults', 'cases']);
  const apiVersion = top.requiredString('apiVersion');
  const kind = top.requiredString('kind');
  if (apiVersion !== suiteAPIVersion || kind !== suiteKind) {
    throw top.error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}: expected apiVersion ${suiteAPIVersion}, kind ${suiteKind}`);
  }
  const base = dirname(path);
  const metadata = top.child('metadata', ['name']);
  const admission = top.child('admission', ['configFile', 'root', 'manifests', 'kubeConfigFile', 'featureGates']);
  if (admission === undefined) throw top.error('admission: Required value: the admission configuration (configFile) or the manifest directories (manifests) to test');
  const resources = loadResources(top, base);
  const d = top.child('defaults', ['endpoint', 'namespace', 'userInfo']);
  const defaultUserReader = d?.child('userInfo', userFields);
  const defaultNamespace = d?.string('namespace');
  const defaults: Defaults = {
    endpoint: d?.oneOf('endpoint', endpoints) ?? 'admission',
    ...(defaultNamespace === undefined ? {} : { namespace: defaultNamespace }),
    userInfo: defaultUserReader === undefined ? defaultUser : userInfo(defaultUserReader),
  };
  const list = top.list('cases');
  if (list === undefined || list.length === 0) throw top.error('cases: Required value: at least one case');
  const cases = list.map((c, i) => readCase(new FieldReader(file, `cases[${i}]`, c, caseFields), i, resources, defaults));
  const seen = new Map<string, number>();
  for (const c of cases) {
    const earlier = seen.get(c.name);
    if (earlier !== undefined) throw top.error(`${c.path}.name: Duplicate value: ${JSON.stringify(c.name)} (also cases[${earlier}])`);
    seen.set(c.name, c.index);
  }
  return {
    file,
    name: metadata?.string('name') || file,
    admission: admissionSource(admission, base),
    gates: featureGates(admission),
    cases,
  };
}
