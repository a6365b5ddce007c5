import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYAMLExact, parseYAMLFast } from '../../lib/manifest/document.js';
import { splitYAMLDocuments } from '../../lib/manifest/files.js';

const root = new URL('../../../', import.meta.url).pathname;

const scalars = [
  'yes', 'Yes', 'YES', 'no', 'on', 'Off', 'y', 'N', 'true', 'False', '~', 'null', 'Null', 'NULL', '',
  '0777', '0x1F', '0b101', '1_000', '190:20:30', '08', '+1', '-0', '007', '1.5', '.5', '1e3', '1.0e+3', '-1.5e-3',
  '190:20:30.15', '2001-12-14', '2001-12-14T21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', 'abc', 'a b c',
  '"quoted yes"', "'single on'", '"0777"', '"\\u00e9\\t"', 'é', '1.2.3', '12:00', '0o17', '-', 'x: y',
];

/** Where the fast path answers, it answers what the exact path does; `mayDecline` allows a fallback. */
function bothPaths(text: string, mayDecline = false): void {
  const fast = parseYAMLFast(text);
  if (fast === undefined && mayDecline) return;
  assert.ok(fast, `fast path refused ${JSON.stringify(text)}`);
  assert.deepEqual(fast, parseYAMLExact(text), `paths differ on ${JSON.stringify(text)}`);
}

test('the js-yaml fast path resolves plain and quoted scalars exactly as the exact path (YAML 1.1)', () => {
  for (const s of scalars) {
    if (s === 'x: y') continue;
    bothPaths(`v: ${s}\n`, s === '-');
    bothPaths(`- ${s}\n`, s === '-');
    if (s !== '' && !s.startsWith('"') && !s.startsWith("'") && s !== '-') bothPaths(`${s}: value\n`);
  }
});

test('block scalars, flow collections, comments, multi-line plain scalars, nesting, empty documents', () => {
  for (const text of [
    'a: |\n  line 1\n  line 2\nb: >-\n  folded\n  text\n',
    'a: {b: [1, yes, "x"], c: {d: ~}}\n',
    'a: multi\n  line plain\n  scalar # comment\n',
    'a:\n  - b: 1\n    c: [x, y]\n  -\n  - - nested\n',
    'a:\n', '', '# only a comment\n', 'just a scalar', '[1, 2]',
    'key with spaces: 1\n"quoted key": 2\n? complex\n: 3\n',
    'a: !!str 1\n',
  ]) bothPaths(text);
});

test('anchors, aliases, merge keys, explicit tags and duplicate keys go to the exact path', () => {
  for (const text of [
    'a: &x 1\nb: *x\n', 'base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n', 'a: !!binary aGVsbG8=\n', 'a: !!int "1"\n',
    'a: 1\na: 2\n', 'a: b: c\n', 'a: .inf\n',
  ]) assert.equal(parseYAMLFast(text), undefined, text);
});

test('every manifest and AdmissionReview fixture in the repository reads the same on both paths', () => {
  const dirs = ['testdata/dev/policies', 'testdata/dev/mutating-policies', 'systemd'];
  let n = 0;
  for (const dir of dirs) {
    for (const name of readdirSync(join(root, dir)).filter((f) => /\.ya?ml$/.test(f))) {
      for (const doc of splitYAMLDocuments(readFileSync(join(root, dir, name), 'utf8'))) {
        bothPaths(doc);
        n++;
      }
    }
  }
  assert.ok(n >= 5);
});
