// Fixtures of the differential suite (test/upstream/fixtures/**.json): every disagreement ever found, written out
// with the seed that made it, and upstream's own table tests ported as data. Each stays in the suite: compared with
// the oracle where it runs, and, where a fixture states upstream's answer (`expect`, a fact read from upstream's
// test), checked against the daemon on every machine, with or without Go.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { PluginName } from '../../lib/manifest/plugins.js';
import type { Disagreement, Op } from './differential.js';
import { answeredAuditAnnotations, decisionAsReleaseBuild } from './compare.js';
import type { LoadAnswer, ValidateAnswer } from './oracle.js';
import type { Files } from './generate/index.js';
import { repoRoot } from './oracle.js';

export const fixturesDir = join(repoRoot, 'test/upstream/fixtures');

export interface Fixture {
  /** where it came from: `generated --seed S group I`, a corpus path, or `upstream: <test file> <case>` */
  readonly source: string;
  readonly op: Op;
  readonly plugin: PluginName;
  readonly files: Files;
  readonly review?: unknown;
  /**
   * `agree`: both sides must give the same answer. `known-i26-fixes`: a difference fixed on branch i26-fixes, enabled
   * once it is merged. `undecidable`: upstream's answer depends on time or randomness (`note` says why). `open`: a
   * difference found and not fixed yet (README lists them).
   */
  readonly status: 'agree' | 'known-i26-fixes' | 'undecidable' | 'open';
  readonly note?: string;
  /** upstream's answer, or the part of it the upstream test asserts (partial: only the fields given are checked) */
  readonly expect?: Record<string, unknown>;
  /** the differences when it was found, before the fix */
  readonly found?: readonly string[];
  /** the upstream file that decides it */
  readonly upstream?: string;
}

export interface NamedFixture {
  readonly name: string;
  readonly fixture: Fixture;
}

export function readFixtures(dir = fixturesDir): NamedFixture[] {
  const out: NamedFixture[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.json')) out.push({ name: relative(dir, path), fixture: JSON.parse(readFileSync(path, 'utf8')) as Fixture });
    }
  };
  walk(dir);
  return out;
}

/** Writes a new disagreement as a fixture (status `agree`: it fails until fixed); returns its path. */
export function writeDisagreement(d: Disagreement, source: string, name: string, dir = join(fixturesDir, 'generated')): string {
  mkdirSync(dir, { recursive: true });
  const fixture: Fixture = {
    source, op: d.op, plugin: d.plugin, files: d.files,
    ...(d.review === undefined ? {} : { review: d.review }),
    status: 'agree',
    ...(d.upstream === undefined ? {} : { expect: expectationOf(d) }),
    found: d.differences,
  };
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(fixture, null, 2) + '\n');
  return path;
}

/** What a fixture states of upstream's answer: what the comparison reads, audit annotation keys as the daemon answers. */
function expectationOf(d: Disagreement): Record<string, unknown> {
  if (d.op === 'load') {
    const u = d.upstream as LoadAnswer;
    if (u.ok) return { ok: true, hash: u.hash, counts: u.counts };
    // the file's path is the temporary directory's: the rest of the message is stated
    const error = u.error.startsWith('error loading ') ? u.error.slice(u.error.indexOf(': ') + 2) : u.error;
    return { ok: false, errorContains: error };
  }
  const u = d.upstream as ValidateAnswer;
  const out: Record<string, unknown> = { allowed: u.allowed };
  if (u.status) out['status'] = { code: u.status.code, reason: u.status.reason, message: decisionAsReleaseBuild(u.status.message) };
  if (u.warnings !== undefined && u.warnings.length > 0) out['warnings'] = u.warnings;
  const annotations = answeredAuditAnnotations(u.auditAnnotations);
  if (annotations !== undefined) out['auditAnnotations'] = annotations;
  return out;
}

/** The fields of `expect` that `actual` does not match (objects compared whole). */
export function expectationMisses(expect: Record<string, unknown>, actual: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [key, want] of Object.entries(expect)) {
    if (key === 'id') continue;
    if (key === 'errorContains') {
      // upstream's table tests assert a part of the message
      const error = actual['error'];
      if (typeof error !== 'string' || !error.includes(String(want))) out.push(`error: expected one containing ${JSON.stringify(want)}, got ${JSON.stringify(error)}`);
      continue;
    }
    const got = actual[key];
    if (key === 'status' && typeof want === 'object' && want !== null) {
      for (const [k, v] of Object.entries(want)) {
        const g = (got as Record<string, unknown> | undefined)?.[k];
        if (!isDeepStrictEqual(v, g)) out.push(`status.${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(g)}`);
      }
      continue;
    }
    if (!isDeepStrictEqual(want, got)) out.push(`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return out;
}
