// Shared by the reload and e2e suites: manifest text, the content hash computed independently of lib/, Prometheus
// text parsing, and deadline-bounded waiting (every wait in these suites ends in a pass or a named timeout).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The apiserver_id_hash of upstream's integration tests (apiserver ID of host `testAPIServerID`). */
export const testAPIServerID = 'apiserver-5toptfq5wsd34qjmvecvmgbige';
export const testAPIServerIDHash = 'sha256:3c607df3b2bf22c9d9f01d5314b4bbf411c48ef43ff44ff29b1d55b41367c795';

export const metricPrefix = 'apiserver_manifest_admission_config_controller';
export const reloadsTotal = `${metricPrefix}_automatic_reloads_total`;
export const lastTimestamp = `${metricPrefix}_automatic_reload_last_timestamp_seconds`;
export const lastConfigInfo = `${metricPrefix}_last_config_info`;

export async function makeTempDir(prefix = 'static-admissiond-test-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A ValidatingAdmissionPolicy (matching configmaps CREATE/UPDATE) as YAML. */
export function vapYAML(name: string, expression = "object.metadata.name != 'forbidden'"): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  validations:
  - expression: ${JSON.stringify(expression)}
`;
}

export function bindingYAML(name: string, policyName: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec: {policyName: ${policyName}, validationActions: [Deny]}
`;
}

export function docs(...parts: string[]): string {
  return parts.join('---\n');
}

/** A policy `<stem>.static.k8s.io` and its binding `<stem>-binding.static.k8s.io`. */
export function policyAndBinding(stem: string, expression?: string): string {
  return docs(vapYAML(`${stem}.static.k8s.io`, expression), bindingYAML(`${stem}-binding.static.k8s.io`, `${stem}.static.k8s.io`));
}

/** The brief's minimal valid policy set. */
export const minimalPolicySet = policyAndBinding('p1');

/** Upstream's content hash (§6), computed here from the file contents in name order, independently of lib/. */
export function contentHash(...contentsInNameOrder: Array<string | Buffer>): string {
  const h = createHash('sha256');
  let any = false;
  for (const c of contentsInNameOrder) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c, 'utf8');
    if (b.length === 0) continue;
    h.update(b);
    h.update(Buffer.from([0]));
    any = true;
  }
  return any ? `sha256:${h.digest('hex')}` : '';
}

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Samples of a Prometheus text exposition (comments skipped). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!m) throw new Error(`unparsable metrics line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const lm of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[lm[1]!] = lm[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export function samplesOf(text: string, name: string, labels: Record<string, string> = {}): Sample[] {
  return parseMetrics(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample of `name` with `labels` (a subset), or undefined when there is none. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samplesOf(text, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` until it returns something other than undefined/false, or fails after `timeoutMs` with `what` and
 * the last value seen. The pause between probes is only pacing; the condition is what synchronises.
 */
export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(everyMs);
  }
}

/** Resolves with the first event `emitter` emits that satisfies `accept`; rejects after `timeoutMs`. */
export function nextEvent<T>(
  emitter: { on(event: string, l: (v: T) => void): unknown; off(event: string, l: (v: T) => void): unknown },
  event: string,
  accept: (v: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const listener = (v: T): void => {
      if (!accept(v)) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(v);
    };
    emitter.on(event, listener);
  });
}
