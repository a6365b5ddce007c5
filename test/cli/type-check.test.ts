// Type-check warnings in `validate`: what kube-apiserver's TypeChecker would put in a REST policy's
// status.typeChecking (upstream: k8s.io/apiserver/pkg/admission/plugin/policy/validating/typechecking.go), named with
// the file, the field path and the kind, in upstream's words. The expected texts are upstream's own: printed by
// tools/kind-schemas -check (upstream's TypeChecker with its schema resolver and REST mapper) for the same policies,
// with the nanosecond suffix upstream gives struct type names left out. Warnings never change what loads.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { run } from './helpers.js';

function vap(name: string, rules: string, validations: string, extra = ''): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules: ${rules}
${extra}  validations: ${validations}
`;
}

const configMaps = '[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]';
const deployments = '[{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]';
const pods = '[{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]';

async function validate(files: Record<string, string>, plugin = 'ValidatingAdmissionPolicy', ...flags: string[]): Promise<{ code: number; out: string; err: string; json: { plugins: Array<{ hash: string; counts: Record<string, number>; warnings: string[]; typeCheckWarnings?: number; notes?: string[] }> }; dir: string }> {
  const { dir } = tempDir('sad-typecheck-');
  writeFiles(dir, files);
  const text = await run(['validate', '--plugin', plugin, dir, ...flags]);
  const json = await run(['validate', '--plugin', plugin, dir, '-o', 'json', ...flags]);
  return { ...text, json: JSON.parse(json.out) as never, dir };
}

describe('validate: type-check warnings, as upstream words them', () => {
  it('object.metadata.name == 1 on ConfigMaps', async () => {
    const r = await validate({ 'names.yaml': vap('names.static.k8s.io', configMaps, '[{expression: "object.metadata.name == 1"}]') });
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.err,
      `warning: ValidatingAdmissionPolicy: ValidatingAdmissionPolicy "names.static.k8s.io" in ${JSON.stringify(join(r.dir, 'names.yaml'))}: spec.validations[0].expression: type check: /v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'\n | object.metadata.name == 1\n | .....................^\n`,
    );
    assert.equal(r.json.plugins[0]!.typeCheckWarnings, 1);
    // --warnings-as-errors makes it fail
    assert.equal((await run(['validate', '--plugin', 'ValidatingAdmissionPolicy', r.dir, '--warnings-as-errors'])).code, 1);
  });

  it('object.spec.replica > 1 on Deployments; messageExpression checked too, `namespace` found as upstream finds it', async () => {
    const r = await validate({
      'replicas.yaml': vap('replicas.static.k8s.io', deployments, `[{expression: "object.spec.replica > 1", messageExpression: "'in ' + object.metadata.namespace + object.spec.replicas"}, {expression: "object.spec.replicas > 1", messageExpression: "'n=' + string(object.spec.replicas)"}]`),
    });
    assert.equal(r.code, 0, r.err);
    const warnings = r.json.plugins[0]!.warnings;
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(warnings[0]!, /^ValidatingAdmissionPolicy "replicas\.static\.k8s\.io" in ".*replicas\.yaml": spec\.validations\[0\]\.expression: type check: apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n \| object\.spec\.replica > 1\n \| \.{11}\^$/);
    assert.match(warnings[1]!, /spec\.validations\[0\]\.messageExpression: type check: apps\/v1, Kind=Deployment: ERROR: <input>:1:\d+: found no matching overload for '_\+_' applied to '\(string, int\)'/);
  });

  it('a container image compared with an int on Pods; startsWith(1) is refused at load already, as upstream refuses it', async () => {
    const r = await validate({ 'images.yaml': vap('images.static.k8s.io', pods, '[{expression: "object.spec.containers.all(c, c.image == 1)"}]') });
    assert.equal(r.code, 0, r.err);
    assert.match(r.json.plugins[0]!.warnings[0]!, /spec\.validations\[0\]\.expression: type check: \/v1, Kind=Pod: ERROR: <input>:1:39: found no matching overload for '_==_' applied to '\(string, int\)'/);
    // `dyn.startsWith(int)` has no overload even with object dyn: the compile every load runs refuses it
    const refused = await validate({ 'images.yaml': vap('images.static.k8s.io', pods, '[{expression: "object.spec.containers.all(c, c.image.startsWith(1))"}]') });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /found no matching overload for 'startsWith' applied to 'dyn\.\(int\)'/);
  });

  it('a misspelt field in a MutatingAdmissionPolicy apply configuration', async () => {
    const map = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {name: scale.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: ${deployments}
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: "Object{spec: Object.spec{replica: 1}}"
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: "a", resources: Object.spec.template.spec.containers.resources{limits: {"cpu": "1"}}}]}}}}'
`;
    const r = await validate({ 'scale.yaml': map }, 'MutatingAdmissionPolicy');
    assert.equal(r.code, 0, r.err);
    const warnings = r.json.plugins[0]!.warnings;
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /^MutatingAdmissionPolicy "scale\.static\.k8s\.io" in ".*scale\.yaml": spec\.mutations\[0\]\.applyConfiguration\.expression: type check: apps\/v1, Kind=Deployment: ERROR: <input>:1:33: undefined field 'replica'\n \| Object\{spec: Object\.spec\{replica: 1\}\}\n \| \.{32}\^$/);
  });

  it('variables are compiled against the kind first, so their types carry into the validations', async () => {
    const r = await validate({
      'vars.yaml': vap('vars.static.k8s.io', deployments, '[{expression: "variables.replicas == \'3\'"}]', '  variables: [{name: replicas, expression: "object.spec.replicas"}]\n'),
    });
    assert.match(r.json.plugins[0]!.warnings[0]!, /apps\/v1, Kind=Deployment: ERROR: <input>:1:20: found no matching overload for '_==_' applied to '\(int, string\)'/);
  });

  it('webhook matchConditions are checked against the kinds of their rules', async () => {
    const hooks = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hooks.static.k8s.io}
webhooks:
- name: a.example.static.k8s.io
  clientConfig: {url: "https://127.0.0.1:1/validate"}
  admissionReviewVersions: [v1]
  sideEffects: None
  rules: ${configMaps}
  matchConditions:
  - {name: ok, expression: "object.metadata.name != ''"}
  - {name: typo, expression: "object.metadata.nam != ''"}
`;
    const r = await validate({ 'hooks.yaml': hooks }, 'ValidatingAdmissionWebhook');
    assert.equal(r.code, 0, r.err);
    const warnings = r.json.plugins[0]!.warnings.filter((w) => w.includes('type check'));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /ValidatingWebhookConfiguration "hooks\.static\.k8s\.io" in ".*hooks\.yaml": webhooks\[0\]\.matchConditions\[1\]\.expression: type check: \/v1, Kind=ConfigMap: ERROR: <input>:1:16: undefined field 'nam'/);
  });

  it('one warning per expression over every kind matched, joined as upstream joins them; wildcards give none', async () => {
    const both = '[{apiGroups: ["", apps], apiVersions: [v1], operations: [CREATE], resources: [configmaps, deployments]}]';
    const r = await validate({
      'a.yaml': vap('both.static.k8s.io', both, '[{expression: "object.spec.x == 1"}]'),
      'b.yaml': vap('wild.static.k8s.io', '[{apiGroups: ["*"], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]', '[{expression: "object.metadata.name == 1"}]'),
      'c.yaml': vap('subresource.static.k8s.io', '[{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: ["deployments/scale", "*"]}]', '[{expression: "object.metadata.name == 1"}]'),
    });
    const warnings = r.json.plugins[0]!.warnings.filter((w) => w.includes('type check'));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    // sorted by group, version, kind: the core group first
    assert.match(warnings[0]!, /type check: \/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n \| object\.spec\.x == 1\n \| \.{6}\^\n\napps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'x'\n \| object\.spec\.x == 1\n \| \.{11}\^$/);
  });

  it('custom resources: said once per resource without a schema, checked against --crd', async () => {
    const widgets = '[{apiGroups: [example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]';
    const files = {
      'a.yaml': vap('a.static.k8s.io', widgets, '[{expression: "object.spec.size > 1"}]'),
      'b.yaml': vap('b.static.k8s.io', widgets, '[{expression: "object.spec.colour == \'red\'"}]'),
    };
    const without = await validate(files);
    assert.equal(without.json.plugins[0]!.warnings.length, 0);
    assert.deepEqual(without.json.plugins[0]!.notes, [
      'no schema for example.com/v1/widgets (matched by ValidatingAdmissionPolicy "a.static.k8s.io", ValidatingAdmissionPolicy "b.static.k8s.io"): its expressions are not type-checked against it; give the CustomResourceDefinition with --crd DIR',
    ]);
    const { dir: crds } = tempDir('sad-crds-');
    writeFiles(crds, {
      'crds.yaml': `apiVersion: v1
kind: List
items:
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: widgets.example.com}
  spec:
    group: example.com
    names: {kind: Widget, plural: widgets, singular: widget}
    scope: Namespaced
    versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
                color: {type: string}
                port: {x-kubernetes-int-or-string: true}
`,
    });
    const withCRDs = await validate(files, 'ValidatingAdmissionPolicy', '--crd', crds);
    assert.equal(withCRDs.json.plugins[0]!.notes, undefined);
    const warnings = withCRDs.json.plugins[0]!.warnings;
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /"b\.static\.k8s\.io".*example\.com\/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'colour'/);
  });

  it('warnings change nothing that loads: same counts and hash as the same directory without the mistakes', async () => {
    const bad = await validate({ 'p.yaml': vap('p.static.k8s.io', configMaps, '[{expression: "object.metadata.name == 1"}]') });
    assert.equal(bad.json.plugins[0]!.typeCheckWarnings, 1);
    assert.deepEqual(bad.json.plugins[0]!.counts, { ValidatingAdmissionPolicy: 1 });
    const hash = await run(['hash', bad.dir]);
    assert.equal(bad.json.plugins[0]!.hash, hash.out.trim());
  });
});
