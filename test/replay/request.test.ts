// AdmissionRequests rebuilt from audit Events, compared field by field with what kube-apiserver sent for the same
// writes (testdata/replay/apiserver-captures, real AdmissionReviews of a kubectl session: README there).
//
// No apiserver with an audit log ran beside the capturing webhook, so each capture's audit Event is written here as
// the apiserver's audit code writes it for that write:
// - verb, requestURI, user, objectRef (apiVersion, resource, namespace, name): S/audit/request.go LogRequestMetadata
//   (from the RequestInfo: POST create, PATCH patch, DELETE delete; the URI with its query, as kubectl sends
//   fieldManager, fieldValidation, dryRun); LogRequestObject fills objectRef's name and namespace from the object;
// - requestObject: the decoded (defaulted) object of a create, logged by S/endpoints/handlers/create.go before the
//   field manager adds managedFields and before admission; the raw patch of a patch (LogRequestPatch); a DELETE's
//   DeleteOptions body (delete.go);
// - responseObject (level RequestResponse): the object as stored (LogResponseObject of the handler's result), i.e.
//   the object the next capture of the same object shows as oldObject, or a Status for a denied write or a delete;
// - responseStatus.code: 201 for a create, 200 for the rest, 403 for a write the capturing webhook denied, with its
//   message as the webhook plugin wraps it (S/admission/plugin/webhook/errors/statuserror.go).
// The request uid is the auditID (upstream's is a fresh UUID per admission call: nothing to compare).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectTracker } from '../../lib/replay/objects.js';
import { buildReplayCase } from '../../lib/replay/request.js';
import type { AuditEvent, ReplayCase } from '../../lib/replay/request.js';
import { auditEvent, captured } from './helpers.js';
import type { Json } from './helpers.js';

const ns = 'wh';
const cmRef = (name: string): Json => ({ resource: 'configmaps', namespace: ns, name, apiVersion: 'v1' });
const podRef = (name: string): Json => ({ resource: 'pods', namespace: ns, name, apiVersion: 'v1' });
/** A write's Status: a success, or the capturing webhook's denial as the apiserver wraps it (errors/statuserror.go). */
const status = (code: number): Json => (code < 400
  ? { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code }
  : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "capture.example.com" denied the request: labelled deny', reason: 'Forbidden', code });

function without(o: unknown, ...fields: string[]): Json {
  const copy = structuredClone(o) as Json & { metadata: Json };
  for (const f of fields) {
    if (f === 'creationTimestamp') copy.metadata.creationTimestamp = null; // a typed object's zero metav1.Time
    else delete copy.metadata[f];
  }
  return copy;
}

function withRV(o: unknown, rv: string): Json {
  const copy = structuredClone(o) as Json & { metadata: Json };
  copy.metadata.resourceVersion = rv;
  return copy;
}

const deleteOptions = (fields: Json): Json => ({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...fields });
const path = (ref: Json): string => `/api/v1/namespaces/${ref.namespace as string}/${ref.resource as string}`;

/** kubectl's writes as the log records them: URI (with the query kubectl sends), objectRef, code, objects. */
const create = (ref: Json, query: string, requestObject: unknown, responseObject: unknown, code = 201): Json =>
  auditEvent({ verb: 'create', requestURI: `${path(ref)}?${query}`, objectRef: ref, code, requestObject, responseObject });
const patch = (ref: Json, fieldManager: string, requestObject: unknown, responseObject: unknown, code = 200): Json =>
  auditEvent({ verb: 'patch', requestURI: `${path(ref)}/${ref.name as string}?fieldManager=${fieldManager}`, objectRef: ref, code, requestObject, responseObject });
const remove = (ref: Json, options: Json, responseObject: unknown, code = 200): Json =>
  auditEvent({ verb: 'delete', requestURI: `${path(ref)}/${ref.name as string}`, objectRef: ref, code, requestObject: deleteOptions(options), responseObject });

/** Asserts the rebuilt request equals the captured one, field by field; `skip` names fields the log cannot give. */
function assertRequest(actual: Json, expected: Json, auditID: string, skip: readonly string[] = []): void {
  assert.equal(actual.uid, auditID, 'uid: the auditID');
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (key === 'uid' || skip.includes(key)) continue;
    assert.deepEqual(actual[key], expected[key], `request.${key}`);
  }
}

/** The session's writes in log order, each with the captures it must rebuild. */
const session: Array<{ name: string; event: Json; mutate?: string; validate?: string; mutateSkip?: string[]; validateSkip?: string[] }> = [
  {
    name: 'CREATE ConfigMap cm1',
    event: create(cmRef('cm1'), 'fieldManager=kubectl-create&fieldValidation=Strict', without(captured('001-mutate-CREATE-ConfigMap-cm1').object, 'managedFields'), captured('003-validate-UPDATE-ConfigMap-cm1').oldObject),
    mutate: '001-mutate-CREATE-ConfigMap-cm1', validate: '002-validate-CREATE-ConfigMap-cm1',
  },
  {
    name: 'UPDATE ConfigMap cm1 by a merge patch',
    event: patch(cmRef('cm1'), 'kubectl-patch', { data: { a: '2' } }, captured('004-validate-UPDATE-ConfigMap-cm1').oldObject),
    validate: '003-validate-UPDATE-ConfigMap-cm1',
  },
  {
    // denied: no response object, so /validate is sent the patched object, patched again by the /mutate answer
    name: 'UPDATE ConfigMap cm1 denied',
    event: patch(cmRef('cm1'), 'kubectl-label', { metadata: { labels: { deny: 'true' } } }, status(403), 403),
    validate: '004-validate-UPDATE-ConfigMap-cm1', validateSkip: ['object'],
  },
  {
    // denied: managedFields are known only from a response object
    name: 'CREATE ConfigMap cm-deny denied',
    event: create(cmRef('cm-deny'), 'fieldManager=kubectl-create&fieldValidation=Strict', without(captured('005-mutate-CREATE-ConfigMap-cm-deny').object, 'managedFields'), status(403), 403),
  },
  {
    name: 'CREATE Pod p1',
    event: create(podRef('p1'), 'fieldManager=kubectl-run', without(captured('007-validate-CREATE-Pod-p1').object, 'uid', 'creationTimestamp', 'managedFields'), captured('014-validate-DELETE-Pod-p1').oldObject),
    validate: '007-validate-CREATE-Pod-p1',
  },
  {
    name: 'CREATE ConfigMap cm-prot',
    event: create(cmRef('cm-prot'), 'fieldManager=kubectl-create&fieldValidation=Strict', without(captured('009-mutate-CREATE-ConfigMap-cm-prot').object, 'managedFields'), captured('011-validate-UPDATE-ConfigMap-cm-prot').oldObject),
    mutate: '009-mutate-CREATE-ConfigMap-cm-prot', validate: '010-validate-CREATE-ConfigMap-cm-prot',
  },
  {
    name: 'UPDATE ConfigMap cm-prot (annotate)',
    event: patch(cmRef('cm-prot'), 'kubectl-annotate', { metadata: { annotations: { protect: 'true' } } }, captured('012-validate-DELETE-ConfigMap-cm-prot').oldObject),
    validate: '011-validate-UPDATE-ConfigMap-cm-prot',
  },
  {
    name: 'DELETE ConfigMap cm-prot denied',
    event: remove(cmRef('cm-prot'), { propagationPolicy: 'Background' }, status(403), 403),
    validate: '012-validate-DELETE-ConfigMap-cm-prot',
  },
  {
    name: 'DELETE ConfigMap cm1',
    event: remove(cmRef('cm1'), { propagationPolicy: 'Background' }, status(200)),
    validate: '013-validate-DELETE-ConfigMap-cm1',
  },
  {
    // the graceful delete answers the object with deletionTimestamp: the next DELETE's oldObject
    name: 'DELETE Pod p1 (--grace-period=0 --force), first call',
    event: remove(podRef('p1'), { gracePeriodSeconds: 0, propagationPolicy: 'Background' }, captured('015-validate-DELETE-Pod-p1').oldObject),
    validate: '014-validate-DELETE-Pod-p1',
  },
  {
    name: 'DELETE Pod p1, second call',
    event: remove(podRef('p1'), { gracePeriodSeconds: 0, propagationPolicy: 'Background' }, status(200)),
    validate: '015-validate-DELETE-Pod-p1',
  },
  {
    name: 'CREATE ConfigMap cm-dry (--dry-run=server)',
    event: create(cmRef('cm-dry'), 'dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict', without(captured('016-mutate-CREATE-ConfigMap-cm-dry').object, 'managedFields'), captured('017-validate-CREATE-ConfigMap-cm-dry').object),
    mutate: '016-mutate-CREATE-ConfigMap-cm-dry', validate: '017-validate-CREATE-ConfigMap-cm-dry',
  },
  {
    name: 'CREATE Pod p3',
    event: create(podRef('p3'), 'fieldManager=kubectl-run', without(captured('018-validate-CREATE-Pod-p3').object, 'uid', 'creationTimestamp', 'managedFields'), captured('019-validate-UPDATE-Pod-p3').oldObject),
    validate: '018-validate-CREATE-Pod-p3',
  },
  {
    name: 'UPDATE Pod p3 (label)',
    event: patch(podRef('p3'), 'kubectl-label', { metadata: { labels: { tier: 'web' } } }, captured('020-validate-DELETE-Pod-p3').oldObject),
    validate: '019-validate-UPDATE-Pod-p3',
  },
  {
    name: 'DELETE Pod p3 (Foreground)',
    event: remove(podRef('p3'), { gracePeriodSeconds: 0, propagationPolicy: 'Foreground' }, status(200)),
    validate: '020-validate-DELETE-Pod-p3',
  },
  {
    // server-side apply that creates: patch.go admits a CREATE with CreateOptions; an apply patch is not re-applied
    name: 'CREATE ConfigMap cm-apply by server-side apply',
    event: auditEvent({ verb: 'patch', requestURI: '/api/v1/namespaces/wh/configmaps/cm-apply?fieldManager=kubectl&fieldValidation=Strict&force=false', objectRef: cmRef('cm-apply'), code: 201,
      requestObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-apply', namespace: 'wh' }, data: { a: '1' } },
      responseObject: withRV(captured('022-validate-CREATE-ConfigMap-cm-apply').object, '230') }),
    mutate: '021-mutate-CREATE-ConfigMap-cm-apply', mutateSkip: ['object'], validate: '022-validate-CREATE-ConfigMap-cm-apply',
  },
];

test('the AdmissionRequests of a kubectl session, rebuilt from its audit log, equal what kube-apiserver sent', () => {
  const tracker = new ObjectTracker();
  let compared = 0;
  for (const step of session) {
    const built = buildReplayCase(step.event as AuditEvent, tracker);
    assert.ok('replay' in built, `${step.name}: replayed`);
    const replay: ReplayCase = built.replay;
    const auditID = step.event.auditID as string;
    if (step.mutate !== undefined) {
      assertRequest(replay.mutate as Json, captured(step.mutate), auditID, step.mutateSkip);
      compared++;
    }
    if (step.validate !== undefined) {
      assertRequest(replay.validate as Json, captured(step.validate), auditID, step.validateSkip);
      compared++;
    }
    if (step.mutateSkip?.includes('object')) assert.deepEqual(replay.missing.mutate.map((m) => m.variable), ['object'], `${step.name}: /mutate object missing`);
    if (step.event.verb === 'patch' && step.validate !== undefined && (step.event.responseStatus as Json).code !== 201) {
      // the patch re-applied to the tracked object is what /mutate was sent; nothing mutated updates in that session,
      // so it is what /validate was sent too (managedFields known only from a response object)
      const expected = structuredClone(captured(step.validate).object) as Json & { metadata: Json };
      const actual = structuredClone(replay.mutate.object) as Json & { metadata: Json };
      if (step.validateSkip?.includes('object')) {
        // no response: the field manager's entry for this write is not known (the old object's are kept)
        delete expected.metadata.managedFields;
        delete actual.metadata.managedFields;
        assert.equal(replay.validateAfterMutation, true);
      }
      assert.deepEqual(actual, expected, `${step.name}: the patched object`);
      compared++;
    }
    if (step.mutateSkip === undefined && step.validateSkip === undefined && step.mutate !== undefined) {
      assert.deepEqual(replay.missing, { mutate: [], validate: [] }, `${step.name}: nothing missing`);
    }
  }
  assert.equal(compared, 23);
});

test('a denied create: /mutate gets the request object; managedFields, set after the log recorded it, are not known', () => {
  const step = session.find((s) => s.name === 'CREATE ConfigMap cm-deny denied')!;
  const built = buildReplayCase(step.event as AuditEvent, new ObjectTracker());
  assert.ok('replay' in built);
  const expected = structuredClone(captured('005-mutate-CREATE-ConfigMap-cm-deny'));
  delete ((expected.object as Json).metadata as Json).managedFields;
  assertRequest(built.replay.mutate as Json, expected, step.event.auditID as string);
  assert.equal(built.replay.validateAfterMutation, true, '/validate is sent the /mutate object as patched');
});

test('an UPDATE whose stored object is not earlier in the log has an unknown oldObject', () => {
  const step = session.find((s) => s.name === 'UPDATE ConfigMap cm-prot (annotate)')!;
  const built = buildReplayCase(step.event as AuditEvent, new ObjectTracker());
  assert.ok('replay' in built);
  assert.equal(built.replay.validate.oldObject, null);
  assert.deepEqual(built.replay.missing.validate.map((m) => m.variable), ['oldObject']);
  assert.match(built.replay.missing.validate[0]!.reason, /the stored ConfigMap wh\/cm-prot is not in the log before this patch/);
});

test('impersonation: the request carries the impersonated user, as the apiserver admits it', () => {
  // S/endpoints/filters/impersonation.go: system:authenticated is added to the impersonated user before
  // LogImpersonatedUser records it, so the event already holds the user admission saw
  const jane = { username: 'jane', uid: 'jane-uid', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
  const event = auditEvent({ verb: 'create', requestURI: '/api/v1/namespaces/wh/configmaps', objectRef: cmRef('x'), code: 201, impersonatedUser: jane,
    requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'wh', creationTimestamp: null } } });
  const built = buildReplayCase(event as AuditEvent, new ObjectTracker());
  assert.ok('replay' in built);
  assert.deepEqual(built.replay.validate.userInfo, jane);
  assert.deepEqual(built.replay.mutate.userInfo, jane);
  assert.equal(built.replay.user, 'jane');
});

test('CONNECT: pods/exec rebuilt with its PodExecOptions from the URI, whatever the verb', () => {
  for (const verb of ['create', 'get']) {
    const event = auditEvent({ verb, level: 'Request', requestURI: '/api/v1/namespaces/wh/pods/p1/exec?command=ls&command=-l&container=p1&stdin=true&stdout=true&tty=true',
      objectRef: { resource: 'pods', namespace: 'wh', name: 'p1', apiVersion: 'v1', subresource: 'exec' }, code: 101 });
    const built = buildReplayCase(event as AuditEvent, new ObjectTracker());
    assert.ok('replay' in built, verb);
    const r = built.replay.validate;
    assert.deepEqual({ kind: r.kind, resource: r.resource, subResource: r.subResource, name: r.name, namespace: r.namespace, operation: r.operation, dryRun: r.dryRun, options: r.options, oldObject: r.oldObject }, {
      kind: { group: '', version: 'v1', kind: 'PodExecOptions' }, resource: { group: '', version: 'v1', resource: 'pods' }, subResource: 'exec',
      name: 'p1', namespace: 'wh', operation: 'CONNECT', dryRun: false, options: null, oldObject: null,
    });
    assert.deepEqual(r.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdin: true, stdout: true, tty: true, container: 'p1', command: ['ls', '-l'] });
  }
});

test('a JSON patch is applied to the tracked object for /mutate; a write the log skipped makes the old object unknown', () => {
  const tracker = new ObjectTracker();
  const stored = (rv: string, data: Json): Json => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'j', namespace: 'wh', uid: 'u1', resourceVersion: rv, creationTimestamp: '2026-11-21T18:20:17Z' }, data });
  buildReplayCase(auditEvent({ verb: 'create', requestURI: '/api/v1/namespaces/wh/configmaps', objectRef: cmRef('j'), code: 201,
    requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'j', namespace: 'wh' }, data: { a: '1' } }, responseObject: stored('10', { a: '1' }) }) as AuditEvent, tracker);
  const patched = buildReplayCase(auditEvent({ verb: 'patch', level: 'Request', requestURI: '/api/v1/namespaces/wh/configmaps/j', objectRef: cmRef('j'),
    requestObject: [{ op: 'replace', path: '/data/a', value: '2' }] }) as AuditEvent, tracker);
  assert.ok('replay' in patched);
  assert.deepEqual((patched.replay.mutate.object as Json).data, { a: '2' });
  assert.equal(patched.replay.validateAfterMutation, true);
  assert.deepEqual(patched.replay.missing, { mutate: [], validate: [] });
  // level Request: the result is not logged, so the tracked copy is forgotten rather than left stale
  const after = buildReplayCase(auditEvent({ verb: 'update', requestURI: '/api/v1/namespaces/wh/configmaps/j', objectRef: cmRef('j'),
    requestObject: stored('11', { a: '3' }), responseObject: stored('12', { a: '3' }) }) as AuditEvent, tracker);
  assert.ok('replay' in after);
  assert.deepEqual(after.replay.missing.validate.map((m) => m.variable), ['oldObject']);
  // an update naming a resourceVersion the tracked copy does not have: a write between them is missing
  const skipped = buildReplayCase(auditEvent({ verb: 'update', requestURI: '/api/v1/namespaces/wh/configmaps/j', objectRef: cmRef('j'),
    requestObject: stored('14', { a: '4' }), responseObject: stored('15', { a: '4' }) }) as AuditEvent, tracker);
  assert.ok('replay' in skipped);
  assert.match(skipped.replay.missing.validate[0]!.reason, /resourceVersion 12, the update replaced 14/);
});
