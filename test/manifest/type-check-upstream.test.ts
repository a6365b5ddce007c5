// The type-check warnings held against upstream's own TypeChecker (k8s.io/apiserver v0.36.3
// pkg/admission/plugin/policy/validating/typechecking.go, with the controller manager's schema resolver over
// k8s.io/kubernetes v1.36.3's OpenAPI definitions and a discovery REST mapper), which tools/kind-schemas -check runs:
// the same warnings, field for field and byte for byte, on testdata/type-check/policies.yaml (a spread of mistakes
// and correct expressions over many kinds) and on the bench policies (PSS-style) and bench/generate.ts's sets (where
// both find none). Upstream names struct types with
// the clock's nanoseconds (`Pod741079423.spec…`); those digits are the one difference allowed. Also: the committed
// kinds.generated.ts is what the generator writes now. Needs Go (the first build of upstream takes minutes): skipped
// without it, except in CI, where it fails.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KIND_SCHEMAS_JSON } from '../../lib/cel/schemas/kinds.generated.js';
import type { AdmissionPolicy } from '../../lib/manifest/load.js';
import { typeCheckManifests } from '../../lib/manifest/type-check.js';
import { root } from '../e2e/helpers.js';
import { generate } from '../../bench/generate.js';
import { tempDir } from '../helpers/fs.js';

const goMissing = spawnSync('go', ['version'], { stdio: 'ignore' }).error !== undefined;
const needsGo = { skip: goMissing && process.env['CI'] !== 'true' ? 'go not installed' : false, timeout: 900_000 } as const;
const tool = join(root, 'tools/kind-schemas');

const buildDir = tempDir('sad-kind-schemas-');
after(() => buildDir.cleanup());

let binary: string | undefined;
function kindSchemas(...args: string[]): string {
  if (binary === undefined) {
    const built = join(buildDir.dir, 'kind-schemas');
    execFileSync('go', ['build', '-o', built, '.'], { cwd: tool, stdio: ['ignore', 'ignore', 'inherit'] });
    binary = built;
  }
  const kubernetes = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'k8s.io/kubernetes'], { cwd: tool, encoding: 'utf8' }).trim();
  return execFileSync(binary, ['-discovery', join(kubernetes, 'api/discovery'), ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

interface Warning { policy: string; fieldRef: string; warning: string }

function upstream(files: readonly string[]): Warning[] {
  return kindSchemas('-check', ...files)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Warning)
    .map((w) => ({ policy: w.policy, fieldRef: w.fieldRef, warning: w.warning.replace(/\b([A-Z][A-Za-z]*?)\d+(?=\.)/g, '$1') }));
}

function ours(files: readonly string[]): Warning[] {
  const out: Warning[] = [];
  for (const file of files) {
    const policies = parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS() as AdmissionPolicy | null)
      .filter((p): p is AdmissionPolicy => p?.kind === 'ValidatingAdmissionPolicy');
    for (const w of typeCheckManifests('ValidatingAdmissionPolicy', { family: 'policy', policies, bindings: [] }).warnings) {
      out.push({ policy: w.owner.replace(/^ValidatingAdmissionPolicy "(.*)"$/, '$1'), fieldRef: w.fieldRef, warning: w.warning });
    }
  }
  return out;
}

const key = (w: Warning): string => `${w.policy} ${w.fieldRef}`;
const byKey = (ws: Warning[]): Warning[] => ws.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

test('the warnings are upstream TypeChecker\'s, on generated mistakes over many kinds, the PSS-style bench policies and the generated bench sets', needsGo, () => {
  const bench = join(root, 'testdata/bench/policies');
  const fixture = join(root, 'testdata/type-check/policies.yaml');
  const files = [fixture, ...readdirSync(bench).filter((f) => f.endsWith('.yaml')).map((f) => join(bench, f)), ...generate(tempDir('sad-generated-').dir, 100)];
  const expected = byKey(upstream(files));
  // the fixture is only worth comparing on if upstream finds plenty in it (the bench sets give none)
  assert.ok(expected.length >= 34, `upstream found only ${expected.length} warnings`);
  // upstream's own checker finds nothing in the bench sets: their expressions were written to type-check
  const inFixture = fixturePolicies(fixture);
  assert.deepEqual(expected.filter((w) => !inFixture.has(w.policy)), []);
  assert.deepEqual(byKey(ours(files)), expected);
});

function fixturePolicies(file: string): Set<string> {
  return new Set([...readFileSync(file, 'utf8').matchAll(/metadata: \{name: ([^}]+)\}/g)].map((m) => m[1]!));
}

test('lib/cel/schemas/kinds.generated.ts is what scripts/gen-kind-schemas.mjs writes from upstream now', needsGo, () => {
  assert.equal(kindSchemas().trim(), KIND_SCHEMAS_JSON);
});
