// Generated cases through both sides: groups from the seeded generator, a few directories at a time so the oracle's
// pipe stays busy while the daemon evaluates. Shared by the suite (test/upstream/generated.test.ts) and
// `npm run test:upstream`.
import { casesIn, generateGroup } from './generate/index.js';
import type { CaseGroup, GroupOp } from './generate/index.js';
import { compareCompile, compareDirectory, newTally, scratch, writeDir } from './differential.js';
import type { JsonObject } from '../../lib/manifest/document.js';
import { isV1Kind } from '../../lib/manifest/scheme.js';
import type { Disagreement, Tally } from './differential.js';
import { DaemonSide } from './daemon.js';
import type { Oracle } from './oracle.js';

export interface GeneratedRun {
  readonly seed: number;
  /** comparisons to make at least (a group's are not split) */
  readonly cases: number;
  /** groups in flight at once */
  readonly concurrency?: number;
  /** only groups of these kinds (the others of the seed are skipped, so group numbers stay the seed's) */
  readonly ops?: ReadonlySet<GroupOp>;
  /** after each group, with its disagreements */
  readonly onGroup?: (group: CaseGroup, disagreements: readonly Disagreement[], tally: Tally) => void;
}

export interface GeneratedResult extends Tally {
  readonly groups: number;
  readonly byOp: Record<string, number>;
}

export async function runGenerated(oracle: Oracle, run: GeneratedRun): Promise<GeneratedResult> {
  const tally = newTally();
  const byOp: Record<string, number> = {};
  const daemon = new DaemonSide();
  const tmp = scratch();
  let index = 0;
  let planned = 0;
  const next = (): CaseGroup | undefined => {
    if (planned >= run.cases) return undefined;
    let group = generateGroup(run.seed, index++);
    while (run.ops !== undefined && !run.ops.has(group.op)) group = generateGroup(run.seed, index++);
    planned += casesIn(group);
    return group;
  };
  const worker = async (): Promise<void> => {
    for (let group = next(); group !== undefined; group = next()) {
      const own = newTally();
      const dir = writeDir(tmp.dir, `g${group.index}`, group.files);
      await compareDirectory(oracle, daemon, dir, group.plugin, group.files, group.op, group.reviews, own);
      for (const object of group.objects) {
        const kind = (object as { kind?: unknown; apiVersion?: unknown });
        if (kind.apiVersion === 'admissionregistration.k8s.io/v1' && typeof kind.kind === 'string' && isV1Kind('admissionregistration.k8s.io/v1', kind.kind)) {
          await compareCompile(oracle, group.plugin, kind.kind, object as JsonObject, group.files, own);
        }
      }
      tally.agreements += own.agreements;
      tally.disagreements.push(...own.disagreements);
      byOp[group.op] = (byOp[group.op] ?? 0) + own.agreements + own.disagreements.length;
      run.onGroup?.(group, own.disagreements, tally);
    }
  };
  try {
    await Promise.all(Array.from({ length: run.concurrency ?? 4 }, worker));
  } finally {
    tmp.cleanup();
  }
  return { ...tally, groups: index, byOp };
}
