// go-yaml v2's errors, as kube-apiserver 1.36's static loader reports them. Every expected text is the
// upstream-oracle's answer (tools/upstream-oracle, `load` op) for the same file, minus its `error loading <file>: `.
// upstream: go.yaml.in/yaml/v2 v2.4.3 readerc.go, scannerc.go, parserc.go, decode.go (parser.fail); sigs.k8s.io/yaml
// v1.6.0 YAMLToJSON; k8s.io/apimachinery v0.36.3 pkg/util/yaml YAMLReader
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifestFilesSync, splitYAMLDocuments } from '../../lib/manifest/files.js';
import { parseManifestDocument } from '../../lib/manifest/document.js';
import { loadManifests } from '../../lib/manifest/load.js';
import { readFirstDocument, yamlSyntaxError } from '../../lib/manifest/yaml-syntax/check.js';
import { tempDir } from '../helpers/fs.js';

const text = (s: string): Buffer => Buffer.from(s, 'utf8');
const hex = (s: string): Buffer => Buffer.from(s, 'hex');

/** [class, file bytes, upstream's error for the file] */
const cases: ReadonlyArray<readonly [string, Buffer, string]> = [
  ["mapping values on a later line", text("kind: X\nkey: value: another\n"), "yaml: line 2: mapping values are not allowed in this context"],
  ["mapping values on the first line", text("key: value: another\n"), "yaml: mapping values are not allowed in this context"],
  ["tab as indentation", text("kind: X\nmetadata:\n\tname: x\n"), "yaml: line 3: found character that cannot start any token"],
  ["did not find expected key", text("kind: X\na:\n  b: 1\n c: 2\n"), "yaml: line 3: did not find expected key"],
  ["could not find expected ':'", text("kind: X\na: b\nc\nd: e\n"), "yaml: line 4: could not find expected ':'"],
  ["unclosed double quote", text("kind: X\na: \"unterminated\n"), "yaml: line 2: found unexpected end of stream"],
  ["unclosed single quote", text("kind: X\na: 'unterminated\n"), "yaml: line 2: found unexpected end of stream"],
  ["unclosed flow sequence", text("kind: X\na: [b, c\nd: e\n"), "yaml: line 2: did not find expected ',' or ']'"],
  ["unclosed flow mapping", text("kind: X\na: {b: c\nd: e\n"), "yaml: line 2: did not find expected ',' or '}'"],
  ["flow sequence closed twice", text("kind: X\na: [b, c]]\n"), "yaml: line 1: did not find expected key"],
  ["unknown escape", text("kind: X\na: \"x\\qy\"\n"), "yaml: line 2: found unknown escape character"],
  ["bad hex escape", text("kind: X\na: \"\\x4\"\n"), "yaml: line 2: did not find expected hexdecimal number"],
  ["surrogate escape", text("kind: X\na: \"\\uD800\"\n"), "yaml: line 2: found invalid Unicode character escape code"],
  ["empty anchor", text("kind: X\na: &\n"), "yaml: line 2: did not find expected alphabetic or numeric character"],
  ["empty alias", text("kind: X\na: *\n"), "yaml: line 2: did not find expected alphabetic or numeric character"],
  ["undefined alias", text("kind: X\na: *nowhere\n"), "yaml: unknown anchor 'nowhere' referenced"],
  ["reserved indicator", text("kind: X\na: @x\n"), "yaml: line 2: found character that cannot start any token"],
  ["control character", text("kind: X\na: \u0001\n"), "yaml: control characters are not allowed"],
  ["DEL character", text("kind: X\na: \u007f\n"), "yaml: control characters are not allowed"],
  ["invalid UTF-8", hex("6b696e643a20580a613a20ff0a"), "yaml: invalid leading UTF-8 octet"],
  ["truncated UTF-8", hex("6b696e643a20580a613a20e282"), "yaml: incomplete UTF-8 octet sequence"],
  ["UTF-16 byte order mark", hex("fffe6b00"), "couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }"],
  ["incompatible %YAML", text("%YAML 1.2\n---\nkind: X\n"), "yaml: found incompatible YAML document"],
  ["unknown directive", text("%FOO bar\n---\nkind: X\n"), "yaml: found unknown directive name"],
  ["directive without document start", text("%YAML 1.1\nkind: X\n"), "yaml: line 1: did not find expected <document start>"],
  ["block sequence entry in a mapping value", text("kind: X\na: - b\n"), "yaml: line 2: block sequence entries are not allowed in this context"],
  ["stray sequence entry", text("kind: X\na: b\n- c\n"), "yaml: line 2: did not find expected key"],
  ["block scalar indentation indicator 0", text("kind: X\na: |0\n  x\n"), "yaml: line 2: found an indentation indicator equal to 0"],
  ["block scalar header garbage", text("kind: X\na: |x\n"), "yaml: line 2: did not find expected comment or line break"],
  ["tab in block scalar indentation", text("kind: X\na: |\n  x\n\ty\n"), "yaml: line 4: found a tab character where an indentation space is expected"],
  ["tab violating plain scalar indentation", text("kind: X\na: b\n\tc\n"), "yaml: line 3: found a tab character that violates indentation"],
  ["document indicator inside a quoted scalar", text("kind: X\na: \"x\n---\ny\"\n"), "yaml: line 2: found unexpected end of stream"],
  ["tag without closing >", text("kind: X\na: !<x y\n"), "yaml: line 2: did not find the expected '>'"],
  ["undefined tag handle", text("kind: X\na: !e!x y\n"), "yaml: line 1: found undefined tag handle"],
  ["node content missing in a flow mapping", text("kind: X\na: {b: c, ]}\n"), "yaml: line 1: did not find expected node content"],
  ["mapping key in flow context", text("kind: X\na: [? b : c, ? ]\n"), "yaml: line 2: did not find expected ',' or ']'"],
  ["line breaks in CR LF", text("kind: X\r\na: 1\r\nb: c: d\r\n"), "yaml: line 3: mapping values are not allowed in this context"],
];

test('each class of go-yaml error: the daemon loads the file with upstream\'s message, wrapped as the loader wraps it', () => {
  for (const [name, bytes, expected] of cases) {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'a.yaml');
      writeFileSync(file, bytes);
      assert.throws(() => loadManifests('ValidatingAdmissionPolicy', readManifestFilesSync(dir)), (err: Error) => {
        assert.equal(err.message, `error loading ${file}: ${expected}`, name);
        return true;
      });
    } finally {
      cleanup();
    }
  }
});

test('the port alone: the first document as the splitter cuts it fails with upstream\'s YAML error, or not at all', () => {
  for (const [name, bytes, expected] of cases) {
    const first = splitYAMLDocuments(bytes.toString('latin1'))[0]!;
    const got = yamlSyntaxError(Buffer.from(first, 'latin1'));
    assert.equal(got?.message, expected.startsWith('yaml: ') ? expected : undefined, name);
  }
});

test('a document ends where go-yaml ends it: at a directive, a separator or a document end marker inside the text', () => {
  assert.deepEqual(parseManifestDocument('a: 1\n%YAML 1.1\nb: 2\n').value, { a: 1 });
  assert.deepEqual(parseManifestDocument('a: 1\n... \nb: 2\n').value, { a: 1 });
  // what follows the end is never read, not even for its errors
  assert.deepEqual(parseManifestDocument('a: 1\n...\nb: c: d\n').value, { a: 1 });
  assert.deepEqual(parseManifestDocument('a: 1\nb: 2\n').value, { a: 1, b: 2 });
  const commentOnly = readFirstDocument(text('# only a comment\n'));
  assert.ok(commentOnly.error === undefined && commentOnly.root === undefined);
});

// the texts below are the oracle's answers too
test('which error comes first follows go-yaml\'s reading order: an undefined alias before a later syntax error', () => {
  assert.equal(yamlSyntaxError(text('a: *x\nb: c: d\n'))?.message, "yaml: unknown anchor 'x' referenced");
  // the reader decodes 512-byte chunks, so a bad byte in the chunk being read fails before the syntax error before it
  assert.equal(yamlSyntaxError(text('a: b: c\n\u0001'))?.message, 'yaml: control characters are not allowed');
  assert.equal(yamlSyntaxError(text(`x: 1\na: b: c\n${'#'.repeat(600)}\n\u0001`))?.message, 'yaml: line 2: mapping values are not allowed in this context');
});
