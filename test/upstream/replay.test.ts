// Replay's decisions held against kube-apiserver 1.36's own ValidatingAdmissionPolicy plugin (the upstream-oracle):
// every write of testdata/replay/audit-log that `replay` decides, with the set in force and with the looser and the
// stricter candidate, is rebuilt as replay rebuilds it (lib/replay/request.ts, in log order through one tracker) and
// sent to upstream's plugin loaded from the same directory. The decision, code, reason and message replay reports must
// be upstream's. kube-system's writes are included (--include-system-namespaces) so that more writes are decided.
// Skipped, saying so, without the oracle; required under CI=true.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { classifyEvent } from '../../lib/replay/filter.js';
import { ObjectTracker } from '../../lib/replay/objects.js';
import { buildReplayCase } from '../../lib/replay/request.js';
import type { AuditEvent, ReplayCase } from '../../lib/replay/request.js';
import { admissionConfigYAML } from '../helpers/admission-config.js';
import { tempDir } from '../helpers/fs.js';
import { run } from '../cli/helpers.js';
import { namespaceFor } from './daemon.js';
import { Oracle, oracleTestOption, repoRoot } from './oracle.js';

const option = oracleTestOption();
const fixture = join(repoRoot, 'testdata/replay/audit-log');
const auditLog = join(fixture, 'audit.log');
const sets = ['in-force', 'looser', 'stricter'] as const;
const tmp = tempDir('sad-replay-upstream-');
let oracle: Oracle | undefined;

before(() => {
  if (option.skip === false) oracle = new Oracle();
});
after(async () => {
  await oracle?.close();
  tmp.cleanup();
});

interface Result {
  readonly auditID: string;
  readonly result: string;
  readonly response?: { readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string } };
}

/** The writes of the log rebuilt as replay rebuilds them, by auditID: one tracker, in log order. */
function rebuiltWrites(): Map<string, ReplayCase> {
  const tracker = new ObjectTracker();
  const cases = new Map<string, ReplayCase>();
  for (const line of readFileSync(auditLog, 'utf8').trimEnd().split('\n')) {
    const event = JSON.parse(line) as Record<string, unknown>;
    if (!('key' in classifyEvent(event))) continue;
    const built = buildReplayCase(event as AuditEvent, tracker);
    if ('replay' in built) cases.set(built.replay.auditID, built.replay);
  }
  return cases;
}

/** The request /validate is sent: the log's object, or (none logged) /mutate's under the generated name (decide.ts). */
function validateRequest(replay: ReplayCase): AdmissionRequest {
  if (!replay.validateAfterMutation) return replay.validate;
  const object = replay.mutate.object as Record<string, unknown>;
  const named = replay.generatedName === undefined ? object : { ...object, metadata: { ...(object.metadata as object), name: replay.generatedName } };
  return { ...replay.validate, object: named };
}

describe('replay of a real audit log, decided by upstream\'s ValidatingAdmissionPolicy plugin too', option, () => {
  for (const set of sets) {
    it(`the ${set} set: every write replay decides, upstream decides the same (allowed, code, reason, message)`, async () => {
      const config = join(tmp.dir, `${set}.yaml`);
      writeFileSync(config, admissionConfigYAML(join(fixture, set)));
      const r = await run(['replay', '-o', 'json', '--workers', '0', '--include-system-namespaces', '--admission-config', config, auditLog]);
      const results = (JSON.parse(r.out) as { results: readonly Result[] }).results.filter((x) => x.result === 'allowed' || x.result === 'denied');
      assert.ok(results.length >= 10, `only ${results.length} writes decided`);
      assert.ok(results.some((x) => x.result === 'denied') || set === 'looser', 'a set that denies nothing tests little');
      const writes = rebuiltWrites();
      const differences: string[] = [];
      for (const result of results) {
        const replay = writes.get(result.auditID);
        assert.ok(replay !== undefined, `${result.auditID}: decided by replay, not rebuilt here`);
        const request = validateRequest(replay);
        const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
        const upstream = await oracle!.validate(join(fixture, set), review, namespaceFor(request));
        const ours = { allowed: result.result === 'allowed', code: result.response?.status?.code, reason: result.response?.status?.reason, message: result.response?.status?.message };
        const theirs = { allowed: upstream.allowed, code: upstream.status?.code, reason: upstream.status?.reason, message: upstream.status?.message };
        if (ours.allowed) {
          if (!theirs.allowed) differences.push(`${result.auditID}: replay allowed, upstream ${JSON.stringify(theirs)}`);
        } else if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
          differences.push(`${result.auditID}: replay ${JSON.stringify(ours)}, upstream ${JSON.stringify(theirs)}`);
        }
      }
      assert.deepEqual(differences, []);
    });
  }
});
