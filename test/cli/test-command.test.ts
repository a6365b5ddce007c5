// `static-admissiond test` itself: exit codes (0 pass, 1 a failed case, 2 a suite that cannot run), the side-by-side
// report of a failing case, JUnit and JSON output, expectations on the mutated object, and the static webhooks
// called for real (local HTTPS servers) unless --skip-webhooks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { run } from './helpers.js';
import { tempDir, vap, vapb, writeFiles } from '../helpers/fs.js';
import { allow, configurationYAML, deny, patchReply, startWebhookServer, testPKI } from '../webhook/helpers.js';
import type { WebhookServer } from '../webhook/helpers.js';

const root = new URL('../../../', import.meta.url).pathname;

const header = `apiVersion: static-admissiond.io/v1alpha1
kind: AdmissionTest
metadata:
  name: unit
`;

/** A suite over testdata/dev's manifests, written to a temporary directory. */
function devSuite(dir: string, cases: string, file = 'admission-test.yaml'): string {
  writeFiles(dir, {
    [file]: `${header}admission:
  manifests:
    ValidatingAdmissionPolicy: ${join(root, 'testdata/dev/policies')}
    MutatingAdmissionPolicy: ${join(root, 'testdata/dev/mutating-policies')}
cases:
${cases}`,
  });
  return join(dir, file);
}

const privilegedPod = `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: i, securityContext: {privileged: true}}]}}`;

test('the shipped dev suite passes: exit 0 and the closing count', async () => {
  const r = await run(['test', join(root, 'testdata/dev')]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /^=== dev-examples \(.*testdata\/dev\/admission-test\.yaml\)\n/);
  assert.match(r.out, /\nok {4}a privileged pod is denied {2}\(/);
  assert.match(r.out, /\n(\d+) passed, 0 failed\n$/);
});

test('a failing case: exit 1, the expected and the actual answer side by side', async () => {
  const { dir, cleanup } = tempDir('sad-test-');
  try {
    const suite = devSuite(dir, `- name: privileged pods are welcome
  object: ${privilegedPod}
  expect:
    allowed: true
- name: privileged pods are refused
  object: ${privilegedPod}
  expect:
    allowed: false
    code: 403
    message: {regexp: 'privileged containers are not allowed$'}`);
    const r = await run(['test', suite]);
    assert.equal(r.code, 1, r.out + r.err);
    const lines = r.out.split('\n');
    const fail = lines.findIndex((l) => l.startsWith('FAIL  privileged pods are welcome'));
    assert.notEqual(fail, -1, r.out);
    assert.match(lines[fail + 1]!, /^ {6}field +expected +actual$/);
    assert.match(lines[fail + 2]!, /^ {4}✗ allowed +true +false$/);
    // the verdict's message is shown for context, unchecked
    assert.match(lines[fail + 3]!, /^ {6}message +\(not checked\) +"pods \\"p\\" is forbidden: ValidatingAdmissionPolic/);
    assert.match(r.out, /\nok {4}privileged pods are refused/);
    assert.match(r.out, /\n1 passed, 1 failed\n$/);
  } finally {
    cleanup();
  }
});

test('a bad suite: exit 2 with the file and the field, and the good suites still run', async () => {
  const { dir, cleanup } = tempDir('sad-test-');
  try {
    const good = devSuite(dir, `- name: ok\n  object: ${privilegedPod}\n  expect: {allowed: false}`, 'good.admission-test.yaml');
    const bad = devSuite(dir, `- name: typo\n  object: ${privilegedPod}\n  expect: {alowed: false}`, 'bad.admission-test.yaml');
    const r = await run(['test', dir]);
    assert.equal(r.code, 2, r.out + r.err);
    assert.ok(r.out.indexOf(bad) < r.out.indexOf(good), 'suites run in file-name order');
    assert.match(r.out, new RegExp(`ERROR ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: strict decoding error: unknown field "cases\\[0\\]\\.expect\\.alowed"\\n`));
    assert.match(r.out, /\nok {4}ok {2}\(/);
    assert.match(r.out, /\n1 suite could not run\n1 passed, 0 failed\n$/);

    const cases: Array<[string, RegExp]> = [
      [`${header}admission: {manifests: {}}\ncases: []\n`, /cases: Required value: at least one case/],
      [`apiVersion: static-admissiond.io/v1\nkind: AdmissionTest\n`, /no kind "AdmissionTest" is registered for version "static-admissiond.io\/v1"/],
      [`${header}admission: {manifests: {}}\ncases:\n- name: a\n  object: Pod/missing\n  expect: {allowed: true}\n`, /cases\[0\]\.object: Not found: "Pod\/missing"/],
      [`${header}admission: {manifests: {}}\ncases:\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true, message: {regexp: "a("}}\n`, /cases\[0\]\.expect\.message\.regexp: Invalid value: "a\(":/],
      [`${header}admission: {manifests: {ValidatingAdmissionPolicy: ${join(dir, 'nowhere')}}}\ncases:\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n`, /admission: staticManifestsDir: Invalid value: ".*nowhere": unable to read: stat .*nowhere: no such file or directory/],
      [`${header}admission: {manifests: {}}\ncases:\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n`, /cases\[1\]\.name: Duplicate value: "a" \(also cases\[0\]\)/],
      [`${header}admission: {manifests: {}}\ncases:\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n  expect: {allowed: false}\n`, /strict decoding error: yaml: unmarshal errors:\n {2}line 10: key "expect" already set in map/],
    ];
    for (const [text, message] of cases) {
      writeFiles(dir, { 'one.yaml': text });
      const one = await run(['test', join(dir, 'one.yaml')]);
      assert.equal(one.code, 2, one.out);
      assert.match(one.out, message);
    }

    // manifests that do not load: upstream's message, exit 2
    writeFiles(dir, { 'policies/p.yaml': vap('p.static.k8s.io') + '---\n' + vapb('b.static.k8s.io', 'missing.static.k8s.io') });
    writeFiles(dir, { 'broken.yaml': `${header}admission: {manifests: {ValidatingAdmissionPolicy: policies}}\ncases:\n- name: a\n  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n  expect: {allowed: true}\n` });
    const broken = await run(['test', join(dir, 'broken.yaml')]);
    assert.equal(broken.code, 2);
    assert.match(broken.out, /admission: failed to load static policy manifests from ".*policies": binding "b.static.k8s.io" references policy "missing.static.k8s.io" which does not exist in the manifest directory/);
  } finally {
    cleanup();
  }
  const usage = await run(['test']);
  assert.equal(usage.code, 2);
  assert.match(usage.err, /test takes one or more suite files or directories/);
});

test('JUnit XML: one testsuite per file, failures with the side-by-side text, names escaped', async () => {
  const { dir, cleanup } = tempDir('sad-test-');
  try {
    const suite = devSuite(dir, `- name: allowed <wrongly> & "quoted"
  object: ${privilegedPod}
  expect: {allowed: true}
- name: denied
  object: ${privilegedPod}
  expect: {allowed: false}`);
    writeFiles(dir, { 'bad.admission-test.yaml': 'kind: Nonsense\n' });
    const r = await run(['test', '-o', 'junit', suite, join(dir, 'bad.admission-test.yaml')]);
    assert.equal(r.code, 2);
    assert.match(r.out, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="static-admissiond test" tests="3" failures="1" errors="1" time="[\d.]+">\n/);
    assert.match(r.out, /\n {2}<testsuite name="unit" file="[^"]+admission-test\.yaml" tests="2" failures="1" errors="0" skipped="0" time="[\d.]+">\n/);
    assert.match(r.out, /<testcase name="allowed &lt;wrongly&gt; &amp; &quot;quoted&quot;" classname="unit" file="[^"]+" time="[\d.]+"><failure message="allowed: expected true, got false" type="AdmissionTestFailure">  field +expected +actual\n✗ allowed +true +false\n/);
    assert.match(r.out, /<testcase name="denied" classname="unit" file="[^"]+" time="[\d.]+"\/>\n/);
    assert.match(r.out, /<testcase name="\(suite\)" classname="[^"]+bad\.admission-test\.yaml" file="[^"]+" time="0"><error message="[^"]+apiVersion: Required value" type="BadSuite"\/><\/testcase>/);
    assert.match(r.out, /<\/testsuites>\n$/);
    assert.equal((r.out.match(/<testsuite /g) ?? []).length, 2);
    assert.equal((r.out.match(/<\/testsuite>/g) ?? []).length, 2);
  } finally {
    cleanup();
  }
});

test('JSON: every case with its rows and answer, and the totals', async () => {
  const r = await run(['test', '-o', 'json', '--run', 'ConfigMap', join(root, 'testdata/dev')]);
  assert.equal(r.code, 0, r.out);
  const report = JSON.parse(r.out) as { passed: number; failed: number; errors: number; suites: Array<{ name: string; cases: Array<{ name: string; passed: boolean; answer: { allowed: boolean; patched: boolean } }> }> };
  assert.equal(report.failed, 0);
  assert.equal(report.errors, 0);
  assert.ok(report.passed >= 4);
  assert.ok(report.suites[0]!.cases.every((c) => /ConfigMap/.test(c.name)), '--run selects cases by name');
  const labelled = report.suites[0]!.cases.find((c) => c.name === 'a new ConfigMap without a team gets team=unassigned')!;
  assert.deepEqual([labelled.answer.allowed, labelled.answer.patched], [true, true]);
});

test('mutate expectations: the object after the patch (a subset), the patch itself, and their failures', async () => {
  const { dir, cleanup } = tempDir('sad-test-');
  try {
    const suite = devSuite(dir, `- name: labelled
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {app: x}}, data: {k: v}}
  expect:
    allowed: true
    patched: true
    object: {metadata: {labels: {app: x, team: unassigned}}, data: {k: v}}
- name: wrong label
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect:
    allowed: true
    patched: false
    object: {metadata: {labels: {team: platform}, annotations: {a: b}}}`);
    const r = await run(['test', '-o', 'json', suite]);
    assert.equal(r.code, 1, r.out);
    const cases = (JSON.parse(r.out) as { suites: Array<{ cases: Array<{ name: string; passed: boolean; rows: Array<{ field: string; expected: string; actual: string; ok: boolean }> }> }> }).suites[0]!.cases;
    assert.equal(cases[0]!.passed, true);
    assert.equal(cases[1]!.passed, false);
    assert.deepEqual(cases[1]!.rows.filter((row) => !row.ok).map((row) => [row.field, row.expected, row.actual]), [
      ['patched', 'false', 'true'],
      ['object.metadata.labels.team', '"platform"', '"unassigned"'],
      ['object.metadata.annotations', '{"a":"b"}', '(absent)'],
    ]);
  } finally {
    cleanup();
  }
});

describe('static webhooks', () => {
  const tmp = tempDir('sad-test-webhooks-');
  let validating: WebhookServer;
  let mutating: WebhookServer;
  let suite: string;

  before(async () => {
    const { ca, serving } = await testPKI();
    validating = await startWebhookServer({ serving }, (r) => ((r.review.request.object as { metadata: { labels?: Record<string, string> } }).metadata.labels?.deny === 'true'
      ? deny(r, { code: 403, message: 'label deny is set' })
      : allow(r, { warnings: ['checked by the webhook'] })));
    mutating = await startWebhookServer({ serving }, (r) => patchReply(r, [{ op: 'add', path: '/metadata/annotations', value: { 'mutated-by': 'webhook' } }]));
    writeFiles(tmp.dir, {
      'validating/check.yaml': configurationYAML('ValidatingWebhookConfiguration', 'check.static.k8s.io', [{ name: 'check.example.static.k8s.io', url: `${validating.url}/validate`, caPEM: ca.certPEM }]),
      'mutating/annotate.yaml': configurationYAML('MutatingWebhookConfiguration', 'annotate.static.k8s.io', [{ name: 'annotate.example.static.k8s.io', url: `${mutating.url}/mutate`, caPEM: ca.certPEM }]),
      'admission-test.yaml': `${header}admission:
  manifests:
    MutatingAdmissionPolicy: ${join(root, 'testdata/dev/mutating-policies')}
    MutatingAdmissionWebhook: mutating
    ValidatingAdmissionWebhook: validating
cases:
- name: mutated by the policy and the webhook, then checked by the validating webhook
  object: {apiVersion: v1, kind: ConfigMap, metadata: {generateName: out-}}
  expect:
    allowed: true
    warnings: [checked by the webhook]
    object: {metadata: {annotations: {mutated-by: webhook}, labels: {team: unassigned}}}
- name: the validating webhook denies
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: denied, labels: {deny: "true"}}}
  expect:
    allowed: false
    code: 403
    message: 'admission webhook "check.example.static.k8s.io" denied the request: label deny is set'
`,
    });
    suite = join(tmp.dir, 'admission-test.yaml');
  });

  after(async () => {
    await validating.close();
    await mutating.close();
    tmp.cleanup();
  });

  test('are called for real, /mutate then /validate, as kube-apiserver calls them', async () => {
    const r = await run(['test', suite]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(mutating.received.length, 2);
    assert.equal(validating.received.length, 2);
    const [m, v] = [mutating.received[0]!.review.request, validating.received[0]!.review.request];
    // /mutate sees no name yet; /validate sees the generated one and the object both mutators left
    assert.equal(m.name, undefined);
    assert.match(v.name!, /^out-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual((v.object as { metadata: { annotations: unknown; labels: unknown } }).metadata.annotations, { 'mutated-by': 'webhook' });
    assert.deepEqual((v.object as { metadata: { labels: unknown } }).metadata.labels, { team: 'unassigned' });
    assert.equal(v.namespace, 'default');
    assert.deepEqual(v.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  test('are left out with --skip-webhooks', async () => {
    const before = [mutating.received.length, validating.received.length];
    const r = await run(['test', '--skip-webhooks', suite]);
    assert.equal(r.code, 1, r.out);
    assert.deepEqual([mutating.received.length, validating.received.length], before);
    assert.match(r.out, /✗ warnings\[0\] +"checked by the webhook" +\(none\)/);
    assert.match(r.out, /✗ allowed +false +true/);
  });
});

test('type-check warnings of the loaded manifests are printed above the results (stderr with -o json)', async () => {
  const { dir, cleanup } = tempDir('sad-test-typecheck-');
  try {
    writeFiles(dir, {
      'policies/p.yaml': vap('names.static.k8s.io').replace(/expression: .*/, 'expression: "object.metadata.name != 1"'),
      'admission-test.yaml': `${header}admission:
  manifests:
    ValidatingAdmissionPolicy: ${join(dir, 'policies')}
cases:
- name: a configmap
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}
  expect: {allowed: true}
`,
    });
    const r = await run(['test', join(dir, 'admission-test.yaml')]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^warning: ValidatingAdmissionPolicy: ValidatingAdmissionPolicy "names\.static\.k8s\.io" in ".*p\.yaml": spec\.validations\[0\]\.expression: type check: \/v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_!=_' applied to '\(string, int\)'\n \| object\.metadata\.name != 1\n \| \.{21}\^\n=== unit/);
    const json = await run(['test', '-o', 'json', join(dir, 'admission-test.yaml')]);
    assert.doesNotThrow(() => JSON.parse(json.out));
    assert.match(json.err, /type check: \/v1, Kind=ConfigMap/);
  } finally {
    cleanup();
  }
});
