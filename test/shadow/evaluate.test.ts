// compareSets: one request decided by the enforced set and by a candidate, binding by binding, with the labels the
// shadow metric carries (lib/shadow/decisions.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadSnapshotSync } from '../../lib/reload/pipeline.js';
import type { PolicyHook } from '../../lib/manifest/compile.js';
import { compareSets } from '../../lib/shadow/evaluate.js';
import type { PolicySet } from '../../lib/shadow/evaluate.js';
import type { Comparison } from '../../lib/shadow/decisions.js';
import { tempDir, writeFiles } from '../helpers/fs.js';
import { bindingOf, configMapRequest, labelPolicy, named, policy } from './helpers.js';

function hooksOf(plugin: 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy', files: Record<string, string>): readonly PolicyHook[] {
  const { dir, cleanup } = tempDir('sad-shadow-eval-');
  try {
    writeFiles(dir, files);
    const snapshot = loadSnapshotSync(plugin, join(dir));
    return snapshot.compiled.family === 'policy' ? snapshot.compiled.hooks : [];
  } finally {
    cleanup();
  }
}

const c = (stem: string, enforced: string, shadow: string): Comparison => ({ policy: named(stem), binding: bindingOf(stem), enforced, shadow } as Comparison);
const sorted = (c: readonly Comparison[]): Comparison[] => [...c].sort((a, b) => `${a.policy}/${a.binding}`.localeCompare(`${b.policy}/${b.binding}`));

const enforced: PolicySet = {
  validating: hooksOf('ValidatingAdmissionPolicy', {
    'names.yaml': policy('names', "object.metadata.name != 'forbidden'"),
    'gone.yaml': policy('gone', "object.metadata.name != 'forbidden'"),
    'unmatched.yaml': policy('unmatched', 'false').replace('resources: ["configmaps"]', 'resources: ["secrets"]'),
  }),
  mutating: hooksOf('MutatingAdmissionPolicy', { 'team.yaml': labelPolicy('team', 'team', '"unassigned"') }),
};
const candidate: PolicySet = {
  validating: hooksOf('ValidatingAdmissionPolicy', {
    // the same policy, its binding only warning now
    'names.yaml': policy('names', "object.metadata.name != 'forbidden'", { actions: '[Warn]' }),
    'blocked.yaml': policy('blocked', "!object.metadata.name.startsWith('blocked')"),
    'audited.yaml': policy('audited', "object.metadata.name != 'forbidden'", { actions: '[Audit]' }),
    // no such key: an evaluation error, admitted under Ignore, a denial under Fail
    'ignored.yaml': policy('ignored', "object.data.missing == 'x'", { failurePolicy: 'Ignore' }),
    'failing.yaml': policy('failing', "object.data.missing == 'x'", { failurePolicy: 'Fail' }),
    'unmatched.yaml': policy('unmatched', 'false').replace('resources: ["configmaps"]', 'resources: ["secrets"]'),
  }),
  mutating: hooksOf('MutatingAdmissionPolicy', {
    'team.yaml': labelPolicy('team', 'team', '"platform"'),
    // no such key: a runtime error under failurePolicy Fail
    'broken.yaml': labelPolicy('broken', 'x', 'object.data.missing'),
  }),
};

test('a denial the candidate turns into a warning, and what only the candidate holds, per policy and binding', async () => {
  const result = await compareSets('validate', configMapRequest('forbidden'), enforced, candidate);
  assert.equal(result.enforced.allowed, false);
  assert.equal(result.shadow.allowed, false, 'the failing policy denies');
  assert.deepEqual(sorted(result.comparisons), [
    c('audited', 'absent', 'audit'),
    c('blocked', 'absent', 'allow'),
    c('failing', 'absent', 'deny'),
    c('gone', 'deny', 'absent'),
    c('ignored', 'absent', 'error'),
    c('names', 'deny', 'warn'),
  ]);
  assert.match(result.shadow.status?.message ?? '', /ValidatingAdmissionPolicy 'failing.static.k8s.io' with binding 'failing-binding.static.k8s.io' denied request/);
  assert.ok((result.shadow.warnings ?? []).some((w) => w.includes(`'${named('names')}' with binding '${bindingOf('names')}'`)));
});

test('agreements are compared too; a binding neither set matched is left out', async () => {
  const result = await compareSets('validate', configMapRequest('blocked-1'), enforced, candidate);
  assert.equal(result.enforced.allowed, true);
  const names = result.comparisons.find((c) => c.policy === named('names'));
  assert.deepEqual(names, c('names', 'allow', 'allow'));
  assert.deepEqual(result.comparisons.find((c) => c.policy === named('blocked')), c('blocked', 'absent', 'deny'));
  assert.equal(result.comparisons.some((c) => c.policy === named('unmatched')), false);
});

test('/mutate: a mutation that fails under Fail denies, and a different patch is told', async () => {
  const agreeing: PolicySet = { validating: [], mutating: hooksOf('MutatingAdmissionPolicy', { 'team.yaml': labelPolicy('team', 'team', '"platform"') }) };
  const differs = await compareSets('mutate', configMapRequest('cm'), enforced, agreeing);
  assert.deepEqual(differs.comparisons, [c('team', 'allow', 'allow')]);
  assert.equal(differs.patchDiffers, true, 'team=unassigned against team=platform');
  const same = await compareSets('mutate', configMapRequest('cm'), enforced, enforced);
  assert.equal(same.patchDiffers, false);

  const broken = await compareSets('mutate', configMapRequest('cm'), enforced, candidate);
  assert.equal(broken.shadow.allowed, false);
  assert.deepEqual(sorted(broken.comparisons), [
    c('broken', 'absent', 'deny'),
    c('team', 'allow', 'allow'),
  ]);
});

test('answerChanges: what of the answer the candidate would change; a binding only it holds that allows changes nothing', async () => {
  const names = { 'names.yaml': policy('names', "object.metadata.name != 'forbidden'") };
  const base: PolicySet = { validating: hooksOf('ValidatingAdmissionPolicy', names), mutating: [] };
  const withAllowing: PolicySet = { validating: hooksOf('ValidatingAdmissionPolicy', { ...names, 'extra.yaml': policy('extra', 'true') }), mutating: [] };
  const quiet = await compareSets('validate', configMapRequest('fine'), base, withAllowing);
  assert.deepEqual(quiet.comparisons.filter((x) => x.enforced !== x.shadow), [c('extra', 'absent', 'allow')], 'the difference the metric counts');
  assert.deepEqual(quiet.answerChanges, [], 'an allowing binding only the candidate holds changes no answer');

  const denying: PolicySet = { validating: hooksOf('ValidatingAdmissionPolicy', { ...names, 'blocked.yaml': policy('blocked', "!object.metadata.name.startsWith('blocked')") }), mutating: [] };
  assert.deepEqual((await compareSets('validate', configMapRequest('blocked-1'), base, denying)).answerChanges, ['allowed']);
  const worded: PolicySet = { validating: hooksOf('ValidatingAdmissionPolicy', { 'names.yaml': policy('names', "object.metadata.name != 'forbidden'").replace('says no', 'refuses') }), mutating: [] };
  assert.deepEqual((await compareSets('validate', configMapRequest('forbidden'), base, worded)).answerChanges, ['status'], 'both deny, with another message');
  const warning: PolicySet = { validating: hooksOf('ValidatingAdmissionPolicy', { ...names, 'warned.yaml': policy('warned', "object.metadata.name != 'forbidden'", { actions: '[Warn]' }) }), mutating: [] };
  assert.deepEqual((await compareSets('validate', configMapRequest('forbidden'), base, warning)).answerChanges, ['warnings']);
  const patching: PolicySet = { validating: [], mutating: hooksOf('MutatingAdmissionPolicy', { 'team.yaml': labelPolicy('team', 'team', '"platform"') }) };
  assert.deepEqual((await compareSets('mutate', configMapRequest('cm'), enforced, patching)).answerChanges, ['patch']);
});
