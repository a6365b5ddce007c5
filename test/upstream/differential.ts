// Runs comparisons through both sides: a manifest directory loaded by each (the load compared: error text, hash,
// counts), then each request decided by each (compared as compare.ts says). A disagreement carries everything needed
// to replay it: the files, the request, the namespace the oracle was given, and both answers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PluginName } from '../../lib/manifest/plugins.js';
import { applyDefaults } from '../../lib/manifest/defaults.js';
import type { JsonObject } from '../../lib/manifest/document.js';
import type { V1Kind } from '../../lib/manifest/scheme.js';
import { validateObject } from '../../lib/manifest/validate.js';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { compareDecisions, compareLoads, compareMutations, isBuiltInGroup } from './compare.js';
import type { Differences } from './compare.js';
import { daemonLoad, DaemonSide, namespaceFor } from './daemon.js';
import { OracleError } from './oracle.js';
import type { Oracle } from './oracle.js';
import type { Files } from './generate/index.js';

export type Op = 'load' | 'validate' | 'mutate' | 'compile';

export interface Comparison {
  readonly op: Op;
  readonly plugin: PluginName;
  readonly files: Files;
  readonly review?: unknown;
}

export interface Disagreement extends Comparison {
  readonly namespace?: unknown;
  readonly differences: Differences;
  readonly upstream: unknown;
  readonly daemon: unknown;
}

export interface Tally {
  agreements: number;
  disagreements: Disagreement[];
}

export const newTally = (): Tally => ({ agreements: 0, disagreements: [] });

/** Writes `files` into a fresh directory under `parent`. */
export function writeDir(parent: string, name: string, files: Files): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return dir;
}

export function scratch(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sad-upstream-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * One directory (already written at `dir`, made of `files`) through both loaders, then, when both loaded it, every
 * review through both plugins. Comparisons counted in `tally`.
 */
export async function compareDirectory(oracle: Oracle, daemon: DaemonSide, dir: string, plugin: PluginName, files: Files, op: Op, reviews: readonly unknown[], tally: Tally): Promise<void> {
  const [upstreamLoad, daemonLoaded] = [await oracle.load(plugin, dir), daemonLoad(plugin, dir)];
  const loadDifferences = compareLoads(upstreamLoad, daemonLoaded, plugin);
  if (loadDifferences.length > 0) {
    tally.disagreements.push({ op: 'load', plugin, files, differences: loadDifferences, upstream: upstreamLoad, daemon: daemonLoaded });
  } else tally.agreements++;
  if (op === 'load' || !upstreamLoad.ok || !daemonLoaded.ok) return;
  await Promise.all(reviews.map(async (review) => {
    const request = (review as { request: AdmissionRequest }).request;
    const namespace = namespaceFor(request);
    let upstream;
    let mine;
    let differences: Differences;
    try {
      if (op === 'validate') {
        [upstream, mine] = await Promise.all([oracle.validate(dir, review, namespace), daemon.validate(dir, review)]);
        differences = compareDecisions(upstream, mine);
      } else {
        [upstream, mine] = await Promise.all([oracle.mutate(dir, review, namespace), daemon.mutate(dir, review)]);
        differences = compareMutations(upstream, mine, isBuiltInGroup(request.kind?.group ?? ''));
      }
    } catch (err) {
      // an oracle that cannot answer is a failure of the comparison, never an agreement
      if (!(err instanceof OracleError)) throw err;
      tally.disagreements.push({ op, plugin, files, review, namespace, differences: [`oracleError: ${err.message}`], upstream: undefined, daemon: undefined });
      return;
    }
    if (differences.length === 0) tally.agreements++;
    else tally.disagreements.push({ op, plugin, files, review, namespace, differences, upstream, daemon: mine });
  }));
}

/** errs.ToAggregate().Error() of upstream's field errors: repeats dropped, one as is, several as "[a, b]". */
export function aggregateOf(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : unique.length === 0 ? '' : `[${unique.join(', ')}]`;
}

/**
 * One object's API validation at create time (where CEL compile errors surface), upstream's against the daemon's
 * (defaulted, then validated as its loader validates it: lib/manifest/validate.ts). Counted in `tally`.
 */
export async function compareCompile(oracle: Oracle, plugin: PluginName, kind: V1Kind, object: JsonObject, files: Files, tally: Tally): Promise<void> {
  let upstream;
  try {
    upstream = aggregateOf((await oracle.compile(object)).errors);
  } catch (err) {
    if (!(err instanceof OracleError)) throw err;
    // an object that does not even decode is the loader's case (compared by the load), not validation's
    if (err.message.startsWith('object: ')) return;
    tally.disagreements.push({ op: 'compile', plugin, files, review: object, differences: [`oracleError: ${err.message}`], upstream: undefined, daemon: undefined });
    return;
  }
  const copy = structuredClone(object);
  applyDefaults(kind, copy);
  const daemon = validateObject(kind, copy) ?? '';
  if (upstream === daemon) tally.agreements++;
  else tally.disagreements.push({ op: 'compile', plugin, files, review: object, differences: [`errors: upstream ${JSON.stringify(upstream)}, daemon ${JSON.stringify(daemon)}`], upstream, daemon });
}

/** A disagreement as a readable block for a failing assertion or the CLI's report. */
export function describe(d: Disagreement, label: string): string {
  const request = (d.review as { request?: { operation?: string; kind?: { kind?: string }; name?: string; namespace?: string } } | undefined)?.request;
  const what = request ? ` ${request.operation} ${request.kind?.kind} ${request.namespace ?? ''}/${request.name ?? ''}` : '';
  return `${label}: ${d.op} ${d.plugin}${what}\n  ${d.differences.join('\n  ')}`;
}
