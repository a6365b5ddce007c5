// What a YAML manifest document decodes to: go-yaml v2.4.3 (its scanner ported in lib/manifest/yaml-syntax, its decoder
// in lib/manifest/yaml-decode) and sigs.k8s.io/yaml v1.6.0's conversion to JSON. Every expected value below is the
// output of sigs.k8s.io/yaml v1.6.0 YAMLToJSON (with go.yaml.in/yaml/v2 v2.4.3) for the same text: the JSON text it
// produced, or its error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseManifestDocument } from '../../lib/manifest/document.js';
import { splitYAMLDocuments } from '../../lib/manifest/files.js';

const root = new URL('../../../', import.meta.url).pathname;

const CASES: ReadonlyArray<readonly [yaml: string, expected: string | { error: string }]> = [
  ["v: yes\n", "{\"v\":true}"],
  ["- yes\n", "[true]"],
  ["yes: value\n", "{\"true\":\"value\"}"],
  ["v: Yes\n", "{\"v\":true}"],
  ["- Yes\n", "[true]"],
  ["Yes: value\n", "{\"true\":\"value\"}"],
  ["v: YES\n", "{\"v\":true}"],
  ["- YES\n", "[true]"],
  ["YES: value\n", "{\"true\":\"value\"}"],
  ["v: no\n", "{\"v\":false}"],
  ["- no\n", "[false]"],
  ["no: value\n", "{\"false\":\"value\"}"],
  ["v: on\n", "{\"v\":true}"],
  ["- on\n", "[true]"],
  ["on: value\n", "{\"true\":\"value\"}"],
  ["v: Off\n", "{\"v\":false}"],
  ["- Off\n", "[false]"],
  ["Off: value\n", "{\"false\":\"value\"}"],
  ["v: y\n", "{\"v\":true}"],
  ["- y\n", "[true]"],
  ["y: value\n", "{\"true\":\"value\"}"],
  ["v: N\n", "{\"v\":false}"],
  ["- N\n", "[false]"],
  ["N: value\n", "{\"false\":\"value\"}"],
  ["v: true\n", "{\"v\":true}"],
  ["- true\n", "[true]"],
  ["true: value\n", "{\"true\":\"value\"}"],
  ["v: False\n", "{\"v\":false}"],
  ["- False\n", "[false]"],
  ["False: value\n", "{\"false\":\"value\"}"],
  ["v: ~\n", "{\"v\":null}"],
  ["- ~\n", "[null]"],
  ["~: value\n", {"error": "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"value\""}],
  ["v: null\n", "{\"v\":null}"],
  ["- null\n", "[null]"],
  ["null: value\n", {"error": "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"value\""}],
  ["v: Null\n", "{\"v\":null}"],
  ["- Null\n", "[null]"],
  ["Null: value\n", {"error": "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"value\""}],
  ["v: NULL\n", "{\"v\":null}"],
  ["- NULL\n", "[null]"],
  ["NULL: value\n", {"error": "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"value\""}],
  ["v: \n", "{\"v\":null}"],
  ["- \n", "[null]"],
  ["v: 0777\n", "{\"v\":511}"],
  ["- 0777\n", "[511]"],
  ["0777: value\n", "{\"511\":\"value\"}"],
  ["v: 0x1F\n", "{\"v\":31}"],
  ["- 0x1F\n", "[31]"],
  ["0x1F: value\n", "{\"31\":\"value\"}"],
  ["v: 0b101\n", "{\"v\":5}"],
  ["- 0b101\n", "[5]"],
  ["0b101: value\n", "{\"5\":\"value\"}"],
  ["v: 1_000\n", "{\"v\":1000}"],
  ["- 1_000\n", "[1000]"],
  ["1_000: value\n", "{\"1000\":\"value\"}"],
  ["v: 190:20:30\n", "{\"v\":\"190:20:30\"}"],
  ["- 190:20:30\n", "[\"190:20:30\"]"],
  ["190:20:30: value\n", "{\"190:20:30\":\"value\"}"],
  ["v: 08\n", "{\"v\":8}"],
  ["- 08\n", "[8]"],
  ["08: value\n", "{\"8\":\"value\"}"],
  ["v: +1\n", "{\"v\":1}"],
  ["- +1\n", "[1]"],
  ["+1: value\n", "{\"1\":\"value\"}"],
  ["v: -0\n", "{\"v\":0}"],
  ["- -0\n", "[0]"],
  ["-0: value\n", "{\"0\":\"value\"}"],
  ["v: 007\n", "{\"v\":7}"],
  ["- 007\n", "[7]"],
  ["007: value\n", "{\"7\":\"value\"}"],
  ["v: 1.5\n", "{\"v\":1.5}"],
  ["- 1.5\n", "[1.5]"],
  ["1.5: value\n", "{\"1.5\":\"value\"}"],
  ["v: .5\n", "{\"v\":0.5}"],
  ["- .5\n", "[0.5]"],
  [".5: value\n", "{\"0.5\":\"value\"}"],
  ["v: 1e3\n", "{\"v\":1000}"],
  ["- 1e3\n", "[1000]"],
  ["1e3: value\n", "{\"1000\":\"value\"}"],
  ["v: 1.0e+3\n", "{\"v\":1000}"],
  ["- 1.0e+3\n", "[1000]"],
  ["1.0e+3: value\n", "{\"1000\":\"value\"}"],
  ["v: -1.5e-3\n", "{\"v\":-0.0015}"],
  ["- -1.5e-3\n", "[-0.0015]"],
  ["-1.5e-3: value\n", "{\"-0.0015\":\"value\"}"],
  ["v: 190:20:30.15\n", "{\"v\":\"190:20:30.15\"}"],
  ["- 190:20:30.15\n", "[\"190:20:30.15\"]"],
  ["190:20:30.15: value\n", "{\"190:20:30.15\":\"value\"}"],
  ["v: 2001-12-14\n", "{\"v\":\"2001-12-14\"}"],
  ["- 2001-12-14\n", "[\"2001-12-14\"]"],
  ["2001-12-14: value\n", "{\"2001-12-14\":\"value\"}"],
  ["v: 2001-12-14T21:59:43.10-05:00\n", "{\"v\":\"2001-12-14T21:59:43.10-05:00\"}"],
  ["- 2001-12-14T21:59:43.10-05:00\n", "[\"2001-12-14T21:59:43.10-05:00\"]"],
  ["2001-12-14T21:59:43.10-05:00: value\n", "{\"2001-12-14T21:59:43.10-05:00\":\"value\"}"],
  ["v: 2001-12-14 21:59:43.10 -5\n", "{\"v\":\"2001-12-14 21:59:43.10 -5\"}"],
  ["- 2001-12-14 21:59:43.10 -5\n", "[\"2001-12-14 21:59:43.10 -5\"]"],
  ["2001-12-14 21:59:43.10 -5: value\n", "{\"2001-12-14 21:59:43.10 -5\":\"value\"}"],
  ["v: abc\n", "{\"v\":\"abc\"}"],
  ["- abc\n", "[\"abc\"]"],
  ["abc: value\n", "{\"abc\":\"value\"}"],
  ["v: a b c\n", "{\"v\":\"a b c\"}"],
  ["- a b c\n", "[\"a b c\"]"],
  ["a b c: value\n", "{\"a b c\":\"value\"}"],
  ["v: \"quoted yes\"\n", "{\"v\":\"quoted yes\"}"],
  ["- \"quoted yes\"\n", "[\"quoted yes\"]"],
  ["v: 'single on'\n", "{\"v\":\"single on\"}"],
  ["- 'single on'\n", "[\"single on\"]"],
  ["v: \"0777\"\n", "{\"v\":\"0777\"}"],
  ["- \"0777\"\n", "[\"0777\"]"],
  ["v: \"\\u00e9\\t\"\n", "{\"v\":\"\u00e9\\t\"}"],
  ["- \"\\u00e9\\t\"\n", "[\"\u00e9\\t\"]"],
  ["v: \u00e9\n", "{\"v\":\"\u00e9\"}"],
  ["- \u00e9\n", "[\"\u00e9\"]"],
  ["\u00e9: value\n", "{\"\u00e9\":\"value\"}"],
  ["v: 1.2.3\n", "{\"v\":\"1.2.3\"}"],
  ["- 1.2.3\n", "[\"1.2.3\"]"],
  ["1.2.3: value\n", "{\"1.2.3\":\"value\"}"],
  ["v: 12:00\n", "{\"v\":\"12:00\"}"],
  ["- 12:00\n", "[\"12:00\"]"],
  ["12:00: value\n", "{\"12:00\":\"value\"}"],
  ["v: 0o17\n", "{\"v\":15}"],
  ["- 0o17\n", "[15]"],
  ["0o17: value\n", "{\"15\":\"value\"}"],
  ["v: -\n", {"error": "yaml: block sequence entries are not allowed in this context"}],
  ["- -\n", "[[null]]"],
  ["v: 9223372036854775807\n", "{\"v\":9223372036854775807}"],
  ["- 9223372036854775807\n", "[9223372036854775807]"],
  ["9223372036854775807: value\n", "{\"9223372036854775807\":\"value\"}"],
  ["v: -9223372036854775808\n", "{\"v\":-9223372036854775808}"],
  ["- -9223372036854775808\n", "[-9223372036854775808]"],
  ["-9223372036854775808: value\n", "{\"-9223372036854775808\":\"value\"}"],
  ["v: 9223372036854775808\n", "{\"v\":9223372036854775808}"],
  ["- 9223372036854775808\n", "[9223372036854775808]"],
  ["9223372036854775808: value\n", {"error": "unsupported map key of type: uint64, key: 0x8000000000000000, value: \"value\""}],
  ["v: 0b-1\n", "{\"v\":-1}"],
  ["- 0b-1\n", "[-1]"],
  ["0b-1: value\n", "{\"-1\":\"value\"}"],
  ["v: .1_0\n", "{\"v\":0.1}"],
  ["- .1_0\n", "[0.1]"],
  [".1_0: value\n", "{\"0.1\":\"value\"}"],
  ["v: 1e999\n", "{\"v\":\"1e999\"}"],
  ["- 1e999\n", "[\"1e999\"]"],
  ["1e999: value\n", "{\"1e999\":\"value\"}"],
  ["v: -.5\n", "{\"v\":-0.5}"],
  ["- -.5\n", "[-0.5]"],
  ["-.5: value\n", "{\"-0.5\":\"value\"}"],
  ["v: +.5e3\n", "{\"v\":500}"],
  ["- +.5e3\n", "[500]"],
  ["+.5e3: value\n", "{\"500\":\"value\"}"],
  ["v: 5.\n", "{\"v\":5}"],
  ["- 5.\n", "[5]"],
  ["5.: value\n", "{\"5\":\"value\"}"],
  ["v: !!str 1\n", "{\"v\":\"1\"}"],
  ["- !!str 1\n", "[\"1\"]"],
  ["v: !!float 1\n", "{\"v\":1}"],
  ["- !!float 1\n", "[1]"],
  ["v: !!int \"0x10\"\n", "{\"v\":16}"],
  ["- !!int \"0x10\"\n", "[16]"],
  ["v: !!binary aGVsbG8=\n", "{\"v\":\"hello\"}"],
  ["- !!binary aGVsbG8=\n", "[\"hello\"]"],
  ["v: !!null \"\"\n", "{\"v\":null}"],
  ["- !!null \"\"\n", "[null]"],
  ["v: ! 1\n", "{\"v\":\"1\"}"],
  ["- ! 1\n", "[\"1\"]"],
  ["v: !foo 1\n", "{\"v\":\"1\"}"],
  ["- !foo 1\n", "[\"1\"]"],
  ["v: \"a\\u2028b\"\n", "{\"v\":\"a\\u2028b\"}"],
  ["- \"a\\u2028b\"\n", "[\"a\\u2028b\"]"],
  ["v: 'it''s'\n", "{\"v\":\"it's\"}"],
  ["- 'it''s'\n", "[\"it's\"]"],
  ["a: |\n  line 1\n  line 2\nb: >-\n  folded\n  text\n", "{\"a\":\"line 1\\nline 2\\n\",\"b\":\"folded text\"}"],
  ["a: |+\n  kept\n\n\nb: |-\n  stripped\n\n", "{\"a\":\"kept\\n\\n\\n\",\"b\":\"stripped\"}"],
  ["a: >\n  folded\n  lines\n\n  para\n    more indented\n  back\n", "{\"a\":\"folded lines\\npara\\n  more indented\\nback\\n\"}"],
  ["a: {b: [1, yes, \"x\"], c: {d: ~}}\n", "{\"a\":{\"b\":[1,true,\"x\"],\"c\":{\"d\":null}}}"],
  ["a: multi\n  line plain\n  scalar # comment\n", "{\"a\":\"multi line plain scalar\"}"],
  ["a: \"double\n  quoted\n\n  folded \\\n  escaped\"\n", "{\"a\":\"double quoted\\nfolded escaped\"}"],
  ["a: 'single\n  quoted\n\n  folded'\n", "{\"a\":\"single quoted\\nfolded\"}"],
  ["a:\n  - b: 1\n    c: [x, y]\n  -\n  - - nested\n", "{\"a\":[{\"b\":1,\"c\":[\"x\",true]},null,[\"nested\"]]}"],
  ["a:\n", "{\"a\":null}"],
  ["", "null"],
  ["# only a comment\n", "null"],
  ["just a scalar", "\"just a scalar\""],
  ["[1, 2]", "[1,2]"],
  ["key with spaces: 1\n\"quoted key\": 2\n? complex\n: 3\n", "{\"complex\":3,\"key with spaces\":1,\"quoted key\":2}"],
  ["a: &x 1\nb: *x\n", "{\"a\":1,\"b\":1}"],
  ["base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n", "{\"base\":{\"x\":1},\"derived\":{\"true\":2,\"x\":1}}"],
  ["a: &s [1, {b: 2}]\nc: *s\nd: [*s, *s]\n", "{\"a\":[1,{\"b\":2}],\"c\":[1,{\"b\":2}],\"d\":[[1,{\"b\":2}],[1,{\"b\":2}]]}"],
  ["a: {1: x, 2.5: y, true: z, 1e6: w, 0x10: v}\n", "{\"a\":{\"1\":\"x\",\"16\":\"v\",\"1e+06\":\"w\",\"2.5\":true,\"true\":\"z\"}}"],
  ["a: b\u0085c\nd: \"e\u2028f\"\n", {"error": "yaml: line 3: could not find expected ':'"}],
  ["a: {x: 1}\na: {y: 2}\n", "{\"a\":{\"true\":2}}"],
  ["a:\n  <<: [{x: 1, y: 1}, {x: 2, z: 2}]\n  x: 3\n", "{\"a\":{\"true\":1,\"x\":3,\"z\":2}}"],
  ["a:\n  x: 3\n  <<: {x: 4}\n", "{\"a\":{\"x\":4}}"],
];

test('scalars, keys, block and flow collections, anchors and merges decode as sigs.k8s.io/yaml YAMLToJSON decodes them', () => {
  for (const [yaml, expected] of CASES) {
    if (typeof expected === 'string') {
      assert.deepEqual(parseManifestDocument(yaml).value, JSON.parse(expected), JSON.stringify(yaml));
    } else {
      assert.throws(() => parseManifestDocument(yaml), (err: Error) => err.message === expected.error, JSON.stringify(yaml));
    }
  }
});

test('every manifest in the repository reads as the yaml library reads it (YAML 1.1), a second parser as a cross-check', () => {
  const dirs = ['testdata/dev/policies', 'testdata/dev/mutating-policies', 'systemd'];
  let n = 0;
  for (const dir of dirs) {
    for (const name of readdirSync(join(root, dir)).filter((f) => /\.ya?ml$/.test(f))) {
      for (const doc of splitYAMLDocuments(readFileSync(join(root, dir, name), 'utf8'))) {
        const reference = parseAllDocuments(doc, { version: '1.1' })[0]?.toJS() ?? null;
        assert.deepEqual(parseManifestDocument(doc).value, reference, `${dir}/${name}`);
        n++;
      }
    }
  }
  assert.ok(n >= 5);
});

test('scalars longer than the reader\'s 512-byte chunks read whole, from an all-ASCII text and from one that is not', () => {
  const long = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');
  for (const head of ['# ascii\n', '# é\n']) {
    for (const [yaml, value] of [
      [`a: ${long}\nb: x\n`, { a: long, b: 'x' }],
      [`a: "${long}"\nb: '${long}'\n`, { a: long, b: long }],
      [`a: |\n  ${long}\n  ${long}\nb: {c: ${long}}\n`, { a: `${long}\n${long}\n`, b: { c: long } }],
      [`a: ${long}\n  ${long}\n`, { a: `${long} ${long}` }],
    ] as const) {
      assert.deepEqual(parseManifestDocument(head + yaml).value, value, `${head}${yaml.slice(0, 20)}`);
    }
  }
});
