// The manifests this project ships (testdata: the --dev examples, the admission fixtures, the test suites' and the
// bench sets; systemd/; docs/) type-check without warnings, except where upstream's own TypeChecker warns too: the
// PSS-style bench policies concatenate `containers` and `initContainers` (two list types to upstream, named by their
// paths) and read `resources.limits` / `requests` (Quantity has no CEL type upstream, so those fields are left out of
// the schema type). Those expressions work at admission; the warnings are upstream's (type-check-upstream.test.ts
// compares them byte for byte) and listed here, so that any other warning fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AdmissionPolicy, WebhookConfiguration } from '../../lib/manifest/load.js';
import { typeCheckManifests } from '../../lib/manifest/type-check.js';
import { root } from '../e2e/helpers.js';

/** Upstream's warnings on the bench policies: file, field path, the start of the message. */
const UPSTREAM_WARNS = [
  ['01-pss-privileged.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['05-pss-capabilities.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['05-pss-capabilities.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['06-pss-proc-mount.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['07-pss-seccomp.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['09-pss-run-as-non-root.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['09-pss-run-as-non-root.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['10-pss-run-as-user.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['11-pss-privilege-escalation.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['11-pss-privilege-escalation.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['14-pss-selinux.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['15-image-registry.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['16-image-tag.yaml', 'spec.validations[0].expression', "found no matching overload for '_+_'"],
  ['16-image-tag.yaml', 'spec.validations[1].expression', "found no matching overload for '_+_'"],
  ['17-resources.yaml', 'spec.validations[0].expression', "undefined field 'limits'"],
  ['17-resources.yaml', 'spec.validations[1].expression', "undefined field 'requests'"],
].map(([file, field, message]) => `testdata/bench/policies/${file} ${field} ${message}`);

function manifestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'type-check' && dir.endsWith('testdata') ? [] : manifestFiles(path);
    return /\.(ya?ml|json)$/.test(e.name) ? [path] : [];
  });
}

test('shipped manifests: no type-check warnings but upstream\'s own on the PSS-style bench policies', () => {
  const found: string[] = [];
  let checked = 0;
  for (const file of ['testdata', 'systemd', 'docs'].flatMap((d) => manifestFiles(join(root, d)))) {
    let docs: unknown[];
    try {
      docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as unknown);
    } catch {
      continue;
    }
    const objects = docs.flatMap((d): Array<{ kind?: string } | null> => {
      const o = d as { kind?: string; items?: unknown[] } | null;
      return o?.kind?.endsWith('List') === true && Array.isArray(o.items) ? o.items.map((i) => ({ kind: o.kind!.slice(0, -4), ...(i as object) })) : [o];
    });
    for (const kind of ['ValidatingAdmissionPolicy', 'MutatingAdmissionPolicy', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const ofKind = objects.filter((o) => o?.kind === kind);
      if (ofKind.length === 0) continue;
      checked += ofKind.length;
      const loaded = kind.endsWith('Policy')
        ? { family: 'policy' as const, policies: ofKind as AdmissionPolicy[], bindings: [] }
        : { family: 'webhook' as const, configurations: ofKind as WebhookConfiguration[] };
      for (const w of typeCheckManifests(kind, loaded).warnings) {
        found.push(`${relative(root, file)} ${w.fieldRef} ${/ERROR: <input>:\d+:\d+: (.*)/.exec(w.warning)?.[1] ?? w.warning}`);
      }
    }
  }
  assert.ok(checked >= 50, `only ${checked} objects found`);
  const unexpected = found.filter((f) => !UPSTREAM_WARNS.some((u) => f.startsWith(u)));
  assert.deepEqual(unexpected, []);
  assert.equal(found.length, UPSTREAM_WARNS.length, found.join('\n'));
});
