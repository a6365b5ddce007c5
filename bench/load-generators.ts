// The benchmark's load processes (bench/load-process.ts), each holding its share of every server's connections, and
// what one phase against one server measured: its answers' latencies and the server's CPU from /proc.
import { fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadCommand, LoadReply, WireTarget } from './load-process.js';
import { threadCpuSeconds } from './util.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** A server under test: its process, the request it must answer as expected, and (validating) one it must deny. */
export interface Server {
  readonly key: string;
  readonly label: string;
  readonly child: ChildProcess;
  readonly target: WireTarget;
  readonly deny?: WireTarget;
}

export interface Measured {
  readonly completed: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latencies: Float64Array;
  readonly clientCpu: number;
  /** server CPU seconds: main thread, whole process */
  readonly mainCpu: number;
  readonly totalCpu: number;
}

/** The load generator processes, each holding its share of every server's connections. */
export class LoadGenerators {
  readonly #children: ChildProcess[] = [];
  readonly #connections: number;

  /** `n` processes, pinned to `clientCpus` when given, sharing `connections` per server. */
  constructor(n: number, connections: number, clientCpus: string | undefined) {
    this.#connections = connections;
    for (let i = 0; i < n; i++) {
      const script = join(root, 'dist', 'bench', 'load-process.js');
      this.#children.push(clientCpus === undefined
        ? fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
        : spawn('taskset', ['-c', clientCpus, process.execPath, script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    }
  }

  #ask(command: LoadCommand, child: ChildProcess): Promise<LoadReply> {
    return new Promise((resolve) => {
      child.once('message', (reply: LoadReply) => resolve(reply));
      child.send(command);
    });
  }

  /** Runs one command on every process (connections and rate split between them) and merges their results. */
  async run(server: Server, op: 'check' | 'closed' | 'open', options: { seconds?: number; rate?: number; target?: WireTarget } = {}): Promise<Measured> {
    const n = this.#children.length;
    const perProcess = Math.max(1, Math.ceil(this.#connections / n));
    const target = options.target ?? server.target;
    const pid = server.child.pid!;
    const main0 = threadCpuSeconds(pid, pid);
    const total0 = threadCpuSeconds(pid);
    const replies = await Promise.all(this.#children.map((child) => this.#ask(
      op === 'open'
        ? { op, key: server.key, target, connections: perProcess, rate: options.rate! / n, seconds: options.seconds! }
        : op === 'closed' ? { op, key: server.key, target, connections: perProcess, seconds: options.seconds! } : { op, key: server.key, target, connections: perProcess },
      child,
    )));
    const latencies = Float64Array.from(replies.flatMap((r) => r.latencies)).sort();
    return {
      completed: replies.reduce((s, r) => s + r.completed, 0),
      errors: replies.reduce((s, r) => s + r.errors, 0),
      seconds: Math.max(...replies.map((r) => r.seconds)),
      latencies,
      clientCpu: replies.reduce((s, r) => s + r.cpu, 0),
      mainCpu: threadCpuSeconds(pid, pid) - main0,
      totalCpu: threadCpuSeconds(pid) - total0,
    };
  }

  close(): void {
    for (const c of this.#children) if (c.connected) c.send({ op: 'exit' } satisfies LoadCommand);
  }
}

/** CPU seconds over `n` requests, as µs per request. */
export const perRequest = (cpu: number, n: number): string => (n > 0 ? (cpu / n * 1e6).toFixed(0) : '—');
