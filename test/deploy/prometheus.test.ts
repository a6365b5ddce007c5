// deploy/prometheus checked with the real promtool: the rules (and the PrometheusRule made from them) load, the unit
// tests pass and cover every alert firing and not firing, and every alert says what to do. Where promtool is not on
// PATH (a newcomer's machine: Node is the only requirement) its tests are skipped, saying so; under CI=true they are
// required and fail without it (.ci/run installs Debian's prometheus package, which ships it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { tempDir } from '../helpers/fs.js';

const root = new URL('../../../', import.meta.url).pathname;
const dir = join(root, 'deploy/prometheus');
const rulesFile = join(dir, 'static-admissiond.rules.yaml');

interface Rule { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
interface Groups { groups: Array<{ name: string; rules: Rule[] }> }

const promtoolMissing = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).error !== undefined;
/** The test option of the tests that run promtool: skipped without it, except in CI, where they fail. */
const needsPromtool = { skip: promtoolMissing && process.env['CI'] !== 'true' ? 'promtool not installed' : false } as const;

async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)('promtool', args, { cwd: dir });
    return stdout + stderr;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') assert.fail('promtool is not installed: apt-get install prometheus (Debian ships promtool in it); .ci/run installs it');
    assert.fail(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

const rules = (): Rule[] => (parse(readFileSync(rulesFile, 'utf8')) as Groups).groups.flatMap((g) => g.rules);

test('promtool check rules accepts the rules file', needsPromtool, async () => {
  const out = await promtool('check', 'rules', rulesFile);
  assert.match(out, new RegExp(`SUCCESS: ${rules().length} rules found`));
});

test('promtool test rules passes, and the tests cover every alert firing and not firing', needsPromtool, async () => {
  const testFile = join(dir, 'static-admissiond.rules.test.yaml');
  const out = await promtool('test', 'rules', testFile);
  assert.match(out, /SUCCESS/);
  const tests = (parse(readFileSync(testFile, 'utf8')) as { tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }> }> }).tests;
  const checks = tests.flatMap((t) => t.alert_rule_test ?? []);
  for (const { alert } of rules()) {
    assert.ok(checks.some((c) => c.alertname === alert && (c.exp_alerts ?? []).length > 0), `${alert} is never tested firing`);
    assert.ok(checks.some((c) => c.alertname === alert && (c.exp_alerts ?? []).length === 0), `${alert} is never tested not firing`);
  }
});

test('every alert has a severity, a summary, a description and a runbook line', () => {
  for (const r of rules()) {
    assert.match(r.labels?.severity ?? '', /^(warning|critical)$/, r.alert);
    for (const key of ['summary', 'description', 'runbook']) assert.ok((r.annotations?.[key] ?? '').trim().length > 20, `${r.alert}: ${key}`);
    assert.match(r.expr, /job="static-admissiond"/, `${r.alert} selects the daemon's job`);
  }
});

const prometheusRule = () => parse(readFileSync(join(dir, 'static-admissiond.prometheusrule.yaml'), 'utf8')) as { apiVersion: string; kind: string; metadata: { name: string }; spec: Groups };

test('the PrometheusRule is generated from the rules and in step with them', async () => {
  // the file is what the generator writes now
  await promisify(execFile)(process.execPath, [join(root, 'scripts/gen-prometheus-rule.mjs'), '--check']);
  const resource = prometheusRule();
  assert.equal(resource.apiVersion, 'monitoring.coreos.com/v1');
  assert.equal(resource.kind, 'PrometheusRule');
  assert.equal(resource.metadata.name, 'static-admissiond');
  assert.deepEqual(resource.spec, parse(readFileSync(rulesFile, 'utf8')) as Groups);
});

test('the PrometheusRule\'s rules load in Prometheus as they are', needsPromtool, async () => {
  const { dir: tmp, cleanup } = tempDir('sad-promrule-');
  try {
    const extracted = join(tmp, 'rules.json');
    writeFileSync(extracted, JSON.stringify(prometheusRule().spec));
    assert.match(await promtool('check', 'rules', extracted), /SUCCESS/);
  } finally {
    cleanup();
  }
});

test('the in-step check is not vacuous: changed rules render a different PrometheusRule', async () => {
  const mod = await import(new URL('../../../scripts/gen-prometheus-rule.mjs', import.meta.url).href) as { render: (text: string) => string };
  const current = readFileSync(join(dir, 'static-admissiond.prometheusrule.yaml'), 'utf8');
  assert.equal(mod.render(readFileSync(rulesFile, 'utf8')), current);
  assert.notEqual(mod.render(readFileSync(rulesFile, 'utf8').replace('for: 15m', 'for: 16m')), current);
});
