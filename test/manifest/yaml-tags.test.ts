// Scalars with an explicit tag, decoded as go-yaml v2 decodes them (go.yaml.in/yaml/v2 v2.4.3 resolve.go resolve,
// decode.go decoder.scalar): a value the tag cannot take is `cannot decode !!str `p` as a !!int`, `!!float` takes an
// int, `!!binary` is base64 and decoded, numbers read with Go's base prefixes; and a map element's JSON type error
// names the map's field, not the element (sigs.k8s.io/json decode.go keeps struct fields only in its error context).
// Every expected text is kube-apiserver 1.36.3's loader answer for the same file (tools/upstream-oracle `load`).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { daemonLoad } from '../upstream/daemon.js';

const NO_SPEC = 'ValidatingAdmissionPolicy "p": [spec.matchConstraints: Required value';
const LABEL_NUMBER = 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string';
const LABEL_BOOL = 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string';

const CASES: ReadonlyArray<readonly [value: string, error: string]> = [
  ['!!int p', 'yaml: cannot decode !!str `p` as a !!int'],
  ["!!binary 'p!'", 'yaml: !!binary value contains invalid base64 data'],
  ['!!binary aGVsbG8=', NO_SPEC],
  ['!!int 5', LABEL_NUMBER],
  ['!!float 5', LABEL_NUMBER],
  ['!!str 5', NO_SPEC],
  ['!!bool yes', LABEL_BOOL],
  ['!!null x', 'yaml: cannot decode !!str `x` as a !!null'],
  ['!!timestamp x', 'yaml: cannot decode !!str `x` as a !!timestamp'],
  ['!!int 0x1F', LABEL_NUMBER],
  ['!!int 0o17', LABEL_NUMBER],
  ['!!int "5"', LABEL_NUMBER],
  ['!!bool "on"', LABEL_BOOL],
  ['!!int <<', 'yaml: cannot decode !!str `<<` as a !!int'],
  ['!!int .inf', 'yaml: cannot decode !!float `.inf` as a !!int'],
  ['!!int 1.5', 'yaml: cannot decode !!float `1.5` as a !!int'],
  ['!!foo bar', NO_SPEC],
  ['5', LABEL_NUMBER],
];

describe('explicit YAML tags and map element type errors, as upstream decodes them', () => {
  for (const [value, error] of CASES) {
    it(value, () => {
      const dir = mkdtempSync(join(tmpdir(), 'yaml-tags-'));
      try {
        writeFileSync(join(dir, 'a.yaml'), `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\n  labels: {a: ${value}}\n`);
        const answer = daemonLoad('ValidatingAdmissionPolicy', dir);
        if (answer.ok) return assert.fail(`expected the load to fail, got ${JSON.stringify(answer)}`);
        assert.ok(answer.error.startsWith(`error loading ${join(dir, 'a.yaml')}: ${error}`), answer.error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
