// `static-admissiond test` against `review` one by one (npm run bench:test): 1,000 cases over the benchmark policies
// (testdata/bench: 20 validating, 10 mutating) — pods created, updated and deleted, compliant or not, through
// /validate or /mutate — run once as one suite (one process, manifests compiled once), then as the same 1,000
// AdmissionReviews through `review`, spawning the CLI per case as a user scripting it would. Prints both wall times,
// the time per case and the ratio. `--review-sample N` spawns `review` for the first N cases only and scales the
// time up (for a quick look; the printed line says so).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadOfflineChain } from '../lib/review/chain.js';
import type { JsonObject } from '../lib/manifest/document.js';
import { createLogger } from '../lib/log/logger.js';
import { answerCase, admissionSetupOf, prepareSuite } from '../lib/testsuite/run.js';
import { mutateRequest, validateRequest } from '../lib/testsuite/request.js';
import { readSuite } from '../lib/testsuite/suite.js';
import { executableArgv, fmt } from './util.js';

const root = new URL('../../', import.meta.url).pathname;
/** node's arguments for the executable, as its #! line starts it (read once, outside the timed runs) */
const command = executableArgv(root);
const cases = 1000;

function argValue(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : Number(process.argv[i + 1]);
}

/** A compliant pod (the shape testdata/bench/pod-review.json carries), named `name`. */
function pod(name: string): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web', team: 'storefront', 'app.kubernetes.io/version': '1.24.3' } },
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{
        name: 'web',
        image: 'registry.example/shop/web:1.24.3',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
      }],
      terminationGracePeriodSeconds: 30,
    },
  };
}

type Template = (i: number) => { endpoint: 'validate' | 'mutate'; operation: string; object?: JsonObject; oldObject?: JsonObject };
const templates: Template[] = [
  (i) => ({ endpoint: 'validate', operation: 'CREATE', object: pod(`web-${i}`) }),
  (i) => {
    const p = pod(`priv-${i}`);
    ((p.spec as { containers: JsonObject[] }).containers[0]!.securityContext as JsonObject).privileged = true;
    return { endpoint: 'validate', operation: 'CREATE', object: p };
  },
  (i) => {
    const p = pod(`host-${i}`);
    (p.spec as JsonObject).hostNetwork = true;
    return { endpoint: 'validate', operation: 'CREATE', object: p };
  },
  (i) => {
    const p = pod(`latest-${i}`);
    (p.spec as { containers: JsonObject[] }).containers[0]!.image = 'registry.example/shop/web:latest';
    return { endpoint: 'validate', operation: 'CREATE', object: p };
  },
  (i) => ({ endpoint: 'mutate', operation: 'CREATE', object: pod(`web-${i}`) }),
  (i) => {
    const p = pod(`bare-${i}`);
    delete (p.metadata as JsonObject).labels;
    return { endpoint: 'mutate', operation: 'CREATE', object: p };
  },
  (i) => {
    const old = pod(`web-${i}`);
    const updated = pod(`web-${i}`);
    ((updated.metadata as JsonObject).labels as JsonObject).release = 'canary';
    return { endpoint: 'validate', operation: 'UPDATE', object: updated, oldObject: old };
  },
  (i) => ({ endpoint: 'validate', operation: 'DELETE', oldObject: pod(`web-${i}`) }),
];

function suiteText(body: string): string {
  return `apiVersion: static-admissiond.io/v1alpha1
kind: AdmissionTest
metadata:
  name: bench
admission:
  manifests:
    ValidatingAdmissionPolicy: ${JSON.stringify(join(root, 'testdata/bench/policies'))}
    MutatingAdmissionPolicy: ${JSON.stringify(join(root, 'testdata/bench/mutating-policies'))}
defaults:
  namespace: shop
  userInfo: {username: "system:serviceaccount:kube-system:replicaset-controller", groups: ["system:serviceaccounts"]}
cases:
${body}`;
}

function caseYAML(i: number, expect: JsonObject | undefined): string {
  const t = templates[i % templates.length]!(i);
  const c: JsonObject = { name: `case ${i}`, endpoint: t.endpoint, operation: t.operation, expect: expect ?? { allowed: true } };
  if (t.object) c.object = t.object;
  if (t.oldObject) c.oldObject = t.oldObject;
  return `- ${JSON.stringify(c)}\n`;
}

async function main(): Promise<void> {
  const sample = Math.min(argValue('--review-sample') ?? cases, cases);
  const dir = mkdtempSync(join(tmpdir(), 'sad-bench-test-'));
  try {
    // 1. the cases, with the expectations the chain answers (so the suite passes), and their AdmissionReviews
    const draft = join(dir, 'draft.yaml');
    writeFileSync(draft, suiteText(Array.from({ length: cases }, (_, i) => caseYAML(i, undefined)).join('')));
    const suite = readSuite(draft);
    const prepared = prepareSuite(suite);
    const chain = loadOfflineChain(admissionSetupOf(suite), { endpoints: ['validate', 'mutate'], skipWebhooks: true, gates: suite.gates, logger: createLogger({ write: () => {} }) });
    const expectations: JsonObject[] = [];
    let denied = 0;
    let patched = 0;
    for (const p of prepared) {
      const a = await answerCase(p, chain);
      expectations.push({ allowed: a.allowed, ...(a.message === undefined ? {} : { message: a.message }), ...(p.spec.endpoint === 'mutate' ? { patched: a.patched } : {}) });
      if (!a.allowed) denied++;
      if (a.patched) patched++;
      const request = p.spec.endpoint === 'mutate' ? mutateRequest(p) : validateRequest(p, p.object);
      writeFileSync(join(dir, `review-${p.spec.index}.json`), JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
    }
    await chain.close();
    const suiteFile = join(dir, 'bench.admission-test.yaml');
    writeFileSync(suiteFile, suiteText(expectations.map((e, i) => caseYAML(i, e)).join('')));
    writeFileSync(join(dir, 'admission-config.yaml'), `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ValidatingAdmissionPolicyConfiguration, staticManifestsDir: ${JSON.stringify(join(root, 'testdata/bench/policies'))}}
- name: MutatingAdmissionPolicy
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: MutatingAdmissionPolicyConfiguration, staticManifestsDir: ${JSON.stringify(join(root, 'testdata/bench/mutating-policies'))}}
`);
    console.log(`${cases} cases (${denied} denied, ${patched} patched) over testdata/bench: 20 validating and 10 mutating policies`);

    // 2. one `test` process
    const t0 = performance.now();
    const { stdout } = await promisify(execFile)(process.execPath, [...command, 'test', suiteFile], { maxBuffer: 64 * 1024 * 1024 });
    const testMs = performance.now() - t0;
    const closing = /\n(\d+) passed, (\d+) failed\n$/.exec(stdout);
    if (closing === null || closing[1] !== String(cases)) throw new Error(`the suite did not pass:\n${stdout.slice(-2000)}`);

    // 3. `review` per case, one process each, sequentially
    const reviewStart = performance.now();
    for (let i = 0; i < sample; i++) {
      const endpoint = prepared[i]!.spec.endpoint;
      const out = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [...command, 'review', '--admission-config', join(dir, 'admission-config.yaml'), '--operation', endpoint, join(dir, `review-${i}.json`)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
        child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`review exited ${code}`))));
      });
      const allowed = (JSON.parse(out) as { response: { allowed: boolean } }).response.allowed;
      if (allowed !== expectations[i]!.allowed) throw new Error(`review disagrees with test on case ${i}`);
    }
    const reviewSampleMs = performance.now() - reviewStart;
    const reviewMs = reviewSampleMs * (cases / sample);

    console.log(`test    1 process, ${cases} cases:   ${fmt(testMs / 1000)} s   (${fmt((testMs * 1000) / cases, 0)} µs a case, process start and compilation included)`);
    console.log(`review  ${sample} processes, one a case: ${fmt(reviewMs / 1000)} s   (${fmt(reviewSampleMs / sample, 0)} ms a case${sample < cases ? `; measured on ${sample} cases, scaled to ${cases}` : ''})`);
    console.log(`ratio   review / test: ${fmt(reviewMs / testMs, 1)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
