// `authorizer` checks answered by a real local HTTPS server that answers SubjectAccessReviews. Upstream:
//   k8s.io/apiserver pkg/cel/library/authz.go            the values, builders, `check`, Decision accessors, errors
//   pkg/cel/library/cost.go                              `check` costs 350,000 (estimated and actual)
//   pkg/admission/plugin/cel/activation.go               authorizer / authorizer.requestResource from the attributes
//   pkg/admission/plugin/authorizer/caching_authorizer.go  one decision per distinct check per dispatch
//   pkg/admission/plugin/policy/validating/validator.go  messageExpression and auditAnnotations see no authorizer
//   plugin/pkg/authorizer/webhook/webhook.go             attributes → SubjectAccessReviewSpec, status → decision
//   google/cel-go interpreter/attributes.go              `no such attribute(s): authorizer` when it is unbound
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionRequest } from '../../lib/api/admission.js';
import { NO_AUTHORIZATION_KUBECONFIG } from '../../lib/admission/authorization.js';
import { validateRequest } from '../../lib/admission/validate.js';
import type { SubjectAccessReviewClient } from '../../lib/webhook/subject-access-review.js';
import { capture, loadPolicies } from './helpers.js';
import { useSARServer } from './authorization-helpers.js';


/** A real CREATE of configmap wh/cm1 by admin (uid admin-uid, groups system:masters, system:authenticated). */
const cm = (): AdmissionRequest => capture('002-validate-CREATE-ConfigMap-cm1');

function policy(name: string, body: string, failurePolicy: 'Fail' | 'Ignore' = 'Fail'): string {
  return `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}.static.k8s.io}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"]}
${body}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}-binding.static.k8s.io}
spec: {policyName: ${name}.static.k8s.io, validationActions: [Deny]}
`;
}


const server = useSARServer();

async function validate(yaml: string, request = cm(), authorization: SubjectAccessReviewClient | 'none' = server.client) {
  server.sar.received.length = 0;
  const { response } = await validateRequest({ request, policies: loadPolicies(yaml) }, { client: authorization === 'none' ? undefined : authorization, deadline: Date.now() + 10_000 });
  return response;
}

const denied = (p: string, message: string): string =>
  `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy '${p}.static.k8s.io' with binding '${p}-binding.static.k8s.io' denied request: ${message}`;

describe('a resource check', () => {
  test('is a SubjectAccessReview as the webhook authorizer sends it: the request user, version *, every attribute', async () => {
    const request = { ...cm(), userInfo: { username: 'alice', uid: 'alice-uid', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['a', 'b'] } } };
    const response = await validate(policy('p', `  validations:
  - expression: "authorizer.group('apps').resource('deployments').subresource('scale').namespace('wh').name('web').check('create').allowed()"
`), request);
    assert.equal(response.allowed, true);
    assert.equal(server.sar.received.length, 1);
    const [r] = server.sar.received;
    assert.equal(r!.path, '/apis/authorization.k8s.io/v1/subjectaccessreviews?timeout=10s');
    assert.equal(r!.headers.authorization, 'Bearer sar-token');
    assert.deepEqual(r!.review, {
      kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: {},
      spec: {
        user: 'alice', uid: 'alice-uid', groups: ['dev', 'system:authenticated'], extra: { 'example.com/team': ['a', 'b'] },
        resourceAttributes: { namespace: 'wh', verb: 'create', group: 'apps', version: '*', resource: 'deployments', subresource: 'scale', name: 'web' },
      },
    });
  });

  test('denied: allowed() is false and reason() is the review\'s; a messageExpression may not read authorizer, a message may say why', async () => {
    const response = await validate(policy('p', `  validations:
  - expression: "authorizer.group('').resource('secrets').check('delete').allowed()"
    message: may not delete secrets
`));
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, denied('p', 'may not delete secrets'));
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes), [{ verb: 'delete', version: '*', resource: 'secrets' }]);
    const reason = await validate(policy('q', `  validations:
  - expression: "authorizer.group('').resource('secrets').check('delete').reason() == 'RBAC: allowed'"
`));
    assert.equal(reason.status?.message, denied('q', "failed expression: authorizer.group('').resource('secrets').check('delete').reason() == 'RBAC: allowed'"));
  });

  test('authorizer.requestResource is the request\'s group, resource, subresource, namespace and name', async () => {
    const request = { ...cm(), subResource: 'status', requestSubResource: 'status' };
    const response = await validate(policy('p', `  validations:
  - expression: "authorizer.requestResource.check('get').allowed() && !authorizer.requestResource.check('update').allowed()"
`), request);
    assert.equal(response.allowed, true);
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes), [
      { namespace: 'wh', verb: 'get', version: '*', resource: 'configmaps', subresource: 'status', name: 'cm1' },
      { namespace: 'wh', verb: 'update', version: '*', resource: 'configmaps', subresource: 'status', name: 'cm1' },
    ]);
  });

  test('field and label selectors travel as requirements (webhook.go fieldSelectorToAuthorizationAPI / labelSelectorToAuthorizationAPI)', async () => {
    await validate(policy('p', `  validations:
  - expression: "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1,metadata.name!=x').labelSelector('app in (web, api),!canary,tier').check('get').allowed()"
`));
    assert.deepEqual(server.sar.received[0]!.review.spec.resourceAttributes, {
      verb: 'get', version: '*', resource: 'pods',
      fieldSelector: { requirements: [{ key: 'metadata.name', operator: 'NotIn', values: ['x'] }, { key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
      labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['api', 'web'] }, { key: 'canary', operator: 'DoesNotExist' }, { key: 'tier', operator: 'Exists' }] },
    });
  });
});

describe('other checks', () => {
  test('path() is a non-resource check; serviceAccount() checks as the service account', async () => {
    const response = await validate(policy('p', `  validations:
  - expression: "authorizer.path('/metrics').check('get').allowed()"
  - expression: "authorizer.serviceAccount('kube-system', 'replicaset-controller').group('').resource('pods').check('create').allowed()"
`));
    assert.equal(response.allowed, true);
    assert.deepEqual(server.sar.received.map((r) => r.review.spec), [
      { user: 'admin', uid: 'admin-uid', groups: ['system:masters', 'system:authenticated'], nonResourceAttributes: { path: '/metrics', verb: 'get' } },
      { user: 'system:serviceaccount:kube-system:replicaset-controller', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'], resourceAttributes: { verb: 'create', version: '*', resource: 'pods' } },
    ]);
  });

  test('builder errors are upstream\'s evaluation errors', async () => {
    const cases: Array<[string, string]> = [
      ["authorizer.path(' ').check('get').allowed()", 'path must not be empty'],
      ["authorizer.group('').resource('').check('get').allowed()", 'resource must not be empty'],
      ["authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get').allowed()", 'Invalid service account name'],
      ["authorizer.serviceAccount('Bad.NS', 'sa').path('/x').check('get').allowed()", 'Invalid service account namespace'],
    ];
    for (const [expression, error] of cases) {
      const response = await validate(policy('p', `  validations:\n  - expression: ${JSON.stringify(expression)}\n`));
      assert.equal(response.status?.message, denied('p', `expression '${expression}' resulted in error: ${error}`));
    }
    assert.equal(server.sar.received.length, 0);
  });
});

describe('caching (CachingAuthorizer: one review per distinct check per request)', () => {
  test('the same check in variables, matchConditions, validations and two policies is reviewed once', async () => {
    const check = "authorizer.group('').resource('configmaps').namespace('wh').check('create').allowed()";
    const response = await validate(policy('a', `  variables:
  - {name: ok, expression: ${JSON.stringify(check)}}
  matchConditions:
  - {name: m, expression: ${JSON.stringify(check)}}
  validations:
  - expression: "variables.ok"
  - expression: ${JSON.stringify(check)}
`) + policy('b', `  validations:
  - expression: ${JSON.stringify(`${check} && authorizer.group('').resource('configmaps').namespace('wh').check('get').allowed()`)}
`));
    assert.equal(response.allowed, true);
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes?.verb), ['create', 'get']);
  });

  test('each request gets its own reviews', async () => {
    const yaml = policy('p', `  validations:\n  - expression: "authorizer.requestResource.check('create').allowed()"\n`);
    await validate(yaml);
    await validate(yaml);
    server.sar.received.length = 0;
    const hooks = loadPolicies(yaml);
    for (let i = 0; i < 2; i++) await validateRequest({ request: cm(), policies: hooks }, { client: server.client, deadline: Date.now() + 10_000 });
    assert.equal(server.sar.received.length, 2);
  });
});

describe('where authorizer is bound', () => {
  test('auditAnnotations see no authorizer: `no such attribute(s): authorizer`, under the failure policy', async () => {
    const response = await validate(policy('p', `  validations:
  - expression: "true"
  auditAnnotations:
  - key: who
    valueExpression: "authorizer.requestResource.check('create').reason()"
`));
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, denied('p', "expression 'authorizer.requestResource.check('create').reason()' resulted in error: no such attribute(s): authorizer.requestResource"));
    assert.equal(server.sar.received.length, 0);
  });

  test('a variable using authorizer works for validations; read by a messageExpression it fails and the message falls back', async () => {
    const response = await validate(policy('p', `  variables:
  - {name: canDelete, expression: "authorizer.requestResource.check('delete').allowed()"}
  validations:
  - expression: "variables.canDelete"
    messageExpression: "'delete allowed: ' + string(variables.canDelete)"
    message: the user may not delete it
`));
    assert.equal(response.status?.message, denied('p', 'the user may not delete it'));
    assert.equal(server.sar.received.length, 1);
  });
});

describe('failures', () => {
  test('without --authorization-kubeconfig a check is an evaluation error: Fail denies, Ignore admits', async () => {
    const body = `  validations:\n  - expression: "authorizer.requestResource.check('create').allowed()"\n`;
    const failing = await validate(policy('p', body), cm(), 'none');
    assert.equal(failing.status?.message, denied('p', `expression 'authorizer.requestResource.check('create').allowed()' resulted in error: ${NO_AUTHORIZATION_KUBECONFIG}`));
    const ignoring = await validate(policy('p', body, 'Ignore'), cm(), 'none');
    assert.equal(ignoring.allowed, true);
    assert.equal(server.sar.received.length, 0);
  });

  test('a review that fails is a decision that errored(), with the client\'s error()', async () => {
    const forbidden = 'subjectaccessreviews.authorization.k8s.io is forbidden: User "static-admissiond" cannot create resource "subjectaccessreviews"';
    server.sar.decide = () => ({ httpStatus: 403, message: forbidden });
    try {
      const response = await validate(policy('p', `  validations:
  - expression: "!authorizer.requestResource.check('create').errored()"
    message: errored
`));
      assert.equal(response.status?.message, denied('p', 'errored'));
      assert.equal(server.sar.received.length, 1);
      const errorText = await validate(policy('p', `  validations:
  - expression: ${JSON.stringify(`authorizer.requestResource.check('create').error() == '${forbidden.replaceAll('"', '\"')}' && !authorizer.requestResource.check('create').allowed()`)}
`));
      assert.equal(errorText.allowed, true, JSON.stringify(errorText.status));
    } finally {
      server.sar.decide = (await import('./authorization-helpers.js')).allowCreateAndGet;
    }
  });
});

describe('cost (library/cost.go: 350,000 a check, so two per expression)', () => {
  test('two checks fit the per-expression budget; a third exceeds it', async () => {
    const check = (verb: string): string => `authorizer.requestResource.check('${verb}').allowed()`;
    const two = await validate(policy('p', `  validations:\n  - expression: "${check('create')} && ${check('get')}"\n`));
    assert.equal(two.allowed, true);
    // cel-go charges a call once it ran (its cost observer): the third check is made, then the budget is exceeded
    const threeChecks = `${check('create')} && ${check('get')} && ${check('list')}`;
    const three = await validate(policy('p', `  validations:\n  - expression: "${threeChecks}"\n`, 'Ignore') + policy('q', `  validations:\n  - expression: "${check('create')} && ${check('get')} && ${check('get')}"\n`));
    assert.equal(three.status?.message, denied('q', `expression '${check('create')} && ${check('get')} && ${check('get')}' resulted in error: operation cancelled: actual cost limit exceeded`));
    // the cost is per call, not per review: the repeated check is answered from the cache, and still costs
    assert.deepEqual(server.sar.received.map((r) => r.review.spec.resourceAttributes?.verb), ['create', 'get', 'list']);
  });
});
