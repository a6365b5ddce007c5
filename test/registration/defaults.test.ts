// The printed registration is a fixed point of kube-apiserver's defaulting, so that applying it again is `unchanged`
// (a list item the apiserver completes, such as a rule without `scope`, makes every client-side apply a patch).
// Upstream's defaulting, ported in lib/manifest/defaults.ts (the static loader's): pkg/apis/admissionregistration/v1/
// defaults.go (SetDefaults_ValidatingWebhook, _MutatingWebhook, _Rule, _ServiceReference, _ValidatingAdmissionPolicySpec,
// _MatchResources, _ParamRef) as zz_generated.defaults.go calls them. v1beta1 (the guard on 1.28-1.29,
// pkg/apis/admissionregistration/v1beta1/defaults.go) defaults ValidatingAdmissionPolicySpec.failurePolicy to Fail and
// MatchResources' matchPolicy, namespaceSelector and objectSelector exactly as v1 does, so the same port applies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { applyDefaults } from '../../lib/manifest/defaults.js';
import type { V1Kind } from '../../lib/manifest/scheme.js';
import { createCertificateAuthority } from '../../lib/server/dev-cert.js';
import { run } from '../cli/helpers.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../server/helpers.js';
import { policy, rule } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let caFile: string;
let wildcard: string;

before(async () => {
  tmp = tempDir('sad-registration-defaults-');
  caFile = join(tmp.dir, 'ca.crt');
  writeFileSync(caFile, (await createCertificateAuthority('defaults')).certPEM);
  const dir = join(tmp.dir, 'wildcard');
  mkdirSync(dir);
  writeFileSync(join(dir, 'all.yaml'), policy('all', { rules: rule('["*"]', '["*"]', '["*/*"]', '["*"]'), exclude: rule('[""]', '["*"]', '[secrets]', '["*"]') }));
  wildcard = join(tmp.dir, 'wildcard-config.yaml');
  writeFileSync(wildcard, admissionConfigYAML(dir));
});
after(() => tmp.cleanup());

const variants: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['api 1.27 (enumerated rules, no guard)', ['--format', 'api', '--kube-version', '1.27']],
  ['api 1.28 (v1beta1 guard, matchConditions)', ['--format', 'api', '--kube-version', '1.28']],
  ['api 1.30 (v1 guard)', ['--format', 'api', '--kube-version', '1.30']],
  ['api 1.30 with the system namespaces', ['--format', 'api', '--kube-version', '1.30', '--include-system-namespaces']],
  ['static', []],
];

describe('the printed registration is a fixed point of the apiserver\'s defaulting', () => {
  for (const [label, args] of variants) {
    for (const source of ['--dev', 'wildcard'] as const) {
      test(`${label}, ${source === '--dev' ? 'the example manifests' : 'a wildcard policy'}`, async () => {
        const out = await run(['registration', ...(source === '--dev' ? ['--dev'] : ['--admission-config', wildcard]), '--ca-file', caFile, ...args]);
        assert.equal(out.code, 0, out.err);
        const docs = parseAllDocuments(out.out);
        assert.ok(Array.isArray(docs) && docs.length > 0);
        for (const doc of docs) {
          const printed = doc.toJS() as { kind: V1Kind; metadata: { name: string } };
          const defaulted = structuredClone(printed);
          applyDefaults(printed.kind, defaulted);
          assert.deepEqual(defaulted, printed, `${printed.kind} ${printed.metadata.name}: every defaulted field is printed`);
        }
      });
    }
  }
});
