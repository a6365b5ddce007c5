// Reads a manifest directory as kube-apiserver's manifest.LoadFiles does: direct children only, .yaml/.yml/.json
// (case-insensitive, last extension), name order, zero-byte files skipped, one SHA-256 over every selected file's
// bytes each followed by a NUL byte. The hash is computed before decoding, so it is the same as upstream's.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestError, manifestDirErrorCode } from './errors.js';

/** Upstream reads whole files; the kubelet caps static pod files at 10 MiB and so do we. */
export const maxManifestFileBytes = 10 * 1024 * 1024;

/** One YAML/JSON document and the file it came from. */
export interface FileDoc {
  readonly filePath: string;
  /** 0-based index of the document inside its file */
  readonly index: number;
  readonly text: string;
  /**
   * The document's bytes, where its file is not valid UTF-8: `text` then has U+FFFD in their place, and go-yaml's
   * reader must see the bytes themselves to fail as upstream does (`invalid leading UTF-8 octet` …).
   */
  readonly bytes?: Uint8Array;
}

export interface ManifestFiles {
  readonly docs: readonly FileDoc[];
  /** `sha256:<hex>` over the selected files, or `""` when none has content */
  readonly hash: string;
  /** selected files in load order (zero-byte ones included) */
  readonly files: readonly string[];
}

const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

/** Go's filepath.Ext: from the last dot of the name (so `.yaml` itself has the extension `.yaml`). */
function goExt(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot);
}

export function isManifestFileName(name: string): boolean {
  return manifestExtensions.has(goExt(name).toLowerCase());
}

/** Go's os.ReadDir order: byte-wise lexical order of the names. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

interface DirEntryLike {
  name: string;
  isDirectory(): boolean;
}

function selectFiles(dir: string, entries: DirEntryLike[]): string[] {
  return entries
    .filter((e) => !e.isDirectory() && isManifestFileName(e.name))
    .map((e) => e.name)
    .sort(byteOrder)
    .map((name) => join(dir, name));
}

/** Go's *PathError text ("open /path: no such file or directory") for a Node fs error. */
function goError(err: unknown, op = 'open'): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT': return `${op} ${e.path ?? ''}: no such file or directory`;
    case 'EACCES': return `${op} ${e.path ?? ''}: permission denied`;
    case 'EISDIR': return `read ${e.path ?? ''}: is a directory`;
    case 'ENOTDIR': return `${op} ${e.path ?? ''}: not a directory`;
    case 'ELOOP': return `${op} ${e.path ?? ''}: too many levels of symbolic links`;
    default: return e instanceof Error ? e.message : String(err);
  }
}

function checkDir(dir: string): void {
  if (dir.length === 0) throw new ManifestError('manifest directory path is empty');
}

function readDirError(dir: string, err: unknown): ManifestError {
  return new ManifestError(`failed to read manifest directory "${dir}": ${goError(err)}`, { cause: err, code: manifestDirErrorCode });
}

function readFileError(filePath: string, err: unknown): ManifestError {
  return new ManifestError(`failed to read file "${filePath}": ${goError(err)}`, { cause: err });
}

function tooLarge(filePath: string, size: number): ManifestError {
  return new ManifestError(
    `failed to read file "${filePath}": file is ${size} bytes, larger than the ${maxManifestFileBytes}-byte limit for a manifest file`,
  );
}

function assemble(contents: Array<{ filePath: string; data: Buffer }>): ManifestFiles {
  const hash = createHash('sha256');
  const nul = Buffer.from([0]);
  let hasData = false;
  const docs: FileDoc[] = [];
  for (const { filePath, data } of contents) {
    if (data.length === 0) continue;
    hash.update(data);
    hash.update(nul);
    hasData = true;
    // a file that is not UTF-8 is split byte for byte (latin1 maps each byte to one character), as Go splits bytes
    const utf8 = isUtf8(data);
    let texts: string[];
    try {
      texts = splitYAMLDocuments(data.toString(utf8 ? 'utf8' : 'latin1'));
    } catch (err) {
      throw new ManifestError(
        `failed to split YAML documents in file "${filePath}": ${(err as Error).message}`,
        { cause: err },
      );
    }
    texts.forEach((text, index) => {
      if (utf8) {
        docs.push({ filePath, index, text });
      } else {
        const bytes = Buffer.from(text, 'latin1');
        docs.push({ filePath, index, text: bytes.toString('utf8'), bytes });
      }
    });
  }
  return { docs, hash: hasData ? `sha256:${hash.digest('hex')}` : '', files: contents.map((c) => c.filePath) };
}

/** A failure while reading one selected file, keeping a size error as it is. */
function fileError(filePath: string, err: unknown): ManifestError {
  return err instanceof ManifestError ? err : readFileError(filePath, err);
}

function checkSize(filePath: string, size: number): void {
  if (size > maxManifestFileBytes) throw tooLarge(filePath, size);
}

/**
 * Reads and hashes a manifest directory. Throws ManifestError with upstream's wording.
 *
 * Synchronous on purpose: 1,000 policies in 100 files (1.1 MB) read and hash in about 3 ms this way, against 7–11 ms
 * through the promise API (a thread-pool hop per stat, open, read and close), so a reload tick stalls the event loop
 * less than a garbage collection does, and costs less CPU on a small control-plane node.
 */
export function readManifestFilesSync(dir: string): ManifestFiles {
  checkDir(dir);
  let entries: DirEntryLike[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw readDirError(dir, err);
  }
  const contents: Array<{ filePath: string; data: Buffer }> = [];
  for (const filePath of selectFiles(dir, entries)) {
    try {
      const info = statSync(filePath);
      if (info.isFile()) checkSize(filePath, info.size);
      const data = readFileSync(filePath);
      checkSize(filePath, data.length);
      contents.push({ filePath, data });
    } catch (err) {
      throw fileError(filePath, err);
    }
  }
  return assemble(contents);
}

/** Go's unicode.IsSpace, which bytes.TrimSpace and strings.TrimSpace trim (JavaScript's trim() differs: U+FEFF, U+0085). */
function isGoSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

export function goTrimSpace(s: string, from = 0, to = s.length): string {
  let start = from;
  let end = to;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * apimachinery's YAMLReader (k8s.io/apimachinery v0.36.3 pkg/util/yaml/decoder.go) as manifest.LoadFiles uses it: lines
 * are read with bufio's ReadLine (a CR LF or LF ending becomes LF); a line starting with `---` ends a non-empty
 * document, and only spaces or a comment may follow the separator. A separator met while no document has begun is
 * kept as the next document's first line, as upstream keeps it (so line numbers in YAML errors count it, and a
 * document's quoted text shows it). Each document is trimmed and empty ones are dropped.
 */
export function splitYAMLDocuments(data: string): string[] {
  // ReadLine drops the CR of a CR LF and keeps any other CR; then every document is a slice of the text
  return splitLF(data.includes('\r') ? data.replaceAll('\r\n', '\n') : data);
}

/** The YAMLReader over text whose lines end in LF: each document is a slice of the text, trimmed. */
function splitLF(data: string): string[] {
  const docs: string[] = [];
  let docStart = 0;
  let lineStart = 0;
  while (lineStart < data.length) {
    const newline = data.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? data.length : newline;
    if (data.startsWith('---', lineStart)) {
      checkSeparator(data, lineStart, lineEnd);
      // a separator before any content stays in the next document (its first line)
      if (lineStart > docStart) {
        const doc = goTrimSpace(data, docStart, lineStart);
        if (doc.length > 0) docs.push(doc);
        docStart = lineEnd + 1;
      }
    }
    lineStart = lineEnd + 1;
  }
  if (docStart < data.length) {
    const doc = goTrimSpace(data, docStart, data.length);
    if (doc.length > 0) docs.push(doc);
  }
  return docs;
}

/** Only spaces or a comment may follow a `---` separator (YAMLReader.Read). */
function checkSeparator(text: string, lineStart: number, lineEnd: number): void {
  const rest = goTrimSpace(text, lineStart + 3, lineEnd);
  if (rest.length > 0 && rest[0] !== '#') throw new Error(`invalid Yaml document separator: ${rest}`);
}
