#!/usr/bin/env node
// Writes deploy/prometheus/static-admissiond.prometheusrule.yaml: the alerting rules of
// deploy/prometheus/static-admissiond.rules.yaml as a Prometheus Operator PrometheusRule (monitoring.coreos.com/v1),
// groups copied node for node. `--check` writes nothing and exits 1 when the file is not what this would write
// (test/deploy/prometheus.test.ts runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, parseDocument } from 'yaml';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'prometheus');
const source = join(dir, 'static-admissiond.rules.yaml');
const target = join(dir, 'static-admissiond.prometheusrule.yaml');

export function render(rulesText) {
  const rules = parseDocument(rulesText);
  if (rules.errors.length > 0) throw new Error(`${source}: ${rules.errors[0].message}`);
  const out = new Document({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'static-admissiond',
      labels: { 'app.kubernetes.io/name': 'static-admissiond', 'app.kubernetes.io/component': 'alerting' },
    },
    spec: {},
  });
  out.setIn(['spec', 'groups'], rules.get('groups', true));
  out.commentBefore = ' Generated from static-admissiond.rules.yaml by scripts/gen-prometheus-rule.mjs: edit that file and run\n'
    + ' `node scripts/gen-prometheus-rule.mjs`. The rules select job="static-admissiond" (see deploy/prometheus/README.md).';
  return out.toString({ lineWidth: 0 });
}

function main() {
  const text = render(readFileSync(source, 'utf8'));
  if (!process.argv.includes('--check')) {
    writeFileSync(target, text);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== text) {
    process.stderr.write(`${target} is not in step with ${source}: run node scripts/gen-prometheus-rule.mjs\n`);
    process.exitCode = 1;
  }
}

// run as a script; imported (by the tests) it only provides render()
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
