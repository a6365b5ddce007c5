import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { maxManifestFileBytes, readManifestFilesSync, splitYAMLDocuments } from '../../lib/manifest/files.js';
import { tempDir, writeFiles } from '../helpers/fs.js';

test('content hash: sha256 over each selected file followed by NUL, in name order (vector from hashlib)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { '02-b.yml': 'b: 2\n', '01-a.yaml': 'a: 1\n', 'notes.txt': 'ignored', 'empty.yaml': '' });
    const files = readManifestFilesSync(dir);
    assert.equal(files.hash, 'sha256:b24ab0689784b07d93b2bc829b659d63ced15823544f2415c242609410376e9a');
    assert.equal(files.hash.length, 71);
    assert.deepEqual(files.docs.map((d) => d.text), ['a: 1', 'b: 2']);
  } finally {
    cleanup();
  }
});

test('an empty directory, or one with only zero-byte files, has the empty hash', async () => {
  const { dir, cleanup } = tempDir();
  try {
    assert.equal(readManifestFilesSync(dir).hash, '');
    writeFiles(dir, { 'a.yaml': '' });
    assert.equal(readManifestFilesSync(dir).hash, '');
    writeFiles(dir, { 'b.yaml': '  \n' });
    const ws = readManifestFilesSync(dir);
    assert.notEqual(ws.hash, '', 'a whitespace-only file is hashed');
    assert.equal(ws.docs.length, 0, 'but yields no documents');
  } finally {
    cleanup();
  }
});

test('file selection: case-insensitive last extension, hidden files loaded, byte order, subdirectories skipped', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, {
      'B.YAML': 'x: B', 'a.json': '{"x":"a"}', '.hidden.yaml': 'x: hidden', '.yaml': 'x: dotyaml',
      'c.yaml.tmp': 'x: tmp', 'd.yaml~': 'x: backup', 'sub/e.yaml': 'x: sub',
    });
    const files = readManifestFilesSync(dir);
    assert.deepEqual(files.files.map((f) => f.slice(dir.length + 1)), ['.hidden.yaml', '.yaml', 'B.YAML', 'a.json']);
  } finally {
    cleanup();
  }
});

test('renaming a file without changing order, or touching it, keeps the hash', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'a.yaml': 'a: 1\n' });
    const before = readManifestFilesSync(dir).hash;
    const { renameSync, utimesSync } = await import('node:fs');
    renameSync(join(dir, 'a.yaml'), join(dir, 'b.yml'));
    utimesSync(join(dir, 'b.yml'), new Date(0), new Date(0));
    assert.equal(readManifestFilesSync(dir).hash, before);
  } finally {
    cleanup();
  }
});

test('errors name the directory or file with upstream wording', async () => {
  const { dir, cleanup } = tempDir();
  try {
    assert.throws(() => readManifestFilesSync(''), { message: 'manifest directory path is empty' });
    assert.throws(() => readManifestFilesSync(join(dir, 'missing')), {
      message: `failed to read manifest directory "${join(dir, 'missing')}": open ${join(dir, 'missing')}: no such file or directory`,
    });
    // a symlink to a directory is not skipped: reading it fails the whole load
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'linked.yaml'));
    assert.throws(() => readManifestFilesSync(dir), (err: Error) => {
      assert.match(err.message, new RegExp(`^failed to read file "${join(dir, 'linked.yaml')}": .*is a directory`));
      return true;
    });
  } finally {
    cleanup();
  }
});

test('a symlink to a regular file is followed', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'target/real.yaml': 'x: 1\n' });
    symlinkSync(join(dir, 'target/real.yaml'), join(dir, 'link.yaml'));
    const files = readManifestFilesSync(dir);
    assert.deepEqual(files.docs.map((d) => d.text), ['x: 1']);
  } finally {
    cleanup();
  }
});

test('a file over 10 MiB is refused with its name, before it is read whole', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'huge.yaml'), Buffer.alloc(maxManifestFileBytes + 1, 0x20));
    assert.throws(() => readManifestFilesSync(dir), (err: Error) => {
      assert.match(err.message, new RegExp(`^failed to read file "${join(dir, 'huge.yaml')}": file is 10485761 bytes, larger than the 10485760-byte limit`));
      return true;
    });
  } finally {
    cleanup();
  }
});

test('document splitting follows apimachinery YAMLReader', () => {
  // upstream: k8s.io/apimachinery/pkg/util/yaml/decoder.go YAMLReader.Read writes a separator met with an empty
  // buffer into the next document (the oracle quotes `Object 'Kind' is missing in '---'` for "---\n---\nb: c: d")
  assert.deepEqual(splitYAMLDocuments('---\na: 1\n---\n---\nb: 2\n---\n'), ['---\na: 1', '---\nb: 2']);
  assert.deepEqual(splitYAMLDocuments('---\n---\nb: c: d\n'), ['---', 'b: c: d']);
  // LineReader reads lines with bufio.Reader.ReadLine, which drops a CR LF ending
  assert.deepEqual(splitYAMLDocuments('a: 1\r\nb: 2\r\n--- # c\r\nc: 3'), ['a: 1\nb: 2', 'c: 3']);
  assert.deepEqual(splitYAMLDocuments('a: 1\n--- # comment\nb: 2'), ['a: 1', 'b: 2']);
  assert.deepEqual(splitYAMLDocuments('a: "x\n  ---y"\n'), ['a: "x\n  ---y"'], 'an indented --- is content');
  assert.throws(() => splitYAMLDocuments('a: 1\n--- b: 2\n'), { message: 'invalid Yaml document separator: b: 2' });
});

test('binary garbage is read and hashed; the loader, not the reader, rejects it', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'garbage.yaml'), Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x9c, 0x0a]));
    const files = readManifestFilesSync(dir);
    assert.match(files.hash, /^sha256:[0-9a-f]{64}$/);
  } finally {
    cleanup();
  }
});

test('a bad document separator fails the read with the file named (LoadFiles wording)', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFiles(dir, { 'a.yaml': 'a: 1\n--- b\n' });
    assert.throws(() => readManifestFilesSync(dir), {
      message: `failed to split YAML documents in file "${join(dir, 'a.yaml')}": invalid Yaml document separator: b`,
    });
  } finally {
    cleanup();
  }
});
