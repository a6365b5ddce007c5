import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from '../../../lib/api/types.js';
import {
  validateMutatingWebhookConfiguration,
  validateValidatingWebhookConfiguration,
} from '../../../lib/manifest/validation/index.js';
import {
  assertErrors,
  DNS1035_LABEL_MSG,
  DNS1123_SUBDOMAIN_MSG,
  LABEL_KEY_NAME_MSG,
  LABEL_VALUE_MSG,
  mutated,
  STUB_COMPILE_ERROR,
  stubCompiler,
  URL_FORM,
} from './helpers.js';
import type { Case } from './helpers.js';

function webhook(name = 'deny.example.com'): ValidatingWebhook {
  return {
    name,
    clientConfig: { url: 'https://webhook.example.com:8443/validate', caBundle: 'dGVzdA==' },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] },
    objectSelector: { matchLabels: { 'app.kubernetes.io/name': 'web' } },
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchConditions: [{ name: 'not-a-node', expression: "request.userInfo.username != 'system:node'" }],
  };
}

function validVWC(): ValidatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'deny.static.k8s.io', labels: { team: 'platform' }, annotations: { 'example.com/owner': 'me' } },
    webhooks: [webhook()],
  };
}

function validMWC(): MutatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'inject.static.k8s.io' },
    webhooks: [{ ...webhook('inject.example.com'), reinvocationPolicy: 'IfNeeded' }],
  };
}

const hook = (c: ValidatingWebhookConfiguration): ValidatingWebhook => c.webhooks![0]!;
const W = 'webhooks[0]';

const cases: ReadonlyArray<Case<ValidatingWebhookConfiguration>> = [
  // metadata (ValidateObjectMeta with NameIsDNSSubdomain)
  { name: 'name missing', mutate: (c) => { c.metadata = {}; }, expected: ['metadata.name: Required value: name or generateName is required'] },
  { name: 'name not a DNS subdomain', mutate: (c) => { c.metadata!.name = 'Deny.static.k8s.io'; },
    expected: [`metadata.name: Invalid value: "Deny.static.k8s.io": ${DNS1123_SUBDOMAIN_MSG}`] },
  { name: 'name too long', mutate: (c) => { c.metadata!.name = 'a'.repeat(254); },
    expected: [`metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`] },
  { name: 'generateName is checked as a prefix', mutate: (c) => { c.metadata!.generateName = 'Bad-'; },
    expected: [`metadata.generateName: Invalid value: "Bad-": ${DNS1123_SUBDOMAIN_MSG}`] },
  { name: 'namespace on a cluster-scoped kind', mutate: (c) => { c.metadata!.namespace = 'default'; },
    expected: ['metadata.namespace: Forbidden: not allowed on this type'] },
  { name: 'negative generation', mutate: (c) => { c.metadata!.generation = -1; },
    expected: ['metadata.generation: Invalid value: -1: must be greater than or equal to 0'] },
  { name: 'bad label key and value', mutate: (c) => { c.metadata!.labels = { 'bad key': 'v', ok: 'bad value!' }; },
    expected: [`metadata.labels: Invalid value: "bad key": ${LABEL_KEY_NAME_MSG}`, `metadata.labels: Invalid value: "bad value!": ${LABEL_VALUE_MSG}`] },
  { name: 'bad annotation key', mutate: (c) => { c.metadata!.annotations = { '/x': 'v' }; },
    expected: ['metadata.annotations: Invalid value: "/x": prefix part must be non-empty'] },
  { name: 'annotations over 256 KiB', mutate: (c) => { c.metadata!.annotations = { a: 'x'.repeat(256 * 1024) }; },
    expected: ['metadata.annotations: Too long: may not be more than 262144 bytes'] },
  { name: 'bad finalizer', mutate: (c) => { c.metadata!.finalizers = ['a/b/c']; },
    expected: ["metadata.finalizers: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"] },
  { name: 'owner reference without uid', mutate: (c) => { c.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' }]; },
    expected: ['metadata.ownerReferences.uid: Invalid value: "": must not be empty'] },
  { name: 'managed fields with a bad operation', mutate: (c) => { c.metadata!.managedFields = [{ manager: 'kubectl', operation: 'Patch' }]; },
    expected: ['metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`'] },
  // webhook name
  { name: 'webhook name missing', mutate: (c) => { hook(c).name = ''; }, expected: [`${W}.name: Required value`] },
  { name: 'webhook name with two segments', mutate: (c) => { hook(c).name = 'example.com'; },
    expected: [`${W}.name: Invalid value: "example.com": should be a domain with at least three segments separated by dots`] },
  { name: 'webhook name not a DNS subdomain', mutate: (c) => { hook(c).name = 'Deny.example.com'; },
    expected: [`${W}.name: Invalid value: "Deny.example.com": ${DNS1123_SUBDOMAIN_MSG}`] },
  { name: 'duplicate webhook names', mutate: (c) => { c.webhooks!.push(webhook()); },
    expected: ['webhooks[1].name: Duplicate value: "deny.example.com"'] },
  // enums
  { name: 'failurePolicy', mutate: (c) => { hook(c).failurePolicy = 'Retry'; },
    expected: [`${W}.failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"`] },
  { name: 'matchPolicy', mutate: (c) => { hook(c).matchPolicy = 'Fuzzy'; },
    expected: [`${W}.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"`] },
  { name: 'sideEffects missing', mutate: (c) => { delete hook(c).sideEffects; },
    expected: [`${W}.sideEffects: Required value: must specify one of None, NoneOnDryRun`] },
  { name: 'sideEffects Some', mutate: (c) => { hook(c).sideEffects = 'Some'; },
    expected: [`${W}.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`] },
  { name: 'sideEffects Unknown', mutate: (c) => { hook(c).sideEffects = 'Unknown'; },
    expected: [`${W}.sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"`] },
  { name: 'timeout above 30', mutate: (c) => { hook(c).timeoutSeconds = 31; },
    expected: [`${W}.timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`] },
  { name: 'timeout below 1', mutate: (c) => { hook(c).timeoutSeconds = 0; },
    expected: [`${W}.timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds`] },
  // admissionReviewVersions
  { name: 'admissionReviewVersions missing', mutate: (c) => { hook(c).admissionReviewVersions = []; },
    expected: [`${W}.admissionReviewVersions: Required value: must specify one of v1, v1beta1`] },
  { name: 'admissionReviewVersions without a known version', mutate: (c) => { hook(c).admissionReviewVersions = ['v2']; },
    expected: [`${W}.admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`] },
  { name: 'admissionReviewVersions duplicate', mutate: (c) => { hook(c).admissionReviewVersions = ['v1', 'v1']; },
    expected: [`${W}.admissionReviewVersions[1]: Invalid value: "v1": duplicate version`] },
  { name: 'admissionReviewVersions not a DNS-1035 label', mutate: (c) => { hook(c).admissionReviewVersions = ['V1', 'v1']; },
    expected: [`${W}.admissionReviewVersions[0]: Invalid value: "V1": ${DNS1035_LABEL_MSG}`] },
  // clientConfig
  { name: 'neither url nor service', mutate: (c) => { hook(c).clientConfig = { caBundle: 'dGVzdA==' }; },
    expected: [`${W}.clientConfig: Required value: exactly one of url or service is required`] },
  { name: 'both url and service', mutate: (c) => { hook(c).clientConfig!.service = { namespace: 'ns', name: 'svc', port: 443 }; },
    expected: [`${W}.clientConfig: Required value: exactly one of url or service is required`] },
  { name: 'service passes REST validation (static check comes later)', mutate: (c) => { hook(c).clientConfig = { service: { namespace: 'ns', name: 'svc', port: 443 } }; },
    expected: [] },
  { name: 'service with a bad path and port', mutate: (c) => { hook(c).clientConfig = { service: { namespace: '', name: 'svc', path: '/Bad', port: 0 } }; },
    expected: [
      `${W}.clientConfig.service.namespace: Required value`,
      `${W}.clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive`,
      `${W}.clientConfig.service.path: Invalid value: "/Bad": segment[0]: ${DNS1123_SUBDOMAIN_MSG}`,
    ] },
  { name: 'http url', mutate: (c) => { hook(c).clientConfig!.url = 'http://webhook.example.com/validate'; },
    expected: [`${W}.clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${URL_FORM}`] },
  { name: 'url without host', mutate: (c) => { hook(c).clientConfig!.url = 'https:///validate'; },
    expected: [`${W}.clientConfig.url: Invalid value: "": host must be specified${URL_FORM}`] },
  { name: 'url with user info', mutate: (c) => { hook(c).clientConfig!.url = 'https://user:pass@webhook.example.com/'; },
    expected: [`${W}.clientConfig.url: Invalid value: "user:pass": user information is not permitted in the URL`] },
  { name: 'url with fragment', mutate: (c) => { hook(c).clientConfig!.url = 'https://webhook.example.com/#frag'; },
    expected: [`${W}.clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL`] },
  { name: 'url with query', mutate: (c) => { hook(c).clientConfig!.url = 'https://webhook.example.com/?a=b'; },
    expected: [`${W}.clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL`] },
  { name: 'url that does not parse', mutate: (c) => { hook(c).clientConfig!.url = 'https://webhook.example.com:port/'; },
    expected: [`${W}.clientConfig.url: Required value: url must be a valid URL: parse "https://webhook.example.com:port/": invalid port ":port" after host${URL_FORM}`] },
  // rules
  { name: 'operations missing', mutate: (c) => { hook(c).rules![0]!.operations = []; }, expected: [`${W}.rules[0].operations: Required value`] },
  { name: 'operations mixing *', mutate: (c) => { hook(c).rules![0]!.operations = ['*', 'CREATE']; },
    expected: [`${W}.rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`] },
  { name: 'unknown operation', mutate: (c) => { hook(c).rules![0]!.operations = ['PATCH' as 'CREATE']; },
    expected: [`${W}.rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`] },
  { name: 'apiGroups missing', mutate: (c) => { hook(c).rules![0]!.apiGroups = []; }, expected: [`${W}.rules[0].apiGroups: Required value`] },
  { name: 'apiGroups mixing *', mutate: (c) => { hook(c).rules![0]!.apiGroups = ['*', 'apps']; },
    expected: [`${W}.rules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`] },
  { name: 'apiVersions missing', mutate: (c) => { hook(c).rules![0]!.apiVersions = []; }, expected: [`${W}.rules[0].apiVersions: Required value`] },
  { name: 'apiVersions mixing *', mutate: (c) => { hook(c).rules![0]!.apiVersions = ['v1', '*']; },
    expected: [`${W}.rules[0].apiVersions: Invalid value: ["v1","*"]: if '*' is present, must not specify other API versions`] },
  { name: 'empty apiVersion', mutate: (c) => { hook(c).rules![0]!.apiVersions = ['v1', '']; }, expected: [`${W}.rules[0].apiVersions[1]: Required value`] },
  { name: 'resources missing', mutate: (c) => { hook(c).rules![0]!.resources = []; }, expected: [`${W}.rules[0].resources: Required value`] },
  { name: 'empty resource', mutate: (c) => { hook(c).rules![0]!.resources = ['']; }, expected: [`${W}.rules[0].resources[0]: Required value`] },
  { name: '*/* with others', mutate: (c) => { hook(c).rules![0]!.resources = ['*/*', 'pods']; },
    expected: [`${W}.rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`] },
  { name: '* with a plain resource', mutate: (c) => { hook(c).rules![0]!.resources = ['*', 'pods']; },
    expected: [`${W}.rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`] },
  { name: '* after a plain resource passes (upstream only remembers the last plain entry)', mutate: (c) => { hook(c).rules![0]!.resources = ['pods', '*']; },
    expected: [] },
  { name: '* with subresources is fine', mutate: (c) => { hook(c).rules![0]!.resources = ['*', '*/status']; }, expected: [] },
  { name: 'x/* then x/y', mutate: (c) => { hook(c).rules![0]!.resources = ['pods/*', 'pods/status']; },
    expected: [`${W}.rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`] },
  { name: '*/y then x/y', mutate: (c) => { hook(c).rules![0]!.resources = ['*/status', 'pods/status']; },
    expected: [`${W}.rules[0].resources[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`] },
  { name: 'scope', mutate: (c) => { hook(c).rules![0]!.scope = 'Global'; },
    expected: [`${W}.rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`] },
  // selectors
  { name: 'In without values', mutate: (c) => { hook(c).namespaceSelector = { matchExpressions: [{ key: 'env', operator: 'In' }] }; },
    expected: [`${W}.namespaceSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`] },
  { name: 'Exists with values', mutate: (c) => { hook(c).namespaceSelector = { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] }; },
    expected: [`${W}.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`] },
  { name: 'unknown operator', mutate: (c) => { hook(c).objectSelector = { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['x'] }] }; },
    expected: [`${W}.objectSelector.matchExpressions[0].operator: Invalid value: "Equals": not a valid selector operator`] },
  { name: 'invalid value in a selector (strict)', mutate: (c) => { hook(c).objectSelector = { matchExpressions: [{ key: 'env', operator: 'In', values: ['bad value!'] }] }; },
    expected: [`${W}.objectSelector.matchExpressions[0].values[0]: Invalid value: "bad value!": ${LABEL_VALUE_MSG}`] },
  { name: 'invalid key in a selector', mutate: (c) => { hook(c).objectSelector = { matchExpressions: [{ key: 'bad key', operator: 'Exists' }] }; },
    expected: [`${W}.objectSelector.matchExpressions[0].key: Invalid value: "bad key": ${LABEL_KEY_NAME_MSG}`] },
  { name: 'matchLabels value too long', mutate: (c) => { hook(c).objectSelector = { matchLabels: { app: 'a'.repeat(64) } }; },
    expected: [`${W}.objectSelector.matchLabels: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`] },
  // matchConditions
  { name: 'more than 64 match conditions', mutate: (c) => {
    hook(c).matchConditions = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
  }, expected: [`${W}.matchConditions: Too many: 65: must have at most 64 items`] },
  { name: 'match condition without name', mutate: (c) => { hook(c).matchConditions = [{ expression: 'true' }]; },
    expected: [`${W}.matchConditions[0].name: Required value`] },
  { name: 'match condition name not qualified', mutate: (c) => { hook(c).matchConditions = [{ name: 'bad name', expression: 'true' }]; },
    expected: [`${W}.matchConditions[0].name: Invalid value: "bad name": ${LABEL_KEY_NAME_MSG}`] },
  { name: 'duplicate match condition names', mutate: (c) => { hook(c).matchConditions = [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'false' }]; },
    expected: [`${W}.matchConditions[1].name: Duplicate value: "a"`] },
  { name: 'match condition without expression', mutate: (c) => { hook(c).matchConditions = [{ name: 'a', expression: ' \n ' }]; },
    expected: [`${W}.matchConditions[0].expression: Required value`] },
  { name: 'match condition that does not compile (shown trimmed)', mutate: (c) => { hook(c).matchConditions = [{ name: 'a', expression: ' !!bad ' }]; },
    expected: [`${W}.matchConditions[0].expression: Invalid value: "!!bad": ${STUB_COMPILE_ERROR}`] },
  // ordering across checks and webhooks
  { name: 'errors in upstream order', mutate: (c) => {
    c.metadata!.name = '';
    const h = hook(c);
    h.name = 'x';
    h.sideEffects = 'Some';
    h.admissionReviewVersions = [];
    h.clientConfig = {};
    c.webhooks!.push({ ...webhook('x'), timeoutSeconds: 60 });
  }, expected: [
    'metadata.name: Required value: name or generateName is required',
    `${W}.name: Invalid value: "x": should be a domain with at least three segments separated by dots`,
    `${W}.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`,
    `${W}.clientConfig: Required value: exactly one of url or service is required`,
    `${W}.admissionReviewVersions: Required value: must specify one of v1, v1beta1`,
    'webhooks[1].name: Invalid value: "x": should be a domain with at least three segments separated by dots',
    'webhooks[1].timeoutSeconds: Invalid value: 60: the timeout value must be between 1 and 30 seconds',
    'webhooks[1].name: Duplicate value: "x"',
  ] },
];

describe('validateValidatingWebhookConfiguration', () => {
  it('accepts a valid configuration', () => {
    assertErrors(validateValidatingWebhookConfiguration(validVWC(), { compile: stubCompiler() }), []);
  });
  it('accepts the static suffix and a configuration without webhooks', () => {
    assertErrors(validateValidatingWebhookConfiguration({ metadata: { name: 'x.static.k8s.io' } }, { compile: stubCompiler() }), []);
  });
  for (const c of cases) {
    it(c.name, () => {
      assertErrors(validateValidatingWebhookConfiguration(mutated(validVWC, c.mutate), { compile: stubCompiler() }), c.expected);
    });
  }
  it('compiles match conditions in the webhook environment as bool', () => {
    const compile = stubCompiler();
    validateValidatingWebhookConfiguration(validVWC(), { compile });
    assert.deepEqual(compile.requests, [{
      expression: "request.userInfo.username != 'system:node'",
      environment: 'webhookMatchCondition',
      variableNames: [],
      expect: 'bool',
    }]);
  });
});

describe('validateMutatingWebhookConfiguration', () => {
  it('accepts a valid configuration', () => {
    assertErrors(validateMutatingWebhookConfiguration(validMWC(), { compile: stubCompiler() }), []);
  });
  it('rejects an unknown reinvocationPolicy', () => {
    const c = mutated(validMWC, (m) => { m.webhooks![0]!.reinvocationPolicy = 'Always'; });
    assertErrors(validateMutatingWebhookConfiguration(c, { compile: stubCompiler() }),
      [`${W}.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`]);
  });
  it('runs the shared webhook checks in upstream order (reinvocationPolicy before clientConfig)', () => {
    const c = mutated(validMWC, (m) => {
      const h = m.webhooks![0]!;
      h.reinvocationPolicy = 'Always';
      h.clientConfig = { url: 'http://x.example.com' };
      h.sideEffects = null;
    });
    assertErrors(validateMutatingWebhookConfiguration(c, { compile: stubCompiler() }), [
      `${W}.sideEffects: Required value: must specify one of None, NoneOnDryRun`,
      `${W}.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`,
      `${W}.clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${URL_FORM}`,
    ]);
  });
});
