// The manifests this project ships (testdata: the --dev examples, the admission fixtures, the test suites' and the
// bench sets; systemd/; docs/) and the sets bench/generate.ts writes type-check without a single warning. Where
// upstream's TypeChecker warned on them (the PSS-style bench policies concatenated `containers` and `initContainers`,
// two list types to it, and read the Quantity maps `resources.limits` / `requests`, which have no CEL type; the
// generated sets put container checks on kinds without containers) the expressions were rewritten to forms it
// accepts that decide the same; type-check-upstream.test.ts holds upstream's checker to 0 on the bench sets too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { generate } from '../../bench/generate.js';
import type { AdmissionPolicy, WebhookConfiguration } from '../../lib/manifest/load.js';
import { typeCheckManifests } from '../../lib/manifest/type-check.js';
import { root } from '../e2e/helpers.js';
import { tempDir } from '../helpers/fs.js';

function manifestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'type-check' && dir.endsWith('testdata') ? [] : manifestFiles(path);
    return /\.(ya?ml|json)$/.test(e.name) ? [path] : [];
  });
}

/** Every type-check warning on the files, as "file fieldRef message"; and how many objects were checked. */
function typeCheckFiles(files: readonly string[]): { found: string[]; checked: number } {
  const found: string[] = [];
  let checked = 0;
  for (const file of files) {
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
  return { found, checked };
}

test('shipped manifests: no type-check warnings, the PSS-style bench policies included', () => {
  const { found, checked } = typeCheckFiles(['testdata', 'systemd', 'docs'].flatMap((d) => manifestFiles(join(root, d))));
  assert.ok(checked >= 50, `only ${checked} objects found`);
  assert.deepEqual(found, []);
});

test('bench/generate.ts: no type-check warnings on a generated set (each kind\'s checks on its own fields)', () => {
  const { dir, cleanup } = tempDir('sad-generated-');
  try {
    const { found, checked } = typeCheckFiles(generate(dir, 100, 3));
    assert.equal(checked, 100);
    assert.deepEqual(found, []);
  } finally {
    cleanup();
  }
});
