// Every manifest directory and AdmissionReview the repository holds (and ../shared/testdata when it is beside the
// checkout), gathered for the differential suite: the directories by the plugins their kinds belong to, the reviews
// from the captures and request fixtures, and the requests the AdmissionTest suites build (lib/testsuite, as `test`
// builds them).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { mutateRequest, validateRequest } from '../../lib/testsuite/request.js';
import { admissionSetupOf, prepareSuite } from '../../lib/testsuite/run.js';
import { readSuite } from '../../lib/testsuite/suite.js';
import { repoRoot } from './oracle.js';

/** Where the corpus is looked for: the repository's data, test fixtures, examples, and the shared captures. */
const roots = ['testdata', 'test', 'systemd', 'bench', '../shared/testdata'];
/** never corpus: build output, the generated fixtures (the fixture suite runs those), the oracle's own sources */
const skipped = new Set(['node_modules', 'dist', '.git', 'fixtures']);

const kindPlugins: Record<string, PluginName> = {
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicy', ValidatingAdmissionPolicyBinding: 'ValidatingAdmissionPolicy',
  ValidatingAdmissionPolicyList: 'ValidatingAdmissionPolicy', ValidatingAdmissionPolicyBindingList: 'ValidatingAdmissionPolicy',
  MutatingAdmissionPolicy: 'MutatingAdmissionPolicy', MutatingAdmissionPolicyBinding: 'MutatingAdmissionPolicy',
  MutatingAdmissionPolicyList: 'MutatingAdmissionPolicy', MutatingAdmissionPolicyBindingList: 'MutatingAdmissionPolicy',
  ValidatingWebhookConfiguration: 'ValidatingAdmissionWebhook', ValidatingWebhookConfigurationList: 'ValidatingAdmissionWebhook',
  MutatingWebhookConfiguration: 'MutatingAdmissionWebhook', MutatingWebhookConfigurationList: 'MutatingAdmissionWebhook',
};

export interface CorpusDir {
  readonly plugin: PluginName;
  readonly dir: string;
  /** relative to the repository root, for messages */
  readonly name: string;
}

export interface CorpusReview {
  readonly name: string;
  readonly review: { apiVersion: string; kind: 'AdmissionReview'; request: AdmissionRequest };
}

function walk(dir: string, visit: (dir: string, files: string[]) => void): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  visit(dir, entries.filter((e) => e.isFile()).map((e) => e.name));
  for (const e of entries) if (e.isDirectory() && !skipped.has(e.name) && !e.name.startsWith('.')) walk(join(dir, e.name), visit);
}

function kindsIn(file: string): string[] {
  try {
    if (statSync(file).size > 4 << 20) return [];
    return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
      const v = d.toJS() as { kind?: unknown } | null;
      return typeof v?.kind === 'string' ? v.kind : '';
    });
  } catch {
    // not YAML: decided by the loader, not here (a directory is corpus only through the kinds it names)
    return [];
  }
}

/** Every directory holding an admission configuration kind, once per plugin those kinds belong to. */
export function corpusDirs(): CorpusDir[] {
  const out: CorpusDir[] = [];
  for (const root of roots) {
    walk(join(repoRoot, root), (dir, files) => {
      const plugins = new Set<PluginName>();
      for (const f of files) {
        if (!/\.(ya?ml|json)$/.test(f) || f.endsWith('.http.json')) continue;
        for (const kind of kindsIn(join(dir, f))) if (Object.hasOwn(kindPlugins, kind)) plugins.add(kindPlugins[kind]!);
      }
      for (const plugin of [...plugins].sort()) out.push({ plugin, dir, name: relative(repoRoot, dir) || '.' });
    });
  }
  return out;
}

function asReview(v: unknown): CorpusReview['review'] | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as { kind?: unknown; apiVersion?: unknown; request?: unknown };
  if (r.kind !== 'AdmissionReview' || typeof r.apiVersion !== 'string' || typeof r.request !== 'object' || r.request === null) return undefined;
  return v as CorpusReview['review'];
}

/** Every AdmissionReview request file (captures, request fixtures). */
export function corpusReviewFiles(): CorpusReview[] {
  const out: CorpusReview[] = [];
  for (const root of roots) {
    walk(join(repoRoot, root), (dir, files) => {
      for (const f of files.sort()) {
        if (!f.endsWith('.json') || f.endsWith('.http.json')) continue;
        let review;
        try {
          review = asReview(JSON.parse(readFileSync(join(dir, f), 'utf8')));
        } catch {
          continue;
        }
        if (review) out.push({ name: relative(repoRoot, join(dir, f)), review });
      }
    });
  }
  return out;
}

export interface CorpusSuite {
  readonly file: string;
  readonly dirs: ReadonlyArray<{ readonly plugin: PluginName; readonly dir: string }>;
  /** the /mutate request of each case, and the /validate request made from the case's object as sent */
  readonly reviews: CorpusReview[];
}

/** The AdmissionTest suites: their manifest directories and the requests their cases make. */
export function corpusSuites(): CorpusSuite[] {
  const out: CorpusSuite[] = [];
  for (const root of roots) {
    walk(join(repoRoot, root), (dir, files) => {
      for (const f of files) {
        if (!/\.ya?ml$/.test(f)) continue;
        const file = join(dir, f);
        if (!kindsIn(file).includes('AdmissionTest')) continue;
        const suite = readSuite(file);
        const dirs = admissionSetupOf(suite).plugins.map((p) => ({ plugin: p.plugin, dir: p.staticManifestsDir }));
        const reviews: CorpusReview[] = [];
        prepareSuite(suite).forEach((p, i) => {
          const name = `${relative(repoRoot, file)}#${i} ${p.spec.name}`;
          const wrap = (request: AdmissionRequest): CorpusReview['review'] => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
          reviews.push({ name: `${name} (mutate)`, review: wrap(mutateRequest(p)) });
          reviews.push({ name: `${name} (validate)`, review: wrap(validateRequest(p, p.object)) });
        });
        out.push({ file: relative(repoRoot, file), dirs, reviews });
      }
    });
  }
  return out;
}

export const sharedTestdataPresent = (): boolean => existsSync(join(repoRoot, '../shared/testdata'));
