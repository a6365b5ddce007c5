// The load generator of the hot-path benchmark: HTTPS/1.1 POSTs over keep-alive connections on loopback, closed
// loop (N connections, each sending its next request when the previous answer is in: maximum throughput) or open
// loop (requests sent at a fixed rate whatever the answers do, latency measured from the moment each request was
// due, so a stall shows up in the percentiles instead of slowing the sender down).
import { Agent, request } from 'node:https';

export interface Target {
  /** https://127.0.0.1:port/validate?timeout=10s */
  readonly url: URL;
  readonly ca: string;
  readonly body: Buffer;
  /** a substring every good answer contains */
  readonly expect: string;
}

export interface LoadResult {
  readonly completed: number;
  readonly errors: number;
  readonly seconds: number;
  /** latencies in ms, unsorted */
  readonly latencies: Float64Array;
}

export function newAgent(connections: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections, keepAliveMsecs: 10_000, scheduling: 'lifo' });
}

function post(target: Target, agent: Agent): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({
      host: target.url.hostname,
      port: target.url.port,
      path: target.url.pathname + target.url.search,
      method: 'POST',
      agent,
      ca: target.ca,
      headers: { 'Content-Type': 'application/json', 'Content-Length': target.body.length },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve(res.statusCode === 200 && text.includes(target.expect)));
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    req.end(target.body);
  });
}

/** One request, for checks. */
export async function postOnce(target: Target, agent: Agent): Promise<boolean> {
  return post(target, agent);
}

/** Closed loop: `connections` requests in flight for `seconds`. */
export async function closedLoop(target: Target, agent: Agent, connections: number, seconds: number): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const ok = await post(target, agent);
      if (ok) latencies.push(performance.now() - t0);
      else errors++;
    }
  }));
  return { completed: latencies.length, errors, seconds: (performance.now() - start) / 1000, latencies: Float64Array.from(latencies) };
}

/** Open loop: `rate` requests per second for `seconds`, each timed from when it was due (`dues`: performance.now()). */
export async function openLoop(target: Target, agent: Agent, rate: number, seconds: number): Promise<LoadResult & { readonly dues: Float64Array }> {
  const latencies: number[] = [];
  const dues: number[] = [];
  let errors = 0;
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  const inFlight: Array<Promise<void>> = [];
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        const due = start + sent * interval;
        sent++;
        inFlight.push(post(target, agent).then((ok) => {
          if (!ok) return void errors++;
          latencies.push(performance.now() - due);
          dues.push(due);
        }));
      }
      if (sent >= total) return resolve();
      // wake at the next due time (timers fire late, never early; late sends are still timed from their due time)
      setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  return { completed: latencies.length, errors, seconds: (performance.now() - start) / 1000, latencies: Float64Array.from(latencies), dues: Float64Array.from(dues) };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
