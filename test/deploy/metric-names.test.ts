// Every metric the alert rules and the Grafana dashboard name, and every label they match on, is exported by the real
// daemon: the executable is started with policies, mutating policies, static webhooks (real local HTTPS servers, one
// unreachable under Ignore, one under Fail), a registration file and a shadow set (--shadow-admission-config), sent requests on /validate and /mutate so that
// each family has series, and scraped. Expressions are parsed with the Prometheus project's PromQL grammar
// (@prometheus-io/lezer-promql); histogram selectors end in _bucket/_sum/_count.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';
import { freePort } from '../../bench/util.js';
import { run } from '../cli/helpers.js';
import { post, root, spawnDaemon, stop, waitFor } from '../e2e/helpers.js';
import type { Daemon } from '../e2e/helpers.js';
import { tempDir } from '../helpers/fs.js';
import { parseMetrics, waitFor as poll } from '../reload/helpers.js';
import { allow, configMapRequest, configurationYAML, patchReply, startWebhookServer, testPKI } from '../webhook/helpers.js';
import type { WebhookServer } from '../webhook/helpers.js';

const deploy = join(root, 'deploy/prometheus');
/** Series Prometheus makes itself, and the labels it adds to every scraped series. */
const prometheusOwn = new Set(['up']);
const targetLabels = new Set(['job', 'instance']);

interface Selector { readonly metric: string; readonly labels: readonly string[]; readonly where: string }

/** The vector selectors of a PromQL expression; fails on an expression the grammar does not accept. */
function selectors(expr: string, where: string): Selector[] {
  // Grafana's interval variables stand where a duration goes; label-value variables sit inside quoted strings
  const text = expr.replace(/\$__(rate_interval|interval|range)/g, '5m');
  const tree = parser.parse(text);
  const found: Selector[] = [];
  let error = -1;
  tree.iterate({
    enter(node) {
      if (node.type.isError && error === -1) error = node.from;
      if (node.name !== 'VectorSelector') return;
      const id = node.node.getChild('Identifier');
      const labels: string[] = [];
      const matchers = node.node.getChild('LabelMatchers');
      if (matchers !== null) {
        const cursor = matchers.cursor();
        cursor.iterate((n) => {
          if (n.name === 'LabelName') labels.push(text.slice(n.from, n.to));
        });
      }
      if (id !== null) found.push({ metric: text.slice(id.from, id.to), labels, where });
    },
  });
  assert.equal(error, -1, `${where}: PromQL does not parse at ${error}: ${text}`);
  return found;
}

function ruleSelectors(): Selector[] {
  const groups = (parse(readFileSync(join(deploy, 'static-admissiond.rules.yaml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups;
  return groups.flatMap((g) => g.rules.flatMap((r) => selectors(r.expr, `rule ${r.alert}`)));
}

function dashboardSelectors(): Selector[] {
  interface Panel { title: string; targets?: Array<{ expr: string }>; panels?: Panel[] }
  const dashboard = JSON.parse(readFileSync(join(deploy, 'grafana-dashboard.json'), 'utf8')) as { panels: Panel[]; templating: { list: Array<{ name: string; type: string; definition?: string }> } };
  const out: Selector[] = [];
  const walk = (panels: readonly Panel[]): void => {
    for (const p of panels) {
      for (const t of p.targets ?? []) out.push(...selectors(t.expr, `panel "${p.title}"`));
      walk(p.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) {
    // label_values(<series selector>, <label>)
    const m = /^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$/.exec(v.definition ?? '');
    assert.ok(m, `variable ${v.name}: ${v.definition}`);
    out.push(...selectors(m[1]!, `variable ${v.name}`));
  }
  return out;
}

/** Metric names a scrape exposes (histograms' and summaries' series included), with the labels each carries. */
function exported(text: string): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  const add = (name: string, labels: Iterable<string> = []): void => {
    const set = names.get(name) ?? new Set<string>();
    for (const l of labels) set.add(l);
    names.set(name, set);
  };
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    add(m[1]!);
    if (m[2] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) add(m[1]! + suffix);
    if (m[2] === 'summary') for (const suffix of ['_sum', '_count']) add(m[1]! + suffix);
  }
  for (const s of parseMetrics(text)) add(s.name, Object.keys(s.labels));
  return names;
}

const tmp = tempDir('sad-metric-names-');
let daemon: Daemon | undefined;
let servers: WebhookServer[] = [];
let scrape = '';

before(async () => {
  const { ca, serving } = await testPKI();
  const ok = await startWebhookServer({ serving }, (r) => allow(r, { warnings: ['seen'] }));
  const patcher = await startWebhookServer({ serving }, (r) => patchReply(r, [{ op: 'add', path: '/metadata/annotations', value: { seen: 'yes' } }]));
  servers = [ok, patcher];
  // nothing listens here: calls fail with connection refused
  const closed = `https://127.0.0.1:${await freePort()}`;
  const dir = tmp.dir;
  mkdirSync(join(dir, 'policies'));
  copyFileSync(join(root, 'testdata/dev/policies/deny-privileged.yaml'), join(dir, 'policies/deny-privileged.yaml'));
  mkdirSync(join(dir, 'mutating-policies'));
  copyFileSync(join(root, 'testdata/dev/mutating-policies/default-team-label.yaml'), join(dir, 'mutating-policies/default-team-label.yaml'));
  mkdirSync(join(dir, 'validating'));
  writeFileSync(join(dir, 'validating/hooks.yaml'), configurationYAML('ValidatingWebhookConfiguration', 'hooks.static.k8s.io', [
    { name: 'ok.example.static.k8s.io', url: `${ok.url}/validate`, caPEM: ca.certPEM },
    { name: 'open.example.static.k8s.io', url: `${closed}/validate`, caPEM: ca.certPEM, failurePolicy: 'Ignore' },
    {
      name: 'closed.example.static.k8s.io', url: `${closed}/validate`, caPEM: ca.certPEM, failurePolicy: 'Fail',
      extra: '  matchConditions:\n  - name: only-fail-closed\n    expression: "object.metadata.name == \'fail-closed\'"\n',
    },
    {
      name: 'cond.example.static.k8s.io', url: `${ok.url}/validate`, caPEM: ca.certPEM, failurePolicy: 'Ignore',
      extra: '  matchConditions:\n  - name: errors\n    expression: "object.data.missing == \'x\'"\n',
    },
  ]));
  mkdirSync(join(dir, 'mutating'));
  writeFileSync(join(dir, 'mutating/hooks.yaml'), configurationYAML('MutatingWebhookConfiguration', 'annotate.static.k8s.io', [
    { name: 'annotate.example.static.k8s.io', url: `${patcher.url}/mutate`, caPEM: ca.certPEM },
  ]));
  const plugin = (name: string, kind: string, sub: string): string => `- name: ${name}
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ${kind}, staticManifestsDir: ${join(dir, sub)}}
`;
  const config = join(dir, 'admission-config.yaml');
  writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
${plugin('ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyConfiguration', 'policies')}${plugin('MutatingAdmissionPolicy', 'MutatingAdmissionPolicyConfiguration', 'mutating-policies')}${plugin('ValidatingAdmissionWebhook', 'WebhookAdmissionConfiguration', 'validating')}${plugin('MutatingAdmissionWebhook', 'WebhookAdmissionConfiguration', 'mutating')}`);
  // the candidate: the dev policies, no mutating policy (so /mutate differs)
  mkdirSync(join(dir, 'shadow-policies'));
  for (const f of ['deny-privileged.yaml', 'protect-configmaps.yaml']) copyFileSync(join(root, 'testdata/dev/policies', f), join(dir, 'shadow-policies', f));
  const shadowConfig = join(dir, 'shadow-config.yaml');
  writeFileSync(shadowConfig, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
${plugin('ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyConfiguration', 'shadow-policies')}`);
  writeFileSync(join(dir, 'ca.crt'), ca.certPEM);
  const registration = await run(['registration', '--admission-config', config, '--ca-file', join(dir, 'ca.crt')]);
  assert.equal(registration.code, 0, registration.err);
  writeFileSync(join(dir, 'registration.yaml'), registration.out);

  const d = spawnDaemon(['serve', '--dev', '--admission-config', config, '--secure-port', '0', '--health-bind-address', '127.0.0.1:0',
    '--workers', '1', '--registration-file', join(dir, 'registration.yaml'), '--shadow-admission-config', shadowConfig]);
  daemon = d;
  const health = await waitFor('the health URL', () => /"Serving health and metrics".*? url="([^"]+)"/.exec(d.stderr())?.[1], d);
  const admission = await waitFor('the admission URL', () => /"Serving admission webhooks".*? url="(https:[^"]+)"/.exec(d.stderr())?.[1], d);
  const daemonCA = readFileSync(await waitFor('the dev CA', () => /its CA is (\S+)/.exec(d.stdout())?.[1], d), 'utf8');
  await poll('the shadow set', async () => (await fetch(`${health}/readyz/shadow-manifests-loaded`)).status === 200, 20_000, 50);
  const review = (request: unknown): string => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
  const answers = [
    await post(`${admission}/validate`, daemonCA, readFileSync(join(root, 'testdata/dev/requests/privileged-pod.json'))),
    await post(`${admission}/validate`, daemonCA, review(configMapRequest())),
    await post(`${admission}/validate`, daemonCA, review(configMapRequest({ name: 'fail-closed', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fail-closed', namespace: 'default' } } }))),
    await post(`${admission}/mutate`, daemonCA, readFileSync(join(root, 'testdata/dev/requests/configmap.json'))),
  ];
  for (const a of answers) assert.equal(a.status, 200, a.body);
  // the shadow set decides after the answers went out: scrape once it has decided all four
  scrape = await poll('the shadow decisions', async () => {
    const text = await (await fetch(`${health}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const decided = parseMetrics(text).filter((s) => s.name === 'static_admissiond_shadow_requests_total').reduce((n, s) => n + s.value, 0);
    return decided >= answers.length ? text : undefined;
  }, 20_000, 50);
});

after(async () => {
  if (daemon) await stop(daemon);
  await Promise.all(servers.map((s) => s.close()));
  tmp.cleanup();
});

test('the requests produced the series the alerts are about', () => {
  const has = (name: string, labels: Record<string, string>): boolean =>
    parseMetrics(scrape).some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(has('apiserver_admission_webhook_fail_open_count', { name: 'open.example.static.k8s.io', type: 'validating' }), 'fail-open');
  assert.ok(has('apiserver_admission_webhook_rejection_count', { name: 'closed.example.static.k8s.io', error_type: 'calling_webhook_error' }), 'call failure');
  assert.ok(has('apiserver_admission_match_condition_evaluation_errors_total', { name: 'cond.example.static.k8s.io' }), 'match condition error');
  assert.ok(has('apiserver_validating_admission_policy_check_total', { policy: 'deny-privileged.static.k8s.io' }), 'validating policy check');
  assert.ok(has('apiserver_mutating_admission_policy_check_total', { policy: 'default-team-label.static.k8s.io' }), 'mutating policy check');
  assert.ok(has('apiserver_manifest_admission_config_controller_last_config_info', { plugin: 'ValidatingAdmissionPolicy' }), 'config info');
  assert.ok(has('static_admissiond_registration_uncovered_objects', { plugin: 'ValidatingAdmissionPolicy' }), 'registration drift gauge');
  assert.ok(has('static_admissiond_shadow_decisions_total', { policy: 'deny-privileged.static.k8s.io', enforced: 'deny', shadow: 'deny' }), 'shadow decisions');
  assert.ok(has('static_admissiond_shadow_decisions_total', { policy: 'default-team-label.static.k8s.io', enforced: 'allow', shadow: 'absent' }), 'shadow difference');
  assert.ok(has('static_admissiond_shadow_reloads_total', { plugin: 'ValidatingAdmissionPolicy', status: 'success' }), 'shadow loads');
});

for (const [what, list] of [['alert rules', ruleSelectors], ['Grafana dashboard', dashboardSelectors]] as const) {
  test(`every metric and label the ${what} name is exported by the daemon`, () => {
    const names = exported(scrape);
    const used = list();
    assert.ok(new Set(used.map((s) => s.metric)).size >= 10, `the ${what} name ${used.length} selectors`);
    const missing = used.filter((s) => !prometheusOwn.has(s.metric) && !names.has(s.metric)).map((s) => `${s.where}: ${s.metric}`);
    assert.deepEqual([...new Set(missing)], [], `metrics the daemon does not export:\n${missing.join('\n')}`);
    const badLabels = used.flatMap((s) => {
      const carried = names.get(s.metric);
      if (carried === undefined || carried.size === 0) return [];
      return s.labels.filter((l) => !targetLabels.has(l) && !carried.has(l)).map((l) => `${s.where}: ${s.metric}{${l}}`);
    });
    assert.deepEqual([...new Set(badLabels)], [], `labels the daemon's series do not carry:\n${badLabels.join('\n')}`);
  });
}

test('the name check is not vacuous: a misspelt metric or label is caught', () => {
  const names = exported(scrape);
  const [bad] = selectors('rate(apiserver_admission_webhook_fail_open_counts{job="static-admissiond"}[5m])', 'probe');
  assert.equal(names.has(bad!.metric), false);
  const [label] = selectors('apiserver_admission_webhook_rejection_count{error_typ="calling_webhook_error"}', 'probe');
  assert.equal(names.get(label!.metric)?.has('error_typ'), false);
});
