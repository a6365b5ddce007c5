import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readAdmissionConfiguration } from '../../lib/config/admission-config.js';
import { defaultFeatureGates, parseFeatureGates } from '../../lib/config/feature-gates.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

const gatesOn = defaultFeatureGates;

function config(dir: string, plugins: string, apiVersion = 'apiserver.config.k8s.io/v1'): string {
  const file = join(dir, 'admission-config.yaml');
  writeFiles(dir, { 'admission-config.yaml': `apiVersion: ${apiVersion}\nkind: AdmissionConfiguration\nplugins:\n${plugins}` });
  return file;
}

const policyPlugin = (dir: string): string => `- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: ${JSON.stringify(dir)}
`;

test('reads inline and path plugin configurations, both AdmissionConfiguration versions, ignores other plugins', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, {
      'vap/.keep': '', 'vwh/.keep': '',
      'webhook.yaml': `apiVersion: apiserver.config.k8s.io/v1\nkind: WebhookAdmissionConfiguration\nkubeConfigFile: /etc/k/kubeconfig\nstaticManifestsDir: ${join(dir, 'vwh')}\n`,
    });
    for (const apiVersion of ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1']) {
      const file = config(dir, `- name: EventRateLimit
  path: eventratelimit.yaml
${policyPlugin(join(dir, 'vap'))}- name: ValidatingAdmissionWebhook
  path: webhook.yaml
`, apiVersion);
      const setup = readAdmissionConfiguration(file, gatesOn);
      assert.deepEqual(setup.plugins, [
        { plugin: 'ValidatingAdmissionPolicy', staticManifestsDir: join(dir, 'vap'), kubeConfigFile: '' },
        { plugin: 'ValidatingAdmissionWebhook', staticManifestsDir: join(dir, 'vwh'), kubeConfigFile: '/etc/k/kubeconfig' },
      ]);
    }
  } finally {
    cleanup();
  }
});

test('staticManifestsDir rules in upstream order and wording', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'file.yaml': 'x' });
    const cases: Array<[string, string]> = [
      ['relative/dir', 'staticManifestsDir: Invalid value: "relative/dir": must be an absolute file path'],
      [join(dir, 'missing'), `staticManifestsDir: Invalid value: "${join(dir, 'missing')}": unable to read: stat ${join(dir, 'missing')}: no such file or directory`],
      [join(dir, 'file.yaml'), `staticManifestsDir: Invalid value: "${join(dir, 'file.yaml')}": must be a directory`],
      [join(dir, '*'), `staticManifestsDir: Invalid value: "${join(dir, '*')}": unable to read: stat ${join(dir, '*')}: no such file or directory`],
    ];
    for (const [value, message] of cases) {
      assert.throws(() => readAdmissionConfiguration(config(dir, policyPlugin(value)), gatesOn), { message });
    }
    assert.throws(() => readAdmissionConfiguration(config(dir, policyPlugin(dir)), parseFeatureGates('ManifestBasedAdmissionControlConfig=false')), {
      message: 'staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled',
    });
    // an empty value means the feature is off for that plugin: valid, and the plugin is not served
    assert.deepEqual(readAdmissionConfiguration(config(dir, policyPlugin('')), gatesOn).plugins, []);
  } finally {
    cleanup();
  }
});

test('kubeConfigFile must be absolute when set; strict decoding of plugin configurations', () => {
  const { dir, cleanup } = tempDir();
  try {
    const webhook = (body: string): string => `- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
${body}`;
    assert.throws(() => readAdmissionConfiguration(config(dir, webhook(`    kubeConfigFile: kube.conf\n    staticManifestsDir: ${dir}\n`)), gatesOn),
      { message: 'kubeConfigFile: Invalid value: "kube.conf": must be an absolute file path' });
    assert.throws(() => readAdmissionConfiguration(config(dir, webhook(`    staticManifestDir: ${dir}\n`)), gatesOn),
      { message: 'strict decoding error: unknown field "staticManifestDir"' });
    assert.throws(() => readAdmissionConfiguration(config(dir, `- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: ${dir}
`), gatesOn), { message: 'unexpected type: *v1.WebhookAdmissionConfiguration' });
  } finally {
    cleanup();
  }
});

test('feature gates parse like component-base', () => {
  assert.equal(parseFeatureGates('ManifestBasedAdmissionControlConfig=false').ManifestBasedAdmissionControlConfig, false);
  assert.equal(parseFeatureGates('').ExcludeAdmissionWebhookVirtualResources, true);
  assert.throws(() => parseFeatureGates('Nope=true'), { message: 'unrecognized feature gate: Nope' });
  assert.throws(() => parseFeatureGates('ManifestBasedAdmissionControlConfig=maybe'), /invalid value of ManifestBasedAdmissionControlConfig=maybe/);
});
