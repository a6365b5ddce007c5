// What the one-thread evaluation harnesses (mutate-cpu.ts, validate-cpu.ts) load from a build: its evaluation entry
// point for one endpoint and the bench's policies compiled by it, from the dist/ under a directory (this build's or
// another's, for `--compare`).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Answer { readonly body: Uint8Array | string }
export interface Review { readonly answer: Answer | Promise<Answer> }
/** lib/review/evaluate.ts's validateOnThisThread or mutateOnThisThread, as any build exports it */
export type OnThisThread = (input: { body: Buffer; deadline: number; timeoutMs: number }, hooks: readonly unknown[], thread: object) => Review;

export interface EvaluationBuild {
  readonly name: string;
  readonly evaluate: OnThisThread;
  readonly hooks: readonly unknown[];
}

/** The build under `dir`: `entry` of its lib/review/evaluate.js and the snapshot of `plugin` it loads from `policies`. */
export async function evaluationBuild(name: string, dir: string, entry: 'validateOnThisThread' | 'mutateOnThisThread', plugin: string, policies: string): Promise<EvaluationBuild> {
  const load = (path: string): Promise<Record<string, unknown>> => import(pathToFileURL(join(dir, 'dist', path)).href) as Promise<Record<string, unknown>>;
  const evaluate = await load('lib/review/evaluate.js');
  const pipeline = await load('lib/reload/pipeline.js');
  const loadSnapshotSync = pipeline['loadSnapshotSync'] as (plugin: string, dir: string) => { compiled: { hooks: readonly unknown[] } };
  return { name, evaluate: evaluate[entry] as OnThisThread, hooks: loadSnapshotSync(plugin, policies).compiled.hooks };
}
