// One load-generator process of the hot-path benchmark (bench/run.ts forks several, so that one client process is
// not the limit; each may be pinned to the client CPUs). Commands arrive over IPC; each runs closedLoop/openLoop
// (bench/load.ts) against one target with this process's share of the connections or the rate, and answers with the
// latencies and this process's CPU time.
import type { Agent } from 'node:https';
import { closedLoop, newAgent, openLoop, postOnce } from './load.js';
import type { LoadResult, Target } from './load.js';

export interface WireTarget {
  readonly url: string;
  readonly ca: string;
  readonly body: string;
  readonly expect: string;
}

export type LoadCommand =
  | { readonly op: 'check'; readonly key: string; readonly target: WireTarget; readonly connections: number }
  | { readonly op: 'closed'; readonly key: string; readonly target: WireTarget; readonly connections: number; readonly seconds: number }
  | { readonly op: 'open'; readonly key: string; readonly target: WireTarget; readonly connections: number; readonly rate: number; readonly seconds: number }
  | { readonly op: 'exit' };

export interface LoadReply {
  readonly ok: boolean;
  readonly completed: number;
  readonly errors: number;
  readonly seconds: number;
  readonly latencies: number[];
  /** this process's CPU seconds during the command */
  readonly cpu: number;
}

/** A keep-alive agent per server: its connections are opened once (in the checks and warm-up) and kept. */
const agents = new Map<string, Agent>();
const agentFor = (key: string, connections: number): Agent => {
  let agent = agents.get(key);
  if (agent === undefined) agents.set(key, (agent = newAgent(connections)));
  return agent;
};

const targetOf = (t: WireTarget): Target => ({ url: new URL(t.url), ca: t.ca, body: Buffer.from(t.body, 'base64'), expect: t.expect });

async function run(command: Exclude<LoadCommand, { op: 'exit' }>): Promise<LoadReply> {
  const agent = agentFor(command.key, command.connections);
  const target = targetOf(command.target);
  const u0 = process.cpuUsage();
  let res: LoadResult;
  if (command.op === 'check') {
    const ok = await postOnce(target, agent);
    return { ok, completed: ok ? 1 : 0, errors: ok ? 0 : 1, seconds: 0, latencies: [], cpu: 0 };
  }
  if (command.op === 'closed') res = await closedLoop(target, agent, command.connections, command.seconds);
  else res = await openLoop(target, agent, command.rate, command.seconds);
  const u = process.cpuUsage(u0);
  return { ok: true, completed: res.completed, errors: res.errors, seconds: res.seconds, latencies: Array.from(res.latencies), cpu: (u.user + u.system) / 1e6 };
}

process.on('message', (command: LoadCommand) => {
  if (command.op === 'exit') {
    for (const a of agents.values()) a.destroy();
    process.exit(0);
  }
  void run(command).then((reply) => process.send!(reply), (err: unknown) => process.send!({ ok: false, completed: 0, errors: 1, seconds: 0, latencies: [], cpu: 0, error: String(err) }));
});
