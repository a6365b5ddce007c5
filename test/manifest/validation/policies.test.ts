import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  MatchResources,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from '../../../lib/api/types.js';
import {
  validateMutatingAdmissionPolicy,
  validateMutatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
} from '../../../lib/manifest/validation/index.js';
import {
  assertErrors,
  DNS1035_LABEL_MSG,
  DNS1123_SUBDOMAIN_MSG,
  LABEL_KEY_NAME_MSG,
  mutated,
  STUB_COMPILE_ERROR,
  stubCompiler,
} from './helpers.js';
import type { Case } from './helpers.js';

function matchResources(operations: Array<'*' | 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT'> = ['CREATE', 'UPDATE']): MatchResources {
  return {
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    resourceRules: [{ operations, apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: '*' }],
  };
}

function validVAP(): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'replicas.static.k8s.io' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: matchResources(),
      matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'tooMany', expression: 'variables.replicas > 5' },
      ],
      validations: [{ expression: '!variables.tooMany', message: 'too many replicas', reason: 'Invalid', messageExpression: "'replicas: ' + string(variables.replicas)" }],
      auditAnnotations: [{ key: 'replicas', valueExpression: 'string(variables.replicas)' }],
    },
  };
}

function validVAPB(): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'replicas-binding.static.k8s.io' },
    spec: { policyName: 'replicas.static.k8s.io', validationActions: ['Deny', 'Audit'], matchResources: matchResources(['DELETE']) },
  };
}

function validMAP(): MutatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: 'add-label.static.k8s.io' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: matchResources(),
      variables: [{ name: 'team', expression: "'platform'" }],
      mutations: [
        { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/team", value: variables.team}]' } },
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": variables.team}}}' } },
      ],
      reinvocationPolicy: 'Never',
    },
  };
}

function validMAPB(): MutatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: 'add-label-binding.static.k8s.io' },
    spec: { policyName: 'add-label.static.k8s.io', matchResources: matchResources(['*']) },
  };
}

const S = 'spec';

/** Checks shared by both policy kinds, keyed on the fields they have in common. */
type PolicyLike = ValidatingAdmissionPolicy | MutatingAdmissionPolicy;
const commonPolicyCases: ReadonlyArray<Case<PolicyLike>> = [
  { name: 'failurePolicy missing', mutate: (p) => { p.spec!.failurePolicy = null; }, expected: [`${S}.failurePolicy: Required value`] },
  { name: 'failurePolicy unknown', mutate: (p) => { p.spec!.failurePolicy = 'Sometimes'; },
    expected: [`${S}.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`] },
  { name: 'matchConstraints missing', mutate: (p) => { p.spec!.matchConstraints = null; }, expected: [`${S}.matchConstraints: Required value`] },
  { name: 'matchConstraints without resourceRules', mutate: (p) => { p.spec!.matchConstraints!.resourceRules = []; },
    expected: [`${S}.matchConstraints.resourceRules: Required value`] },
  { name: 'matchConstraints without matchPolicy and selectors', mutate: (p) => {
    const m = p.spec!.matchConstraints!;
    m.matchPolicy = null;
    m.namespaceSelector = null;
    m.objectSelector = null;
  }, expected: [
    `${S}.matchConstraints.matchPolicy: Required value`,
    `${S}.matchConstraints.namespaceSelector: Required value`,
    `${S}.matchConstraints.objectSelector: Required value`,
  ] },
  { name: 'matchConstraints matchPolicy unknown', mutate: (p) => { p.spec!.matchConstraints!.matchPolicy = 'Loose'; },
    expected: [`${S}.matchConstraints.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"`] },
  { name: 'selector checked strictly', mutate: (p) => {
    p.spec!.matchConstraints!.namespaceSelector = { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['-bad-'] }] };
  }, expected: [
    `${S}.matchConstraints.namespaceSelector.matchExpressions[0].values[0]: Invalid value: "-bad-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
  ] },
  { name: 'resourceNames must be path segments and unique', mutate: (p) => { p.spec!.matchConstraints!.resourceRules![0]!.resourceNames = ['a/b%', '..', 'x', 'x']; },
    expected: [
      `${S}.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b%": may not contain '/'`,
      `${S}.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b%": may not contain '%'`,
      `${S}.matchConstraints.resourceRules[0].resourceNames[1]: Invalid value: "..": may not be '..'`,
      `${S}.matchConstraints.resourceRules[0].resourceNames[3]: Duplicate value: "x"`,
    ] },
  { name: 'resourceRules rule checks', mutate: (p) => { p.spec!.matchConstraints!.resourceRules![0]!.apiGroups = []; },
    expected: [`${S}.matchConstraints.resourceRules[0].apiGroups: Required value`] },
  { name: 'excludeResourceRules rule checks', mutate: (p) => {
    p.spec!.matchConstraints!.excludeResourceRules = [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*', 'deployments'] }];
  }, expected: [`${S}.matchConstraints.excludeResourceRules[0].resources: Invalid value: ["*","deployments"]: if '*' is present, must not specify other resources without subresources`] },
  { name: 'paramKind fields', mutate: (p) => { p.spec!.paramKind = { apiVersion: 'a/b/c', kind: 'My_Kind' }; }, expected: [
    `${S}.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
    `${S}.paramKind.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: ${DNS1035_LABEL_MSG}`,
  ] },
  { name: 'paramKind group and version', mutate: (p) => { p.spec!.paramKind = { apiVersion: 'Example.com/V1', kind: 'ConfigMap' }; }, expected: [
    `${S}.paramKind.apiVersion: Invalid value: "Example.com": ${DNS1123_SUBDOMAIN_MSG}`,
    `${S}.paramKind.apiVersion: Invalid value: "V1": ${DNS1035_LABEL_MSG}`,
  ] },
  { name: 'paramKind empty', mutate: (p) => { p.spec!.paramKind = {}; },
    expected: [`${S}.paramKind.apiVersion: Required value`, `${S}.paramKind.kind: Required value`] },
  { name: 'paramKind without version', mutate: (p) => { p.spec!.paramKind = { apiVersion: 'example.com/', kind: 'Params' }; },
    expected: [`${S}.paramKind.apiVersion: Invalid value: "example.com/": version must be specified`] },
  { name: 'match condition name missing', mutate: (p) => { p.spec!.matchConditions = [{ expression: 'true' }]; },
    expected: [`${S}.matchConditions[0].name: Required value`] },
  { name: 'match condition that does not compile', mutate: (p) => { p.spec!.matchConditions = [{ name: 'a', expression: '!!bad' }]; },
    expected: [`${S}.matchConditions[0].expression: Invalid value: "!!bad": ${STUB_COMPILE_ERROR}`] },
  { name: 'variable without name', mutate: (p) => { p.spec!.variables![0]!.name = ' '; },
    expected: [`${S}.variables[0].name: Required value: name is not specified`] },
  { name: 'variable name not an identifier', mutate: (p) => { p.spec!.variables![0]!.name = '1st'; },
    expected: [`${S}.variables[0].name: Invalid value: "1st": must be a valid CEL identifier`] },
  { name: 'variable name reserved', mutate: (p) => { p.spec!.variables![0]!.name = 'namespace'; },
    expected: [`${S}.variables[0].name: Invalid value: "namespace": must be a valid CEL identifier`] },
  { name: 'variable without expression', mutate: (p) => { p.spec!.variables![0]!.expression = ''; },
    expected: [`${S}.variables[0].expression: Required value: expression is not specified`] },
  { name: 'variable that does not compile (shown untrimmed)', mutate: (p) => { p.spec!.variables![0]!.expression = ' !!bad\n'; },
    expected: [`${S}.variables[0].expression: Invalid value: " !!bad\\n": ${STUB_COMPILE_ERROR}`] },
];

const vapCases: ReadonlyArray<Case<ValidatingAdmissionPolicy>> = [
  { name: 'name missing', mutate: (p) => { p.metadata!.name = ''; }, expected: [
    'metadata.name: Required value: name or generateName is required',
    `${S}.auditAnnotations[0].key: Invalid value: "replicas": requires metadata.name be non-empty`,
  ] },
  { name: 'neither validations nor auditAnnotations', mutate: (p) => { p.spec!.validations = []; delete p.spec!.auditAnnotations; }, expected: [
    `${S}.validations: Required value: validations or auditAnnotations must contain at least one item`,
    `${S}.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item`,
  ] },
  { name: 'only auditAnnotations is enough', mutate: (p) => { p.spec!.validations = []; }, expected: [] },
  { name: 'validation without expression', mutate: (p) => { p.spec!.validations![0]!.expression = '  '; },
    expected: [`${S}.validations[0].expression: Required value: expression is not specified`] },
  { name: 'validation that does not compile', mutate: (p) => { p.spec!.validations![0]!.expression = '!!bad'; },
    expected: [`${S}.validations[0].expression: Invalid value: "!!bad": ${STUB_COMPILE_ERROR}`] },
  { name: 'blank message', mutate: (p) => { p.spec!.validations![0]!.message = ' '; },
    expected: [`${S}.validations[0].message: Invalid value: " ": must be non-empty if specified`] },
  { name: 'message with a line break', mutate: (p) => { p.spec!.validations![0]!.message = 'too\nmany'; },
    expected: [`${S}.validations[0].message: Invalid value: "too\\nmany": must not contain line breaks`] },
  { name: 'message with surrounding newlines only is fine', mutate: (p) => { p.spec!.validations![0]!.message = '\ntoo many\r\n'; }, expected: [] },
  { name: 'blank messageExpression', mutate: (p) => { p.spec!.validations![0]!.messageExpression = ' \t'; },
    expected: [`${S}.validations[0].messageExpression: Invalid value: " \\t": must be non-empty if specified`] },
  { name: 'messageExpression that does not compile', mutate: (p) => { p.spec!.validations![0]!.messageExpression = "'x' + !!bad"; },
    expected: [`${S}.validations[0].messageExpression: Invalid value: "'x' + !!bad": ${STUB_COMPILE_ERROR}`] },
  { name: 'reason unknown', mutate: (p) => { p.spec!.validations![0]!.reason = 'NotFound'; },
    expected: [`${S}.validations[0].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`] },
  { name: 'reason empty string', mutate: (p) => { p.spec!.validations![0]!.reason = ''; },
    expected: [`${S}.validations[0].reason: Unsupported value: "": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`] },
  { name: 'more than 20 auditAnnotations', mutate: (p) => {
    p.spec!.auditAnnotations = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'v'" }));
  }, expected: [
    `${S}.auditAnnotations: Invalid value: [${Array.from({ length: 21 }, (_, i) => `{"Key":"k${i}","ValueExpression":"'v'"}`).join(',')}]: must not have more than 20 auditAnnotations`,
  ] },
  { name: 'duplicate auditAnnotation keys', mutate: (p) => { p.spec!.auditAnnotations!.push({ key: 'replicas', valueExpression: "'x'" }); },
    expected: [`${S}.auditAnnotations[1].key: Duplicate value: "replicas"`] },
  { name: 'auditAnnotation key not qualified with the policy name', mutate: (p) => { p.spec!.auditAnnotations![0]!.key = 'bad key'; },
    expected: [`${S}.auditAnnotations[0].key: Invalid value: "replicas.static.k8s.io/bad key": ${LABEL_KEY_NAME_MSG}`] },
  { name: 'auditAnnotation key too long', mutate: (p) => { p.spec!.auditAnnotations![0]!.key = 'k'.repeat(64); },
    expected: [`${S}.auditAnnotations[0].key: Invalid value: "replicas.static.k8s.io/${'k'.repeat(64)}": name part must be no more than 63 bytes`] },
  { name: 'auditAnnotation without valueExpression', mutate: (p) => { p.spec!.auditAnnotations![0]!.valueExpression = ''; },
    expected: [`${S}.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified`] },
  { name: 'auditAnnotation valueExpression over 5 KiB', mutate: (p) => { p.spec!.auditAnnotations![0]!.valueExpression = `'${'x'.repeat(5119)}'`; },
    expected: [`${S}.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length`] },
  { name: 'auditAnnotation valueExpression that does not compile', mutate: (p) => { p.spec!.auditAnnotations![0]!.valueExpression = '\n!!bad'; },
    expected: [`${S}.auditAnnotations[0].valueExpression: Invalid value: "\\n!!bad": ${STUB_COMPILE_ERROR}`] },
];

describe('validateValidatingAdmissionPolicy', () => {
  it('accepts a valid policy', () => {
    assertErrors(validateValidatingAdmissionPolicy(validVAP(), { compile: stubCompiler() }), []);
  });
  for (const c of [...commonPolicyCases, ...vapCases] as ReadonlyArray<Case<ValidatingAdmissionPolicy>>) {
    it(c.name, () => {
      assertErrors(validateValidatingAdmissionPolicy(mutated(validVAP, c.mutate), { compile: stubCompiler() }), c.expected);
    });
  }
  it('reports an empty object the way upstream does', () => {
    assertErrors(validateValidatingAdmissionPolicy({}, { compile: stubCompiler() }), [
      'metadata.name: Required value: name or generateName is required',
      `${S}.failurePolicy: Required value`,
      `${S}.matchConstraints: Required value`,
      `${S}.validations: Required value: validations or auditAnnotations must contain at least one item`,
      `${S}.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item`,
    ]);
  });
  it('compiles each expression with the right environment, result type and variables in scope', () => {
    const compile = stubCompiler();
    validateValidatingAdmissionPolicy(validVAP(), { compile });
    const seen = compile.requests.map((r) => [r.expression, r.environment, r.expect, r.variableNames]);
    assert.deepEqual(seen, [
      ["!request.userInfo.username.startsWith('system:')", 'validatingPolicy', 'bool', []],
      ['object.spec.replicas', 'validatingPolicy', 'any', []],
      ['variables.replicas > 5', 'validatingPolicy', 'any', ['replicas']],
      ['!variables.tooMany', 'validatingPolicy', 'bool', ['replicas', 'tooMany']],
      ["'replicas: ' + string(variables.replicas)", 'validatingPolicyMessage', 'string', ['replicas', 'tooMany']],
      ['string(variables.replicas)', 'validatingPolicy', 'stringOrNull', ['replicas', 'tooMany']],
    ]);
  });
  it('declares no variables when the policy has none', () => {
    const compile = stubCompiler();
    validateValidatingAdmissionPolicy(mutated(validVAP, (p) => { delete p.spec!.variables; }), { compile });
    assert.ok(compile.requests.every((r) => Array.isArray(r.variableNames) && r.variableNames.length === 0));
  });
});

describe('validateValidatingAdmissionPolicyBinding', () => {
  const cases: ReadonlyArray<Case<ValidatingAdmissionPolicyBinding>> = [
    { name: 'policyName missing', mutate: (b) => { b.spec!.policyName = ''; }, expected: [`${S}.policyName: Required value`] },
    { name: 'policyName not a DNS subdomain', mutate: (b) => { b.spec!.policyName = 'Replicas'; },
      expected: [`${S}.policyName: Invalid value: "Replicas": ${DNS1123_SUBDOMAIN_MSG}`] },
    { name: 'no validation actions', mutate: (b) => { b.spec!.validationActions = []; },
      expected: [`${S}.validationActions: Required value: at least one validation action is required`] },
    { name: 'Deny and Warn together', mutate: (b) => { b.spec!.validationActions = ['Deny', 'Warn']; },
      expected: [`${S}.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`] },
    { name: 'duplicate action', mutate: (b) => { b.spec!.validationActions = ['Audit', 'Audit']; },
      expected: [`${S}.validationActions[1]: Duplicate value: "Audit"`] },
    { name: 'unknown action', mutate: (b) => { b.spec!.validationActions = ['Block' as 'Deny']; },
      expected: [`${S}.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"`] },
    { name: 'matchResources is optional', mutate: (b) => { delete b.spec!.matchResources; }, expected: [] },
    { name: 'matchResources validated when present', mutate: (b) => { b.spec!.matchResources!.matchPolicy = null; b.spec!.matchResources!.resourceRules = []; },
      expected: [`${S}.matchResources.matchPolicy: Required value`] },
    { name: 'paramRef name and selector', mutate: (b) => { b.spec!.paramRef = { name: 'p', selector: {}, parameterNotFoundAction: 'Deny' }; }, expected: [
      `${S}.paramRef.name: Forbidden: name and selector are mutually exclusive`,
      `${S}.paramRef.selector: Forbidden: name and selector are mutually exclusive`,
    ] },
    { name: 'paramRef without name or selector', mutate: (b) => { b.spec!.paramRef = { parameterNotFoundAction: 'Allow' }; },
      expected: [`${S}.paramRef: Required value: one of name or selector must be specified`] },
    { name: 'paramRef bad name and action', mutate: (b) => { b.spec!.paramRef = { name: 'a/b', parameterNotFoundAction: 'Ignore' }; }, expected: [
      `${S}.paramRef.name: Invalid value: "a/b": may not contain '/'`,
      `${S}.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"`,
    ] },
    { name: 'paramRef without parameterNotFoundAction', mutate: (b) => { b.spec!.paramRef = { name: 'p' }; },
      expected: [`${S}.paramRef.parameterNotFoundAction: Required value`] },
    { name: 'empty spec', mutate: (b) => { b.spec = {}; }, expected: [
      `${S}.policyName: Required value`,
      `${S}.validationActions: Required value: at least one validation action is required`,
    ] },
  ];
  it('accepts a valid binding', () => assertErrors(validateValidatingAdmissionPolicyBinding(validVAPB()), []));
  for (const c of cases) {
    it(c.name, () => assertErrors(validateValidatingAdmissionPolicyBinding(mutated(validVAPB, c.mutate)), c.expected));
  }
});

const mapCases: ReadonlyArray<Case<MutatingAdmissionPolicy>> = [
  { name: 'DELETE cannot be mutated', mutate: (p) => { p.spec!.matchConstraints!.resourceRules![0]!.operations = ['CREATE', 'DELETE']; },
    expected: [`${S}.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`] },
  { name: 'no mutations', mutate: (p) => { p.spec!.mutations = []; }, expected: [`${S}.mutations: Required value: mutations must contain at least one item`] },
  { name: 'patchType missing', mutate: (p) => { p.spec!.mutations![0]!.patchType = ''; }, expected: [`${S}.mutations[0].patchType: Required value`] },
  { name: 'patchType unknown', mutate: (p) => { p.spec!.mutations![0]!.patchType = 'MergePatch'; },
    expected: [`${S}.mutations[0].patchType: Unsupported value: "MergePatch": supported values: "ApplyConfiguration", "JSONPatch"`] },
  { name: 'JSONPatch without jsonPatch', mutate: (p) => { p.spec!.mutations![0]!.jsonPatch = null; },
    expected: [`${S}.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch`] },
  { name: 'JSONPatch with applyConfiguration', mutate: (p) => { p.spec!.mutations![0]!.applyConfiguration = { expression: 'Object{}' }; },
    expected: [`${S}.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch`] },
  { name: 'ApplyConfiguration without applyConfiguration', mutate: (p) => { p.spec!.mutations![1]!.applyConfiguration = null; },
    expected: [`${S}.mutations[1].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration`] },
  { name: 'ApplyConfiguration with jsonPatch', mutate: (p) => { p.spec!.mutations![1]!.jsonPatch = { expression: '[]' }; },
    expected: [`${S}.mutations[1].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration`] },
  { name: 'jsonPatch without expression', mutate: (p) => { p.spec!.mutations![0]!.jsonPatch!.expression = ' '; },
    expected: [`${S}.mutations[0].jsonPatch.expression: Required value`] },
  { name: 'applyConfiguration without expression', mutate: (p) => { p.spec!.mutations![1]!.applyConfiguration = {}; },
    expected: [`${S}.mutations[1].applyConfiguration.expression: Required value`] },
  { name: 'jsonPatch that does not compile (shown trimmed)', mutate: (p) => { p.spec!.mutations![0]!.jsonPatch!.expression = ' [!!bad] '; },
    expected: [`${S}.mutations[0].jsonPatch.expression: Invalid value: "[!!bad]": ${STUB_COMPILE_ERROR}`] },
  { name: 'applyConfiguration that does not compile', mutate: (p) => { p.spec!.mutations![1]!.applyConfiguration!.expression = 'Object{!!bad}'; },
    expected: [`${S}.mutations[1].applyConfiguration.expression: Invalid value: "Object{!!bad}": ${STUB_COMPILE_ERROR}`] },
  { name: 'reinvocationPolicy missing', mutate: (p) => { p.spec!.reinvocationPolicy = ''; }, expected: [`${S}.reinvocationPolicy: Required value`] },
  { name: 'reinvocationPolicy unknown', mutate: (p) => { p.spec!.reinvocationPolicy = 'Always'; },
    expected: [`${S}.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"`] },
];

describe('validateMutatingAdmissionPolicy', () => {
  it('accepts a valid policy', () => {
    assertErrors(validateMutatingAdmissionPolicy(validMAP(), { compile: stubCompiler() }), []);
  });
  for (const c of [...commonPolicyCases, ...mapCases] as ReadonlyArray<Case<MutatingAdmissionPolicy>>) {
    it(c.name, () => {
      assertErrors(validateMutatingAdmissionPolicy(mutated(validMAP, c.mutate), { compile: stubCompiler() }), c.expected);
    });
  }
  it('reports an empty object the way upstream does', () => {
    assertErrors(validateMutatingAdmissionPolicy({}, { compile: stubCompiler() }), [
      'metadata.name: Required value: name or generateName is required',
      `${S}.failurePolicy: Required value`,
      `${S}.matchConstraints: Required value`,
      `${S}.mutations: Required value: mutations must contain at least one item`,
      `${S}.reinvocationPolicy: Required value`,
    ]);
  });
  it('compiles mutations in the mutating environment with every variable in scope, with the patch type\'s return type', () => {
    const compile = stubCompiler();
    validateMutatingAdmissionPolicy(validMAP(), { compile });
    const seen = compile.requests
      .filter((r) => !r.expression.includes('probe'))
      .map((r) => [r.expression, r.environment, r.expect, r.variableNames]);
    assert.deepEqual(seen, [
      ["'platform'", 'mutatingPolicy', 'any', []],
      ['[JSONPatch{op: "add", path: "/metadata/labels/team", value: variables.team}]', 'mutatingPolicy', 'jsonPatch', ['team']],
      ['Object{metadata: Object.metadata{labels: {"team": variables.team}}}', 'mutatingPolicy', 'applyConfiguration', ['team']],
    ]);
  });
  it('skips construction-syntax compile checks when the engine cannot parse them', () => {
    // An engine that fails every `Name{...}` construction, as a parser without message support would.
    const compile = Object.assign((request: { expression: string }) => (/[A-Za-z]\{/.test(request.expression)
      ? { ok: false as const, message: 'compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input \'{\'' }
      : { ok: true as const, compiled: {} }));
    const errors = validateMutatingAdmissionPolicy(validMAP(), { compile: compile as never });
    assertErrors(errors, []);
  });
});

describe('validateMutatingAdmissionPolicyBinding', () => {
  const cases: ReadonlyArray<Case<MutatingAdmissionPolicyBinding>> = [
    { name: 'policyName missing', mutate: (b) => { b.spec!.policyName = ''; }, expected: [`${S}.policyName: Required value`] },
    { name: 'DELETE cannot be mutated', mutate: (b) => { b.spec!.matchResources!.resourceRules![0]!.operations = ['DELETE']; },
      expected: [`${S}.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`] },
    { name: 'matchResources validated when present', mutate: (b) => { b.spec!.matchResources!.objectSelector = null; },
      expected: [`${S}.matchResources.objectSelector: Required value`] },
    { name: 'paramRef checked', mutate: (b) => { b.spec!.paramRef = { name: '.' , parameterNotFoundAction: 'Deny' }; },
      expected: [`${S}.paramRef.name: Invalid value: ".": may not be '.'`] },
    { name: 'empty object', mutate: (b) => { delete b.metadata; b.spec = {}; }, expected: [
      'metadata.name: Required value: name or generateName is required',
      `${S}.policyName: Required value`,
    ] },
  ];
  it('accepts a valid binding', () => assertErrors(validateMutatingAdmissionPolicyBinding(validMAPB()), []));
  for (const c of cases) {
    it(c.name, () => assertErrors(validateMutatingAdmissionPolicyBinding(mutated(validMAPB, c.mutate)), c.expected));
  }
});
