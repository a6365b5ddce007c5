// The client of tools/upstream-oracle: one long-running Go process built on kube-apiserver 1.36's own code, asked
// over JSON lines (tools/upstream-oracle/PROTOCOL.md): each request carries an id, each answer echoes it, in order.
// One process serves a whole suite, so thousands of cases cost no process start each.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const repoRoot = new URL('../../../', import.meta.url).pathname;

/** Where build.sh puts the binary, relative to the repository root. */
export const builtOraclePath = join(repoRoot, 'tools/upstream-oracle/bin/upstream-oracle');

export type OraclePlugin = 'ValidatingAdmissionPolicy' | 'MutatingAdmissionPolicy' | 'ValidatingAdmissionWebhook' | 'MutatingAdmissionWebhook';

export interface OracleStatus {
  code?: number;
  reason?: string;
  message?: string;
}

export type LoadAnswer =
  | { ok: true; hash: string; counts: Record<string, number>; names?: Record<string, string[]> }
  | { ok: false; error: string };

export interface ValidateAnswer {
  allowed: boolean;
  status?: OracleStatus;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface MutateAnswer extends ValidateAnswer {
  object?: unknown;
}

export interface CompileAnswer {
  errors: string[];
}

/** The answer the oracle gives a request it could not process (a bad request, not upstream's verdict). */
export class OracleError extends Error {
  override readonly name = 'OracleError';
}

/**
 * The oracle to run: the repository's own build first (tools/upstream-oracle/build.sh), then $UPSTREAM_ORACLE (a
 * binary built elsewhere). undefined when there is none.
 */
export function locateOracle(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (existsSync(builtOraclePath)) return builtOraclePath;
  const fromEnv = env['UPSTREAM_ORACLE'];
  if (fromEnv !== undefined && fromEnv !== '' && existsSync(fromEnv)) return fromEnv;
  return undefined;
}

/**
 * The `node:test` option of the differential tests: skipped, saying why, where there is no oracle; under CI=true they
 * run (and fail) instead, since CI builds it.
 */
export function oracleTestOption(env: NodeJS.ProcessEnv = process.env): { skip: string | false } {
  if (locateOracle(env) !== undefined || env['CI'] === 'true') return { skip: false };
  const go = spawnSync('go', ['version'], { stdio: 'ignore' }).error === undefined;
  return { skip: go ? 'upstream-oracle not built: run tools/upstream-oracle/build.sh (or set UPSTREAM_ORACLE)' : 'go is not installed, so the upstream-oracle cannot be built' };
}

interface Pending {
  resolve(answer: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export interface OracleOptions {
  /** the binary; default locateOracle() */
  readonly path?: string;
  /** per request, in ms (a request that takes longer fails; the process is not restarted) */
  readonly timeoutMs?: number;
}

export class Oracle {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #nextId = 1;
  #stderr = '';
  #exited: Error | undefined;
  readonly #exit: Promise<void>;

  constructor(options: OracleOptions = {}) {
    const path = options.path ?? locateOracle();
    if (path === undefined) throw new Error('no upstream-oracle binary: run tools/upstream-oracle/build.sh or set UPSTREAM_ORACLE');
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#child = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.setEncoding('utf8');
    // klog goes here; only the tail is kept, for the message of a crash
    this.#child.stderr.on('data', (chunk: string) => { this.#stderr = (this.#stderr + chunk).slice(-4000); });
    const lines = createInterface({ input: this.#child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => this.#answer(line));
    this.#exit = new Promise((resolve) => {
      this.#child.on('error', (err) => this.#fail(err));
      this.#child.on('exit', (code, signal) => {
        this.#fail(new Error(`upstream-oracle exited (${signal ?? code}): ${this.#stderr.trim().split('\n').slice(-5).join('\n')}`));
        resolve();
      });
    });
    // a broken pipe shows as the exit above
    this.#child.stdin.on('error', () => {});
  }

  #answer(line: string): void {
    if (line.trim() === '') return;
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.#fail(new Error(`upstream-oracle wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const id = answer['id'];
    const pending = typeof id === 'number' ? this.#pending.get(id) : undefined;
    if (pending === undefined) return;
    this.#pending.delete(id as number);
    clearTimeout(pending.timer);
    if (typeof answer['oracleError'] === 'string') pending.reject(new OracleError(answer['oracleError']));
    else pending.resolve(answer);
  }

  #fail(err: Error): void {
    this.#exited ??= err;
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.#pending.delete(id);
    }
  }

  #request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`upstream-oracle did not answer request ${id} (${String(body['op'])}) within ${this.#timeoutMs}ms`));
      }, this.#timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.#child.stdin.write(JSON.stringify({ id, ...body }) + '\n');
    });
  }

  async load(plugin: OraclePlugin, dir: string): Promise<LoadAnswer> {
    return (await this.#request({ op: 'load', plugin, dir })) as unknown as LoadAnswer;
  }

  async validate(dir: string, review: unknown, namespace: unknown): Promise<ValidateAnswer> {
    return (await this.#request({ op: 'validate', dir, review, namespace })) as unknown as ValidateAnswer;
  }

  async mutate(dir: string, review: unknown, namespace: unknown): Promise<MutateAnswer> {
    return (await this.#request({ op: 'mutate', dir, review, namespace })) as unknown as MutateAnswer;
  }

  async compile(object: unknown): Promise<CompileAnswer> {
    return (await this.#request({ op: 'compile', object })) as unknown as CompileAnswer;
  }

  /** Ends the process: stdin closed (it exits at EOF), killed if it has not gone within `graceMs`. */
  async close(graceMs = 5_000): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    await this.#exit;
    clearTimeout(timer);
  }
}
