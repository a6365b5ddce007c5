// Writes audit.log: the audit Events a kube-apiserver 1.36 with the `in-force` set behind the registration in
// registration.yaml would have written for the kubectl session in README.md, one line per event, in the format of its
// log backend (--audit-log-format=json). Run from this directory: `node generate.mjs > audit.log`.
//
// The format (k8s.io/apiserver@v0.36.3):
// - plugin/pkg/audit/log/backend.go logEvent: runtime.Encode with audit.Codecs.LegacyCodec(audit.k8s.io/v1), i.e.
//   apimachinery's json serializer (pkg/runtime/serializer/json/json.go doEncode): encoding/json's Encoder, compact,
//   one line ending in "\n", with <, > and & escaped as \u003c, \u003e, \u0026 (Go's default HTML escaping);
// - fields in the order of pkg/apis/audit/v1/types.go Event (kind, apiVersion, level, auditID, stage, requestURI,
//   verb, user, sourceIPs, userAgent, objectRef, responseStatus, requestObject, responseObject,
//   requestReceivedTimestamp, stageTimestamp, annotations), maps with sorted keys, MicroTime with 6 decimals;
// - responseStatus: pkg/audit/context.go LogResponseObject copies status, message, reason, details and code of a
//   Status response (its metadata is the empty ListMeta, written `{}`); a successful write has only the code, set by
//   pkg/endpoints/filters/audit.go from the response's header;
// - requestObject: a create's or update's decoded object, logged by pkg/endpoints/handlers/create.go (update.go)
//   before the system fields are wiped and before admission; a patch's raw bytes (pkg/audit/context.go
//   LogRequestPatch); objectRef's name and namespace filled from the object (pkg/audit/request.go LogRequestObject),
//   so a generateName create has no name there;
// - a write that the daemon denied: the daemon's Status wrapped by the webhook plugin
//   (pkg/admission/plugin/webhook/errors/statuserror.go ToStatusErr: `admission webhook "<name>" denied the request:
//   <message>`, code and reason and details kept), its message as the in-tree ValidatingAdmissionPolicy plugin words
//   it (pkg/admission/plugin/policy/validating/dispatcher.go: admission.NewForbidden, then the policy's reason and its
//   code from policy_decision.go reasonToCode: Invalid 422 when none, Forbidden 403, RequestEntityTooLarge 413);
// - a generateName create denied by validating admission names the generated name (pkg/registry/generic/registry/
//   store.go create: the name is generated before createValidation, after mutating admission;
//   pkg/registry/rest/create.go AdmissionToValidateObjectFunc passes it; names.SimpleNameGenerator: the prefix and
//   5 random characters);
// - failures outside admission: 409 from storage (store.go create: storeerr.InterpretCreateError, AlreadyExists),
//   422 from field validation (pkg/registry/rest/create.go BeforeCreate: strategy.Validate, before validating
//   admission), 403 from authorization (pkg/endpoints/filters/authorization.go: responsewriters.Forbidden, before
//   the handler reads the body, so no requestObject).

const escapeHTML = (s) => s.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const line = (event) => escapeHTML(JSON.stringify(event));

const admin = { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] };
const allowAnnotations = {
  'authorization.k8s.io/decision': 'allow',
  'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"',
};
const webhook = 'validate.static-admissiond.localhost';

let n = 0;
let second = 0;
const time = (s, micros) => `2026-11-27T09:${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.${String(micros).padStart(6, '0')}Z`;

function event({ level = 'RequestResponse', stage = 'ResponseComplete', uri, verb, user = admin, agent = 'kubectl/v1.36.0 (linux/amd64) kubernetes/9b4c1e2', ref, status, requestObject, responseObject, annotations = allowAnnotations }) {
  n++;
  second += 7;
  const e = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: `6c1d2e3f-0a4b-4c5d-8e9f-${String(n).padStart(12, '0')}`,
    stage,
    requestURI: uri,
    verb,
    user,
    sourceIPs: ['10.0.0.5'],
    userAgent: agent,
    objectRef: ref,
  };
  if (status !== undefined) e.responseStatus = status;
  if (requestObject !== undefined) e.requestObject = requestObject;
  if (responseObject !== undefined) e.responseObject = responseObject;
  e.requestReceivedTimestamp = time(second, 120000 + n);
  e.stageTimestamp = time(second, 180000 + n);
  e.annotations = annotations;
  return e;
}

const ok = (code) => ({ metadata: {}, code });
/** the responseStatus of a failed write, and the Status the response carried (responseObject at RequestResponse) */
function failure(message, reason, details, code) {
  const responseStatus = { metadata: {}, status: 'Failure', message, reason, details, code };
  const { metadata, ...rest } = responseStatus;
  return { responseStatus, responseObject: { kind: 'Status', apiVersion: 'v1', metadata, ...rest } };
}
/** the daemon's denial as the apiserver logs it */
function denial(resource, name, policy, binding, message, reason, code) {
  const cause = `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${message}`;
  return failure(`admission webhook "${webhook}" denied the request: ${resource} "${name}" is forbidden: ${cause}`, reason, { name, kind: resource, causes: [{ message: cause }] }, code);
}

const cmRef = (namespace, name) => ({ resource: 'configmaps', namespace, ...(name ? { name } : {}), apiVersion: 'v1' });
const podRef = (namespace, name) => ({ resource: 'pods', namespace, ...(name ? { name } : {}), apiVersion: 'v1' });
const cmURI = (namespace, name, query) => `/api/v1/namespaces/${namespace}/configmaps${name ? '/' + name : ''}${query ? '?' + query : ''}`;
const podURI = (namespace, name, query) => `/api/v1/namespaces/${namespace}/pods${name ? '/' + name : ''}${query ? '?' + query : ''}`;

const fields = (manager, operation, fieldsV1, t) => ({ manager, operation, apiVersion: 'v1', time: t, fieldsType: 'FieldsV1', fieldsV1 });
const cmFields = (data, labels) => ({ 'f:data': Object.fromEntries([['.', {}], ...Object.keys(data).map((k) => [`f:${k}`, {}])]), ...(labels ? { 'f:metadata': { 'f:labels': Object.fromEntries([['.', {}], ...Object.keys(labels).map((k) => [`f:${k}`, {}])]) } } : {}) });

/** a ConfigMap as kubectl sends it (decoded: typed, creationTimestamp null) */
const cmSent = (name, labels, data, extra = {}) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, ...extra, creationTimestamp: null, ...(labels ? { labels } : {}) }, data });
/** a ConfigMap as stored */
const cmStored = (namespace, name, uid, rv, labels, data, managedFields) => ({
  kind: 'ConfigMap', apiVersion: 'v1',
  metadata: { name, namespace, uid, resourceVersion: String(rv), creationTimestamp: '2026-11-27T09:00:07Z', ...(labels ? { labels } : {}), managedFields },
  data,
});

const container = (image, privileged) => ({
  name: 'app', image, resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
  imagePullPolicy: image.endsWith(':latest') ? 'Always' : 'IfNotPresent',
  ...(privileged ? { securityContext: { privileged: true } } : {}),
});
const podSpec = (image, privileged) => ({
  containers: [container(image, privileged)], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst',
  securityContext: {}, schedulerName: 'default-scheduler',
  tolerations: [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ],
  priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
});
const podSent = ({ labels, ...names }, image, privileged) => ({ kind: 'Pod', apiVersion: 'v1', metadata: { ...names, creationTimestamp: null, ...(labels ? { labels } : {}) }, spec: podSpec(image, privileged), status: {} });
const podStored = (namespace, name, generateName, uid, rv, labels, image, t) => ({
  kind: 'Pod', apiVersion: 'v1',
  metadata: {
    name, ...(generateName ? { generateName } : {}), namespace, uid, resourceVersion: String(rv), creationTimestamp: '2026-11-27T09:00:49Z', ...(labels ? { labels } : {}),
    managedFields: [fields('kubectl-create', 'Update', { 'f:metadata': generateName ? { 'f:generateName': {} } : {}, 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } }, 'f:dnsPolicy': {}, 'f:enableServiceLinks': {}, 'f:restartPolicy': {}, 'f:schedulerName': {}, 'f:securityContext': {}, 'f:terminationGracePeriodSeconds': {} } }, t)],
  },
  spec: podSpec(image, false),
  status: { phase: 'Pending', qosClass: 'BestEffort' },
});

const events = [];
const create = 'fieldManager=kubectl-create&fieldValidation=Strict';

// 1. create team-a/cm-ok: admitted
const cmOkFields = [fields('kubectl-create', 'Update', cmFields({ a: 1 }, { owner: 1 }), '2026-11-27T09:00:07Z')];
events.push(event({ uri: cmURI('team-a', '', create), verb: 'create', ref: cmRef('team-a', 'cm-ok'), status: ok(201),
  requestObject: cmSent('cm-ok', { owner: 'web' }, { a: '1' }), responseObject: cmStored('team-a', 'cm-ok', 'a1f0c3de-1111-4c8e-9a61-000000000001', 1001, { owner: 'web' }, { a: '1' }, cmOkFields) }));
// 2. create team-a/cm-noowner: denied 422 (require-owner, no reason)
{
  const d = denial('configmaps', 'cm-noowner', 'require-owner.static.k8s.io', 'require-owner-binding.static.k8s.io', 'configmaps need an owner label', 'Invalid', 422);
  events.push(event({ uri: cmURI('team-a', '', create), verb: 'create', ref: cmRef('team-a', 'cm-noowner'), status: d.responseStatus, requestObject: cmSent('cm-noowner', undefined, { a: '1' }), responseObject: d.responseObject }));
}
// 3. create team-a/cm-big: denied 413 (max-data, reason RequestEntityTooLarge)
{
  const d = denial('configmaps', 'cm-big', 'max-data.static.k8s.io', 'max-data-binding.static.k8s.io', 'at most 3 data keys', 'RequestEntityTooLarge', 413);
  events.push(event({ uri: cmURI('team-a', '', create), verb: 'create', ref: cmRef('team-a', 'cm-big'), status: d.responseStatus, requestObject: cmSent('cm-big', { owner: 'web' }, { a: '1', b: '2', c: '3', d: '4' }), responseObject: d.responseObject }));
}
// 4. create team-a/priv: denied 403 (no-privileged, reason Forbidden)
{
  const d = denial('pods', 'priv', 'no-privileged.static.k8s.io', 'no-privileged-binding.static.k8s.io', 'privileged containers are not allowed', 'Forbidden', 403);
  events.push(event({ uri: podURI('team-a', '', create), verb: 'create', ref: podRef('team-a', 'priv'), status: d.responseStatus, requestObject: podSent({ name: 'priv' }, 'registry.example/tools:1.4', true), responseObject: d.responseObject }));
}
// 5. create team-a pod by generateName privgen-: denied 403, under the generated name
{
  const d = denial('pods', 'privgen-8m4gn', 'no-privileged.static.k8s.io', 'no-privileged-binding.static.k8s.io', 'privileged containers are not allowed', 'Forbidden', 403);
  events.push(event({ uri: podURI('team-a', '', create), verb: 'create', ref: podRef('team-a', ''), status: d.responseStatus, requestObject: podSent({ generateName: 'privgen-' }, 'registry.example/tools:1.4', true), responseObject: d.responseObject }));
}
// 6. create team-a pod by generateName web-: admitted as web-x7k2p
events.push(event({ uri: podURI('team-a', '', create), verb: 'create', ref: podRef('team-a', ''), status: ok(201),
  requestObject: podSent({ generateName: 'web-', labels: { app: 'web' } }, 'nginx:latest', false),
  responseObject: podStored('team-a', 'web-x7k2p', 'web-', 'b2e1d4ef-2222-4d9f-8b72-000000000006', 1006, { app: 'web' }, 'nginx:latest', '2026-11-27T09:00:49Z') }));
// 7. create team-a/cm-ok again: 409 from storage, after admission allowed it
{
  const f = failure('configmaps "cm-ok" already exists', 'AlreadyExists', { name: 'cm-ok', kind: 'configmaps' }, 409);
  events.push(event({ uri: cmURI('team-a', '', create), verb: 'create', ref: cmRef('team-a', 'cm-ok'), status: f.responseStatus, requestObject: cmSent('cm-ok', { owner: 'web' }, { a: '1' }), responseObject: f.responseObject }));
}
// 8. create team-a/bad: 422 from field validation, before validating admission
{
  const f = failure('Pod "bad" is invalid: spec.containers[0].image: Required value', 'Invalid', { name: 'bad', kind: 'Pod', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].image' }] }, 422);
  const sent = podSent({ name: 'bad' }, '', false);
  delete sent.spec.containers[0].image;
  sent.spec.containers[0].imagePullPolicy = 'IfNotPresent';
  events.push(event({ uri: podURI('team-a', '', create), verb: 'create', ref: podRef('team-a', 'bad'), status: f.responseStatus, requestObject: sent, responseObject: f.responseObject }));
}
// 9. create kube-system/cm-sys without an owner: admitted, the registration does not send kube-system
events.push(event({ uri: cmURI('kube-system', '', create), verb: 'create', ref: cmRef('kube-system', 'cm-sys'), status: ok(201),
  requestObject: cmSent('cm-sys', undefined, { a: '1' }),
  responseObject: cmStored('kube-system', 'cm-sys', 'c3f2e5a0-3333-4eaf-9c83-000000000009', 1009, undefined, { a: '1' }, [fields('kubectl-create', 'Update', cmFields({ a: 1 }), '2026-11-27T09:01:03Z')]) }));
// 10. update kube-node-lease/node-1 by the kubelet: never sent (no rule for leases, and kube-node-lease left out)
{
  const lease = (rv, renew) => ({ kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', metadata: { name: 'node-1', namespace: 'kube-node-lease', uid: 'd4a3f6b1-4444-4fb0-8d94-000000000010', resourceVersion: String(rv), creationTimestamp: '2026-11-20T08:00:00Z' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: renew } });
  events.push(event({ uri: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1?timeout=10s', verb: 'update',
    user: { username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] }, agent: 'kubelet/v1.36.3 (linux/amd64) kubernetes/5c1d0a7',
    ref: { resource: 'leases', namespace: 'kube-node-lease', name: 'node-1', apiGroup: 'coordination.k8s.io', apiVersion: 'v1' }, status: ok(200),
    requestObject: lease(1002, '2026-11-27T09:01:10.000000Z'), responseObject: lease(1010, '2026-11-27T09:01:10.000000Z'),
    annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' } }));
}
// 11. dry-run create team-b/cm-dry without an owner: denied 422
{
  const d = denial('configmaps', 'cm-dry', 'require-owner.static.k8s.io', 'require-owner-binding.static.k8s.io', 'configmaps need an owner label', 'Invalid', 422);
  events.push(event({ uri: cmURI('team-b', '', `dryRun=All&${create}`), verb: 'create', ref: cmRef('team-b', 'cm-dry'), status: d.responseStatus, requestObject: cmSent('cm-dry', undefined, { a: '1' }), responseObject: d.responseObject }));
}
// 12. dry-run create team-b/cm-dry-ok: admitted, not stored
events.push(event({ uri: cmURI('team-b', '', `dryRun=All&${create}`), verb: 'create', ref: cmRef('team-b', 'cm-dry-ok'), status: ok(201),
  requestObject: cmSent('cm-dry-ok', { owner: 'ops' }, { a: '1' }),
  responseObject: cmStored('team-b', 'cm-dry-ok', 'e5b4a7c2-5555-40c1-8ea5-000000000012', 0, { owner: 'ops' }, { a: '1' }, [fields('kubectl-create', 'Update', cmFields({ a: 1 }, { owner: 1 }), '2026-11-27T09:01:24Z')]) }));
// a dry run is never stored: no resourceVersion (pkg/registry/generic/registry/dryrun.go)
delete events[events.length - 1].responseObject.metadata.resourceVersion;
// 13. merge patch of team-a/cm-ok (kubectl patch --type merge): admitted
const cmOkPatched = cmStored('team-a', 'cm-ok', 'a1f0c3de-1111-4c8e-9a61-000000000001', 1013, { owner: 'web' }, { a: '1', b: '2' }, [...cmOkFields, fields('kubectl-patch', 'Update', { 'f:data': { 'f:b': {} } }, '2026-11-27T09:01:31Z')]);
events.push(event({ uri: cmURI('team-a', 'cm-ok', 'fieldManager=kubectl-patch'), verb: 'patch', ref: cmRef('team-a', 'cm-ok'), status: ok(200), requestObject: { data: { b: '2' } }, responseObject: cmOkPatched }));
// 14. JSON patch of team-a/cm-ok removing the owner label (kubectl patch --type json): denied 422
{
  const d = denial('configmaps', 'cm-ok', 'require-owner.static.k8s.io', 'require-owner-binding.static.k8s.io', 'configmaps need an owner label', 'Invalid', 422);
  events.push(event({ uri: cmURI('team-a', 'cm-ok', 'fieldManager=kubectl-patch'), verb: 'patch', ref: cmRef('team-a', 'cm-ok'), status: d.responseStatus, requestObject: [{ op: 'remove', path: '/metadata/labels/owner' }], responseObject: d.responseObject }));
}
// 15. strategic merge patch of team-a/web-x7k2p (kubectl patch, its default type): admitted
{
  const stored = podStored('team-a', 'web-x7k2p', 'web-', 'b2e1d4ef-2222-4d9f-8b72-000000000006', 1015, { app: 'web', tier: 'web' }, 'nginx:latest', '2026-11-27T09:00:49Z');
  stored.metadata.managedFields.push(fields('kubectl-patch', 'Update', { 'f:metadata': { 'f:labels': { 'f:tier': {} } } }, '2026-11-27T09:01:45Z'));
  events.push(event({ uri: podURI('team-a', 'web-x7k2p', 'fieldManager=kubectl-patch'), verb: 'patch', ref: podRef('team-a', 'web-x7k2p'), status: ok(200), requestObject: { metadata: { labels: { tier: 'web' } } }, responseObject: stored }));
}
// 16. server-side apply creating team-b/cm-applied (kubectl apply --server-side): admitted, 201
const applied = (data) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { owner: 'ops' }, name: 'cm-applied', namespace: 'team-b' }, data });
const appliedFields = (data, t) => [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: t, fieldsType: 'FieldsV1', fieldsV1: cmFields(data, { owner: 1 }) }];
events.push(event({ uri: cmURI('team-b', 'cm-applied', 'fieldManager=kubectl&fieldValidation=Strict&force=false'), verb: 'patch', ref: cmRef('team-b', 'cm-applied'), status: ok(201),
  requestObject: applied({ k: 'v' }), responseObject: cmStored('team-b', 'cm-applied', 'f6c5b8d3-6666-41d2-8fb6-000000000016', 1016, { owner: 'ops' }, { k: 'v' }, appliedFields({ k: 'v' }, '2026-11-27T09:01:52Z')) }));
// 17. server-side apply updating team-b/cm-applied: admitted
events.push(event({ uri: cmURI('team-b', 'cm-applied', 'fieldManager=kubectl&fieldValidation=Strict&force=false'), verb: 'patch', ref: cmRef('team-b', 'cm-applied'), status: ok(200),
  requestObject: applied({ k: 'w' }), responseObject: cmStored('team-b', 'cm-applied', 'f6c5b8d3-6666-41d2-8fb6-000000000016', 1017, { owner: 'ops' }, { k: 'w' }, appliedFields({ k: 'w' }, '2026-11-27T09:01:59Z')) }));
// 18. update (PUT) of team-a/cm-ok (kubectl replace): admitted
{
  const sent = structuredClone(cmOkPatched);
  sent.data.c = '3';
  delete sent.metadata.managedFields;
  const stored = cmStored('team-a', 'cm-ok', 'a1f0c3de-1111-4c8e-9a61-000000000001', 1018, { owner: 'web' }, { a: '1', b: '2', c: '3' }, [...cmOkPatched.metadata.managedFields, fields('kubectl-replace', 'Update', { 'f:data': { 'f:c': {} } }, '2026-11-27T09:02:06Z')]);
  events.push(event({ uri: cmURI('team-a', 'cm-ok', 'fieldManager=kubectl-replace&fieldValidation=Strict'), verb: 'update', ref: { ...cmRef('team-a', 'cm-ok'), uid: 'a1f0c3de-1111-4c8e-9a61-000000000001', resourceVersion: '1013' }, status: ok(200), requestObject: sent, responseObject: stored }));
}
// 19. create by bob, whom RBAC forbids: 403 from authorization, before the body is read
{
  const f = failure('configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "team-a"', 'Forbidden', { kind: 'configmaps' }, 403);
  events.push(event({ uri: cmURI('team-a', '', create), verb: 'create', user: { username: 'bob', groups: ['system:authenticated'] }, ref: cmRef('team-a', ''), status: f.responseStatus, responseObject: f.responseObject,
    annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' } }));
}
// 20. delete of team-a/cm-ok: admitted, never sent (the registration sends CREATE and UPDATE only)
events.push(event({ uri: cmURI('team-a', 'cm-ok'), verb: 'delete', ref: cmRef('team-a', 'cm-ok'), status: ok(200),
  requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' },
  responseObject: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'cm-ok', kind: 'configmaps', uid: 'a1f0c3de-1111-4c8e-9a61-000000000001' } } }));
// 21. a read (the audit policy of the session logged reads at Metadata)
events.push(event({ level: 'Metadata', uri: '/api/v1/namespaces/team-a/configmaps?limit=500', verb: 'list', ref: { resource: 'configmaps', namespace: 'team-a', apiVersion: 'v1' }, status: ok(200) }));
// 22. create kube-system/sys-priv, privileged: admitted, the registration does not send kube-system
events.push(event({ uri: podURI('kube-system', '', create), verb: 'create', ref: podRef('kube-system', 'sys-priv'), status: ok(201),
  requestObject: podSent({ name: 'sys-priv' }, 'registry.example/node-agent:latest', true),
  responseObject: (() => {
    const p = podStored('kube-system', 'sys-priv', undefined, 'a7d6c9e4-7777-42e3-90c7-000000000022', 1022, undefined, 'registry.example/node-agent:latest', '2026-11-27T09:02:34Z');
    p.spec.containers[0].securityContext = { privileged: true };
    return p;
  })() }));

// 23. create kube-system/sys-agent, on an unpinned image: admitted, the registration does not send kube-system
events.push(event({ uri: podURI('kube-system', '', create), verb: 'create', ref: podRef('kube-system', 'sys-agent'), status: ok(201),
  requestObject: podSent({ name: 'sys-agent' }, 'registry.example/log-agent:latest', false),
  responseObject: podStored('kube-system', 'sys-agent', undefined, 'b8e7d0f5-8888-43f4-91d8-000000000023', 1023, undefined, 'registry.example/log-agent:latest', '2026-11-27T09:02:41Z') }));

for (const e of events) process.stdout.write(line(e) + '\n');
