// Unknown results: a set is asked whether it reads what the log lacks before it decides. Only policies whose rules
// match the request count; what they read is their expressions' variables (the CEL reference check) and their
// selectors (an objectSelector reads object and oldObject labels).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createLogger } from '../../lib/log/logger.js';
import { loadReplayChain } from '../../lib/replay/chains.js';
import { decide } from '../../lib/replay/decide.js';
import { ObjectTracker } from '../../lib/replay/objects.js';
import { buildReplayCase } from '../../lib/replay/request.js';
import type { AuditEvent } from '../../lib/replay/request.js';
import { tempDir } from '../helpers/fs.js';
import { auditEvent, boundPolicy, configMapPolicy, policySet } from './helpers.js';

const tmp = tempDir('sad-replay-decide-');
after(() => tmp.cleanup());

const chainOf = (name: string, policies: string): ReturnType<typeof loadReplayChain> =>
  loadReplayChain({ configFile: policySet(tmp.dir, name, policies), featureGates: '', skipWebhooks: true, authorizationKubeconfig: '' }, createLogger({ write: () => {} }));

/** An update of a ConfigMap the log has not shown before: its oldObject is unknown. */
function unseenUpdate(): Parameters<typeof decide>[0] {
  const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'ns', resourceVersion: '7', labels: { tier: 'web' } } };
  const built = buildReplayCase(auditEvent({ verb: 'update', requestURI: '/api/v1/namespaces/ns/configmaps/x', objectRef: { resource: 'configmaps', namespace: 'ns', name: 'x', apiVersion: 'v1' },
    requestObject: cm, responseObject: { ...cm, metadata: { ...cm.metadata, resourceVersion: '8' } } }) as AuditEvent, new ObjectTracker());
  assert.ok('replay' in built);
  return built.replay;
}

test('an unknown oldObject: unknown for a policy that reads it or selects on labels, decided for the others', async () => {
  const readsOld = chainOf('reads-old', configMapPolicy('old', '  - expression: "oldObject.metadata.name == object.metadata.name"\n'));
  const selects = chainOf('selects', configMapPolicy('sel', '  - expression: "true"\n').replace('      resources: ["configmaps"]', '      resources: ["configmaps"]\n    objectSelector:\n      matchLabels: {tier: web}'));
  const readsObject = chainOf('reads-object', configMapPolicy('obj', '  - expression: "object.metadata.name != \'forbidden\'"\n'));
  // reads oldObject, but its rules never match a ConfigMap
  const elsewhere = chainOf('elsewhere', boundPolicy('pods', `    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["pods"]`, '  - expression: "oldObject != null"\n'));
  try {
    const old = await decide(unseenUpdate(), readsOld);
    assert.equal(old.outcome, 'unknown');
    assert.match(old.reason!, /^ValidatingAdmissionPolicy "old.static.k8s.io" reads oldObject, which the log lacks: the stored ConfigMap ns\/x is not in the log before this update/);
    const sel = await decide(unseenUpdate(), selects);
    assert.equal(sel.outcome, 'unknown');
    assert.match(sel.reason!, /^ValidatingAdmissionPolicy "sel.static.k8s.io" reads oldObject \(its labels, for a selector\), which the log lacks/);
    assert.deepEqual(await decide(unseenUpdate(), readsObject).then((d) => [d.outcome, d.reason]), ['allowed', undefined]);
    assert.equal((await decide(unseenUpdate(), elsewhere)).outcome, 'allowed');
  } finally {
    await Promise.all([readsOld, selects, readsObject, elsewhere].map((c) => c.close()));
  }
});
